package e2e

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// jsStyle reads how the chart draws its prices (app/chartopt/styles.go,
// server/cmd/echartsbuild/styles.js): the price series' type, the shapes
// its drawing made, where the newest close falls, and where the drawing puts it:
// the close line's last point, or the close tick of the newest OHLC bar.
const jsStyle = `(() => {
  const c = ` + jsChart + `, s = c.getOption().series[0], n = s.data.length;
  const last = s.data[n - 1], v = Array.isArray(last) ? last : last.value;
  const list = c.getZr().storage.getDisplayList(true);
  const line = list.find((e) => e.name === "close-line");
  const bars = list.filter((e) => e.parent && e.parent.name === "ohlc-bar");
  const [x, y] = c.convertToPixel({gridIndex: 0}, [n - 1, v[1]]);
  let drawn = null;
  if (line) drawn = line.shape.points[line.shape.points.length - 1];
  const ticks = bars.filter((e) => e.shape.x2 > e.shape.x1 + 0.5 && e.shape.x1 > x - 1);
  if (ticks.length) drawn = [ticks[0].shape.x1, ticks[0].shape.y1];
  return {type: s.type, line: !!line, n, close: v[1], x, y, drawn,
    area: list.some((e) => e.name === "close-area"), bars: bars.length / 3,
    live: list.filter((e) => e.name && e.name.startsWith("live-") && !e.ignore).length,
    notice: (document.getElementById("view-notice") || {}).textContent || "", url: location.search};
})()`

type styleDrawn struct {
	Type   string    `json:"type"`
	Line   bool      `json:"line"`
	N      int       `json:"n"`
	Close  float64   `json:"close"`
	X      float64   `json:"x"`
	Y      float64   `json:"y"`
	Drawn  []float64 `json:"drawn"`
	Area   bool      `json:"area"`
	Bars   float64   `json:"bars"`
	Live   int       `json:"live"`
	Notice string    `json:"notice"`
	URL    string    `json:"url"`
}

// atClose reports whether the drawing puts the newest candle at its close.
func (d styleDrawn) atClose() bool {
	return len(d.Drawn) == 2 && math.Abs(d.Drawn[0]-d.X) < 1.5 && math.Abs(d.Drawn[1]-d.Y) < 1
}

func TestChartStylesDrawAndFollowTheLiveCandle(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	tests := []struct {
		style      string
		line, area bool
	}{
		{"ohlc", false, false},
		{"line", true, false},
		{"area", true, true},
	}
	for _, tt := range tests {
		t.Run("style="+tt.style+" draws and follows live updates", func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&style="+tt.style)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|1min")
			d := evalJS[styleDrawn](t, ctx, jsStyle)
			if d.Type != "custom" || d.Line != tt.line || d.Area != tt.area || d.Notice != "" || !strings.Contains(d.URL, "style="+tt.style) {
				t.Fatalf("style=%s drawn as %+v", tt.style, d)
			}
			if (tt.style == "ohlc") != (d.Bars >= 10) {
				t.Errorf("%v OHLC bars drawn", d.Bars)
			}
			if d.Live != 0 {
				t.Errorf("the live layer draws a candle over the %s style", tt.style)
			}
			if !d.atClose() {
				t.Errorf("the newest close %v is at %v,%v; the %s draws it at %v", d.Close, d.X, d.Y, tt.style, d.Drawn)
			}
			// The sandbox's trades move the newest candle (or begin the next):
			// the drawing follows.
			waitFor(t, ctx, fmt.Sprintf(`(() => { const d = %s; return d.n !== %d || d.close !== %s; })()`, jsStyle, d.N, strconv.FormatFloat(d.Close, 'f', -1, 64)))
			waitFor(t, ctx, `(() => { const d = `+jsStyle+`; return d.drawn && Math.abs(d.drawn[0] - d.x) < 1.5 && Math.abs(d.drawn[1] - d.y) < 1; })()`)
			after := evalJS[styleDrawn](t, ctx, jsStyle)
			if after.N == d.N && after.Close == d.Close {
				t.Errorf("no live change seen: %+v", after)
			}
			screenshot(t, ctx, "chart-style-"+tt.style)
		})
	}
	t.Run("the embed takes style=area", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/chart?contract_code=BTC-USDT&period=1min&style=area")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1min")
		if d := evalJS[styleDrawn](t, ctx, jsStyle); d.Type != "custom" || !d.Area || !d.atClose() {
			t.Errorf("embed area: %+v", d)
		}
	})
}
