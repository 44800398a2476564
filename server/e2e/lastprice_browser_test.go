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
// a line's height from a glyph the headless browser's font lacks). It
// also says whether the newest close, the price the tag writes, is on the
// price axis as ECharts has laid the view out (inView): the tag is then
// shown, at it, and hidden otherwise.
const jsTagCuts = `(() => {
  const c = ` + jsChart + `, box = ` + jsCanvasBox + `;
  const labels = new Set(` + jsPriceLabels + `);
  const roots = c.getZr().storage.getRoots();
  const tag = roots.find((el) => el.name === "last-price-tag"), cover = roots.find((el) => el.name === "last-price-cover");
  if (!tag) return {shown: false, inView: false};
  const price = Number(tag.style.text.split("\n")[0].replace(/,/g, ""));
  const y = c.convertToPixel({yAxisIndex: 0}, price), grid = c.getModel().getComponent("grid", 0).coordinateSystem.getRect();
  const inView = y >= grid.y && y <= grid.y + grid.height;
  if (tag.ignore) return {shown: false, inView};
  const t = box(tag);
  let top = t.y, bottom = t.y + t.height, fill = "";
  if (cover && !cover.ignore) {
    const r = box(cover);
    top = Math.min(top, r.y), bottom = Math.max(bottom, r.y + r.height), fill = cover.style.fill;
  }
  const hex = (rgb) => "#" + rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, "0")).join("");
  // Placed: at the price it writes, on the axis as it is now.
  const placed = Math.abs(t.y + t.height / 2 - y) < 1;
  const out = {shown: true, inView, placed, met: 0, cut: [], fill, bg: hex(getComputedStyle(document.body).backgroundColor)};
  for (const el of c.getZr().storage.getDisplayList(true)) {
    if (el === tag || !labels.has(el.style && el.style.text)) continue;
    const r = box(el), size = el.style.fontSize || 12, y0 = r.y + r.height / 2 - size / 2, y1 = y0 + size;
    if (r.x + r.width <= t.x || y0 >= bottom || y1 <= top) continue; // neither under the tag nor the cover
    out.met++;
    if (y0 < top - 0.5 || y1 > bottom + 0.5) out.cut.push(el.style.text);
  }
  return out;
})()`

// tagCuts is what jsTagCuts reads: whether the tag is shown, whether the
// newest close is on the axis, how many price labels the tag meets, those
// of them that show past it, and the cover's fill beside the page's
// background.
type tagCuts struct {
	Shown    bool
	InView   bool
	Placed   bool
	Met      int
	Cut      []string
	Fill, Bg string
}

// TestTheLastPriceTagCutsNoLabel: where the last-price tag passes over the
// price axis, a label it meets is hidden whole, on a linear and a log
// scale, light and dark, and in a chart embed, over views from 60 % of the
// candles to the newest few, and over views that end before the newest
// candle, where the newest close lies anywhere on the axis, so that the
// labels fall everywhere about the tag. The tag's edge used to cut such a
// label in two, its top or bottom half showing.
//
// A market that has just made a high or a low keeps the tag at the axis'
// end in every view that shows it, where it may meet no label: another
// period of the contract is then tried, until one has views in which the
// tag meets a label.
func TestTheLastPriceTagCutsNoLabel(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		name, path    string // the path's period is added
		width, height int64
	}{
		{"linear, light", "/?contract_code=BTC-USDT&theme=light", 1280, 800},
		{"log scale, dark", "/?contract_code=ETH-USDT&scale=log&theme=dark", 1280, 700},
		{"a chart embed", "/embed/chart?contract_code=SOL-USDT", 640, 480},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(tc.width, tc.height, 1, false)); err != nil {
				t.Fatal(err)
			}
			met := 0
			for _, period := range []string{"15min", "4hour", "1day", "5min", "1hour", "30min"} {
				path := tc.path + "&period=" + period
				if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+path)); err != nil {
					t.Fatal(err)
				}
				waitDrawn(t, ctx, drawnAt(path))
				if met += tagOverViews(t, ctx, period); met > 0 {
					break
				}
			}
			if met == 0 {
				t.Error("the tag met no label in any view of any period: the test tested nothing")
			}
		})
	}
}

// tagOverViews zooms the chart in ctx through its views, checks the tag in
// each, and returns how many price labels it met in all.
func tagOverViews(t *testing.T, ctx context.Context, period string) (met int) {
	t.Helper()
	var views [][2]int // start and end, % of the candles
	for start := 40; start <= 97; start += 3 {
		views = append(views, [2]int{start, 100})
	}
	for _, end := range []int{90, 75, 60} {
		for start := end - 45; start <= end-9; start += 6 {
			views = append(views, [2]int{start, end})
		}
	}
	for _, v := range views {
		start, end := v[0], v[1]
		zoom := fmt.Sprintf(`%s.dispatchAction({type: "dataZoom", start: %d, end: %d})`, jsChart, start, end)
		if err := chromedp.Run(ctx, chromedp.Evaluate(zoom, nil)); err != nil {
			t.Fatal(err)
		}
		// ECharts lays the view out at once; the app places the tag for it
		// in a task of its own.
		inView := end == 100 || evalJS[tagCuts](t, ctx, jsTagCuts).InView
		tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		chromedp.Run(tctx, chromedp.Poll(fmt.Sprintf(`((r) => r.shown === %v && (!r.shown || r.placed))(`+jsTagCuts+`)`, inView), nil, chromedp.WithPollingInterval(20*time.Millisecond))) // the check below says if it never is
		cancel()
		r := evalJS[tagCuts](t, ctx, jsTagCuts)
		switch {
		case !inView && r.Shown:
			t.Errorf("%s, view of %d–%d %%: the last-price tag is shown though the newest close is off the axis", period, start, end)
		case !inView:
		case !r.Shown || !r.Placed:
			t.Errorf("%s, view of %d–%d %%: the last-price tag is not shown at its price", period, start, end)
		case len(r.Cut) > 0:
			t.Errorf("%s, view of %d–%d %%: the last-price tag cuts the labels %q: part of each shows past it", period, start, end, r.Cut)
		case r.Fill != "" && r.Fill != r.Bg:
			t.Errorf("%s, view of %d–%d %%: the labels under the tag are hidden by %s, on a page of %s", period, start, end, r.Fill, r.Bg)
		}
		met += r.Met
	}
	return met
}
