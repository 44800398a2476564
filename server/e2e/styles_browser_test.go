package e2e

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// jsOHLC reads a price series item as [open, close, low, high]: a candle's
// own, or a custom series' row [index, open, close, low, high] whose index
// must be where the row is (app/chartopt/styles.go).
const jsOHLC = `((d, i) => {
  const v = ` + jsItemValue + `(d);
  if (v.length === 4) return v;
  if (v.length !== 5 || v[0] !== i) throw new Error("row " + i + " of the price series is " + JSON.stringify(v));
  return v.slice(1);
})`

// jsStyle reads how the chart draws its prices (app/chartopt/styles.go,
// server/cmd/echartsbuild/styles.js): the price series' type, the shapes
// its drawing made, where the newest close falls, and where the drawing puts it:
// the close line's last point, or the close tick of the newest OHLC bar.
const jsStyle = `(() => {
  const c = ` + jsChart + `, s = c.getOption().series[0], n = s.data.length;
  const v = ` + jsOHLC + `(s.data[n - 1], n - 1);
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
			// the drawing follows. Both are read at once: a later trade may
			// bring the close back to where it was.
			waitFor(t, ctx, fmt.Sprintf(`(() => { const d = %s; return (d.n !== %d || d.close !== %s) && d.drawn && Math.abs(d.drawn[0] - d.x) < 1.5 && Math.abs(d.drawn[1] - d.y) < 1; })()`,
				jsStyle, d.N, strconv.FormatFloat(d.Close, 'f', -1, 64)))
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

// jsExtremes reads the marks of the view's high and low (app/echarts/extremes.go)
// and what the candles in view say they should be: their highest high and
// lowest low, or in a style that draws the closes alone (a line, an area) their
// highest and lowest close. Each candle is [open, close, low, high].
func jsExtremes(closes bool) string {
	return `(() => {
  const c = ` + jsChart + `, data = c.getOption().series[0].data, [first, last] = ` + jsInView + `, closes = ` + strconv.FormatBool(closes) + `;
  const shown = data.map(` + jsOHLC + `).slice(first, last + 1);
  const el = (name) => c.getZr().storage.getRoots().find((e) => e.name === name);
  const mark = (name) => { const e = el(name); return e && !e.ignore ? {text: e.style.text, y: e.y} : {text: "", y: -1}; };
  const hi = Math.max(...shown.map((d) => d[closes ? 1 : 3])), lo = Math.min(...shown.map((d) => d[closes ? 1 : 2]));
  const axis = c.getModel().getComponent("yAxis", 0).axis.scale.getExtent();
  return {first, last, hi, lo, axis, high: mark("view-high"), low: mark("view-low"),
    hiY: c.convertToPixel({gridIndex: 0}, [0, hi])[1], loY: c.convertToPixel({gridIndex: 0}, [0, lo])[1]};
})()`
}

type extremeMark struct {
	Text string  `json:"text"`
	Y    float64 `json:"y"`
}

type extremesDrawn struct {
	First, Last int
	Hi, Lo      float64
	Axis        [2]float64 // the price axis' extent
	High, Low   extremeMark
	HiY, LoY    float64
}

// markValue is the price a mark names: "← 99,518.3" or "99,518.3 →".
func markValue(text string) float64 {
	text = strings.Trim(text, "←→ ")
	v, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64)
	if err != nil || !strings.Contains(text, ",") {
		return math.NaN() // the marks group thousands as the axis does
	}
	return v
}

func TestTheViewsHighAndLowAreMarkedAfterAZoom(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// A line or an area marks its highest and lowest close: its price axis fits
	// the closes alone, so a wick's high may be off the grid.
	for _, style := range []string{"candles", "ohlc", "line", "area"} {
		closes := style == "line" || style == "area"
		t.Run("style="+style, func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&style="+style)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|1min")
			// Two views of older candles (the newest moves with live trades, and a
			// new minute appends one, so the view is waited for by the indices
			// asked for): the marks follow each zoom to its own high and low, and
			// the price axis to its range.
			for _, back := range []int{40, 150} {
				view := evalJS[[]int](t, ctx, fmt.Sprintf(`(() => { const c = %s, n = c.getOption().series[0].data.length;
  c.dispatchAction({type: "dataZoom", startValue: n - %d, endValue: n - %d}); return [n - %[2]d, n - %[3]d]; })()`, jsChart, back+30, back))
				waitFor(t, ctx, fmt.Sprintf(`(() => { const [f, l] = %s; return f === %d && l === %d; })()`, jsInView, view[0], view[1]))
				waitFor(t, ctx, `(() => { const e = `+jsExtremes(closes)+`; return e.high.text !== "" && Math.abs(e.high.y - e.hiY) < 1 && Math.abs(e.low.y - e.loY) < 1; })()`)
				e := evalJS[extremesDrawn](t, ctx, jsExtremes(closes))
				if markValue(e.High.Text) != e.Hi || markValue(e.Low.Text) != e.Lo {
					t.Errorf("view %d–%d: marks %q and %q, the candles in view span %v to %v", e.First, e.Last, e.High.Text, e.Low.Text, e.Lo, e.Hi)
				}
				// The price axis fits the candles in view, not all those held: what
				// they span fills most of it (rounded out to round prices).
				if span := e.Axis[1] - e.Axis[0]; e.Axis[0] > e.Lo || e.Axis[1] < e.Hi || e.Hi-e.Lo < 0.35*span {
					t.Errorf("view %d–%d spans %v to %v, on a price axis from %v to %v", e.First, e.Last, e.Lo, e.Hi, e.Axis[0], e.Axis[1])
				}
			}
		})
	}
}

func TestPercentScaleTagsThePrice(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&scale=percent")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	l := untilTagAgreesWithLegend(t, ctx, false)
	// The tag writes the percent under the price: beside it, the tag ran
	// past the canvas.
	tag, _ := l["tag"].(string)
	lines := strings.Split(tag, "\n")
	v, err := strconv.ParseFloat(strings.ReplaceAll(lines[0], ",", ""), 64)
	if len(lines) < 2 || err != nil || v != l["close"].(float64) || !regexp.MustCompile(`^[+-]?\d+\.\d\d%$`).MatchString(lines[1]) {
		t.Errorf("last-price tag %q on the percent scale, close %v: want the price, then its percent on a line of its own", tag, l["close"])
	}
	for _, lbl := range l["priceLabels"].([]any) {
		if !strings.HasSuffix(lbl.(string), "%") {
			t.Errorf("the axis still labels in percent: %q", lbl)
		}
	}
	// The crosshair's tag on the price axis names the price too.
	if got := evalJS[string](t, ctx, jsChart+`.getOption().yAxis[0].axisPointer.label.formatter({value: 98765.4})`); !strings.HasPrefix(got, "98,765.4 (") {
		t.Errorf("crosshair price tag %q", got)
	}
}
