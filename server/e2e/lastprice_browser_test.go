package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// jsTagCuts reads the price axis' labels that the last-price tag, or the
// cover of the page's background beneath it, meets (tagCuts): each must be
// hidden whole, not cut by an edge with a part showing past it. A label's
// box is its font's size high about its middle, where its digits are
// drawn: zrender's own box of an axis label is 4.4 px high here (it takes
// a line's height from a glyph the headless browser's font lacks).
const jsTagCuts = `(() => {
  const c = ` + jsChart + `, box = ` + jsCanvasBox + `;
  const labels = new Set(` + jsPriceLabels + `);
  const roots = c.getZr().storage.getRoots();
  const tag = roots.find((el) => el.name === "last-price-tag"), cover = roots.find((el) => el.name === "last-price-cover");
  if (!tag || tag.ignore) return {shown: false};
  const t = box(tag);
  let top = t.y, bottom = t.y + t.height, fill = "";
  if (cover && !cover.ignore) {
    const r = box(cover);
    top = Math.min(top, r.y), bottom = Math.max(bottom, r.y + r.height), fill = cover.style.fill;
  }
  const hex = (rgb) => "#" + rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, "0")).join("");
  // Placed: at the price it writes, on the axis as it is now.
  const price = Number(tag.style.text.split("\n")[0].replace(/,/g, ""));
  const placed = Math.abs(t.y + t.height / 2 - c.convertToPixel({yAxisIndex: 0}, price)) < 1;
  const out = {shown: true, placed, met: 0, cut: [], fill, bg: hex(getComputedStyle(document.body).backgroundColor)};
  for (const el of c.getZr().storage.getDisplayList(true)) {
    if (el === tag || !labels.has(el.style && el.style.text)) continue;
    const r = box(el), size = el.style.fontSize || 12, y0 = r.y + r.height / 2 - size / 2, y1 = y0 + size;
    if (r.x + r.width <= t.x || y0 >= bottom || y1 <= top) continue; // neither under the tag nor the cover
    out.met++;
    if (y0 < top - 0.5 || y1 > bottom + 0.5) out.cut.push(el.style.text);
  }
  return out;
})()`

// tagCuts is what jsTagCuts reads: how many price labels the tag meets,
// those of them that show past it, and the cover's fill beside the page's
// background.
type tagCuts struct {
	Shown    bool
	Placed   bool
	Met      int
	Cut      []string
	Fill, Bg string
}

// TestTheLastPriceTagCutsNoLabel: where the last-price tag passes over the
// price axis, a label it meets is hidden whole, on a linear and a log
// scale, light and dark, and in a chart embed, over views from 60 % of the
// candles to the newest few, so that the labels fall everywhere about the
// tag. The tag's edge used to cut such a label in two, its top or bottom
// half showing.
func TestTheLastPriceTagCutsNoLabel(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		name, path    string
		width, height int64
	}{
		{"linear, light", "/?contract_code=BTC-USDT&period=15min&theme=light", 1280, 800},
		{"log scale, dark", "/?contract_code=ETH-USDT&period=4hour&scale=log&theme=dark", 1280, 700},
		{"a chart embed", "/embed/chart?contract_code=SOL-USDT&period=5min", 640, 480},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(tc.width, tc.height, 1, false), chromedp.Navigate(s.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, drawnAt(tc.path))
			met := 0
			for start := 40; start <= 97; start += 3 {
				zoom := fmt.Sprintf(`%s.dispatchAction({type: "dataZoom", start: %d, end: 100})`, jsChart, start)
				if err := chromedp.Run(ctx, chromedp.Evaluate(zoom, nil)); err != nil {
					t.Fatal(err)
				}
				// The app places the tag for the new view in a task of its own.
				tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				chromedp.Run(tctx, chromedp.Poll(`((r) => r.shown && r.placed)(`+jsTagCuts+`)`, nil, chromedp.WithPollingInterval(20*time.Millisecond))) // the check below says if it never is
				cancel()
				r := evalJS[tagCuts](t, ctx, jsTagCuts)
				switch {
				case !r.Shown || !r.Placed:
					t.Errorf("from %d %% of the candles, the last-price tag is not shown at its price", start)
				case len(r.Cut) > 0:
					t.Errorf("from %d %% of the candles, the last-price tag cuts the labels %q: part of each shows past it", start, r.Cut)
				case r.Fill != "" && r.Fill != r.Bg:
					t.Errorf("from %d %% of the candles, the labels under the tag are hidden by %s, on a page of %s", start, r.Fill, r.Bg)
				}
				met += r.Met
			}
			if met == 0 {
				t.Error("the tag met no label in any view: the test tested nothing")
			}
		})
	}
}
