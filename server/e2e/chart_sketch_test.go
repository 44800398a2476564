package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
)

// The chart page's first paint sketches the candles on a canvas before
// ECharts runs, on a view without a look or in a chart style or on a
// percent scale (web/chart-boot.js; the server runs ECharts as an async
// script on such a page: server/internal/bundle/sketch.go).
// docs/performance.md, "The candles sketched before ECharts".

// TestTheSketchComesBeforeECharts holds ECharts back: the page sketches the
// candles of its answer, in the frame's colours, with ECharts not yet run;
// let through, ECharts draws the chart in the sketch's place.
func TestTheSketchComesBeforeECharts(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t) // no service worker answers before the network
	hold, release := holdECharts(t, ctx)
	defer release()
	// ?wasm=false: the first paint alone. Not chromedp.Navigate, which waits
	// for the page's load event: the preload held back holds that too.
	if err := chromedp.Run(ctx, hold, navigateNoWait(s.URL+"/?contract_code=BTC-USDT&period=1min&wasm=false")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:sketched").length > 0`)
	if evalJS[bool](t, ctx, `!!window.echarts`) {
		t.Fatal("ECharts ran although it was held back: the page did not preload it for the sketch")
	}
	// The frame's rising and falling colours, on the whole canvas.
	var counts []int
	style := `JSON.parse(document.getElementById("chart-boot").textContent).frames[riskchartBoot.dark ? "dark" : "light"].series[0].itemStyle`
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`((s) => %s([s.color, s.color0], false))(%s)`, sketchColors, style), &counts)); err != nil {
		t.Fatal(err)
	}
	px := struct{ Rising, Falling int }{counts[0], counts[1]}
	// 120 candles, each a body and a volume bar of several pixels.
	if px.Rising < 500 || px.Falling < 500 {
		t.Errorf("the sketch has %d rising and %d falling pixels: no candles drawn", px.Rising, px.Falling)
	}
	if !evalJS[bool](t, ctx, `!riskchartBoot.drawn && !riskchartBoot.settled`) {
		t.Error("the first paint settled without ECharts")
	}
	screenshot(t, ctx, "chart-sketch")
	release()
	waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn && riskchartBoot.settled)`)
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#chart canvas.chart-sketch").length`); n != 0 {
		t.Errorf("%d sketches left under ECharts' chart", n)
	}
	if !evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:sketched")[0].startTime < performance.getEntriesByName("riskchart:drawn")[0].startTime`) {
		t.Error("the sketch was not marked before ECharts' draw")
	}
}

// TestTheSketchIsLaidOutAsEChartsDrawsIt lets ECharts draw after the sketch
// and holds the sketch's layout to ECharts' own: each grid's box, the price
// axis' range and the volume axis', where each candle in view stands, and
// which times the time axis names and where it writes them.
// A sketch laid out otherwise would move the candles when ECharts draws.
func TestTheSketchIsLaidOutAsEChartsDrawsIt(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	for _, tc := range []struct {
		name, path    string
		width, height int64
	}{
		{"BTC 1min, light", "/?contract_code=BTC-USDT&period=1min&theme=light", 1280, 800},
		{"ETH 1day, dark, UTC", "/?contract_code=ETH-USDT&period=1day&theme=dark&tz=utc", 1024, 700},
		{"a coin of many decimals", "/?contract_code=SHIB-USDT&period=15min", 1280, 800},
		{"a month's candles, few", "/?contract_code=BTC-USDT-CQ&period=1mon&tz=utc", 1280, 800},
		{"a phone", "/?contract_code=BTC-USDT&period=4hour", 390, 844},
		{"a compact embed", "/embed/chart?contract_code=SHIB-USDT&period=5min", 320, 240},
		{"an embed", "/embed/chart?contract_code=ETH-USDT&period=60min", 800, 450},
		{"a line", "/?contract_code=BTC-USDT&period=1min&style=line", 1280, 800},
		{"an area on a percent scale, dark", "/?contract_code=ETH-USDT&period=15min&style=area&scale=percent&theme=dark", 1280, 800},
		{"OHLC bars on a phone", "/?contract_code=SOL-USDT&period=5min&style=ohlc", 390, 844},
		{"hollow candles", "/?contract_code=BTC-USDT&period=60min&style=hollow", 1024, 700},
		{"a line in a compact embed", "/embed/chart?contract_code=XRP-USDT&period=1day&style=line", 320, 240},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sep := "?"
			if strings.Contains(tc.path, "?") {
				sep = "&"
			}
			if err := chromedp.Run(ctx,
				emulation.SetDeviceMetricsOverride(tc.width, tc.height, 1, false),
				chromedp.Navigate(s.URL+tc.path+sep+"wasm=false")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			if got := evalJS[string](t, ctx, sketchAgainstECharts); got != "" {
				t.Errorf("the sketch is laid out otherwise than ECharts draws: %s", got)
			}
		})
	}
}

// sketchAgainstECharts compares, once ECharts has drawn, how the sketch laid
// the chart out (riskchartBoot.sketch) with ECharts' own layout, and says
// what differs, or "".
const sketchAgainstECharts = `(() => {
  const sk = riskchartBoot.sketch, chart = riskchartBoot.chart, model = chart.getModel(), off = [];
  if (!sk) return "no sketch";
  const near = (a, b, what) => { if (!(Math.abs(a - b) < 0.01)) off.push(what + ": sketched " + a + ", drawn " + b); };
  [0, 1].forEach((k) => {
    const r = model.getComponent("grid", k).coordinateSystem.getRect();
    for (const side of ["x", "y", "width", "height"]) near(sk.grids[k][side], r[side], "grid " + k + " " + side);
  });
  const extent = (k) => model.getComponent("yAxis", k).axis.scale.getExtent();
  const [plo, phi] = extent(0);
  if (sk.price[0] !== plo || sk.price[1] !== phi) off.push("price axis: sketched " + sk.price + ", drawn " + [plo, phi]);
  if (sk.volume) {
    const [vlo, vhi] = extent(1);
    if (sk.volume[0] !== vlo || sk.volume[1] !== vhi) off.push("volume axis: sketched " + sk.volume + ", drawn " + [vlo, vhi]);
  }
  const g = sk.grids[0];
  for (let i = sk.start; i < sk.start + sk.count; i++) {
    near(g.x + (g.width / sk.count) * (i - sk.start + 0.5), chart.convertToPixel({ xAxisIndex: 0 }, i), "candle " + i + "'s x");
  }
  // The times ECharts writes (the elements of its time axis' labels left
  // shown), and each where ECharts writes it: centred on its candle, the
  // first candle's aligned to its left and the last's to its right (the
  // frame's alignMinLabel and alignMaxLabel), its top ECharts' label
  // margin under the volume grid.
  const times = chart.getOption().xAxis[1].data, v = sk.grids[1], written = [];
  chart.getViewOfComponentModel(model.getComponent("xAxis", 1)).group.traverse((el) => {
    const i = el.style && typeof el.style.text === "string" && !el.ignore ? times.indexOf(el.style.text) : -1;
    if (i >= 0) {
      const r = el.getBoundingRect().clone();
      r.applyTransform(el.getComputedTransform());
      written.push({ i, r });
    }
  });
  written.sort((a, b) => a.i - b.i);
  if (sk.timed.join() !== written.map((w) => w.i).join()) off.push("times written: sketched at " + sk.timed + ", drawn at " + written.map((w) => w.i));
  for (const { i, r } of written) {
    const x = g.x + (g.width / sk.count) * (i - sk.start + 0.5), half = r.width / 2;
    near(i === sk.start ? x + half : i === sk.start + sk.count - 1 ? x - half : x, r.x + half, "time " + times[i] + "'s x");
    near(v.y + v.height + 8, r.y, "time " + times[i] + "'s top");
  }
  return off.length ? off.slice(0, 6).join("; ") : "";
})()`

// TestTheSketchWritesTheEndsTimesAsEChartsDoes rewrites the page's KLine
// answer so that the first candle in view and the last begin a round half
// hour, which the time axis names then: ECharts aligns the first's time to
// its left and the last's to its right, and leaves out an end's time that
// overlaps the one beside it. The sketch must write the same times, where
// ECharts writes them; at other times of day the axis seldom names an end.
func TestTheSketchWritesTheEndsTimesAsEChartsDoes(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		name  string
		round []int  // the candles that begin a half hour, from the first in view (index 180 of 300)
		ends  string // the first and the last candle whose time is written
	}{
		{"both ends named", []int{180, 210, 240, 270, 299}, "180,299"},
		{"the last too near the one before it", []int{180, 210, 240, 270, 292, 299}, "180,292"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			held, hold := holdResponses(ctx, "*/sapi/v1/market/history/kline?*")
			whenHeld(ctx, held, func(id fetch.RequestID) {
				err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
					body, err := fetch.GetResponseBody(id).Do(ctx)
					if err != nil {
						return err
					}
					rounded, err := roundAt(body, tc.round)
					if err != nil {
						return err
					}
					return answerJSON(id, rounded).Do(ctx)
				}))
				if err != nil && ctx.Err() == nil {
					t.Errorf("rewriting the answer: %v", err)
				}
			})
			if err := chromedp.Run(ctx, hold, emulation.SetDeviceMetricsOverride(1280, 800, 1, false),
				chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc&wasm=false")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			if got := evalJS[string](t, ctx, sketchAgainstECharts); got != "" {
				t.Errorf("the sketch is laid out otherwise than ECharts draws: %s", got)
			}
			ends := evalJS[string](t, ctx, `(() => { const t = riskchartBoot.sketch.timed; return [t[0], t[t.length - 1]].join(); })()`)
			if ends != tc.ends {
				t.Errorf("the sketch's first and last times are at %s, want %s", ends, tc.ends)
			}
		})
	}
}

// roundAt is the KLine answer body with its candles' ids rewritten, a
// minute apart, so that those at the indexes round, and no other from
// round[0] on, begin a half hour (the 1min axis' step), in UTC: a jump of
// the minutes left to it before each.
func roundAt(body []byte, round []int) ([]byte, error) {
	var env map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return nil, err
	}
	data, _ := env["data"].([]any)
	if len(data) <= round[len(round)-1] {
		return nil, fmt.Errorf("%d candles, want more than %d", len(data), round[len(round)-1])
	}
	const half = 1800
	at := (time.Now().Unix()/half - 10) * half // a half hour begun ten before now
	ids := make([]int64, len(data))
	for i, r := 0, 0; i < len(data); i++ {
		switch {
		case i < round[0]:
			ids[i] = at - int64(round[0]-i)*60
		case r < len(round) && i == round[r]:
			if r > 0 {
				at += half
			}
			ids[i] = at
			r++
		default:
			ids[i] = ids[i-1] + 60
		}
	}
	for i, c := range data {
		c.(map[string]any)["id"] = json.Number(fmt.Sprint(ids[i]))
	}
	return json.Marshal(env)
}

// TestGoWaitsForEChartsPastTheFirstPaintsTimeLimit holds ECharts back for
// longer than go-app's loader waits for the first paint (1.5 s,
// web/loader-patch.js): on a page that sketches, ECharts runs only from
// chart-boot.js, and Go, which draws with it, must wait for it still. The
// app then draws its chart.
func TestGoWaitsForEChartsPastTheFirstPaintsTimeLimit(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	held, hold := holdResponses(ctx, "*/web/echarts.min.js")
	whenHeld(ctx, held, func(id fetch.RequestID) {
		select {
		case <-time.After(2500 * time.Millisecond):
		case <-ctx.Done():
			return
		}
		if err := chromedp.Run(ctx, fetch.ContinueRequest(id)); err != nil && ctx.Err() == nil {
			t.Logf("letting ECharts through: %v", err)
		}
	})
	consoleErrors := consoleLines(ctx, "error")
	if err := chromedp.Run(ctx, hold, navigateNoWait(s.URL+"/?contract_code=ETH-USDT&period=5min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	// ECharts came to the page 2.5 s after the server sent it, past the
	// loader's 1.5 s; Go started after it, and after the first paint's draw.
	if !evalJS[bool](t, ctx, `(() => {
  const main = performance.getEntriesByName("riskchart:main")[0], drawn = performance.getEntriesByName("riskchart:drawn")[0];
  return !!main && !!drawn && main.startTime >= 2500 && main.startTime > drawn.startTime;
})()`) {
		t.Errorf("Go did not wait for ECharts: %s", evalJS[string](t, ctx, `JSON.stringify(performance.getEntriesByType("mark").map((m) => m.name + "@" + Math.round(m.startTime)))`))
	}
	if lines := consoleErrors(); len(lines) != 0 {
		t.Errorf("console errors: %q", lines)
	}
}

// holdECharts holds ECharts' file back in the tab, from hold on, until
// release, which may be called more than once.
func holdECharts(t *testing.T, ctx context.Context) (hold chromedp.Action, release func()) {
	held, hold := holdResponses(ctx, "*/web/echarts.min.js")
	let := make(chan struct{})
	whenHeld(ctx, held, func(id fetch.RequestID) {
		select {
		case <-let:
		case <-ctx.Done():
			return
		}
		if err := chromedp.Run(ctx, fetch.ContinueRequest(id)); err != nil && ctx.Err() == nil {
			t.Logf("letting ECharts through: %v", err)
		}
	})
	var once sync.Once
	return hold, func() { once.Do(func() { close(let) }) }
}

// navigateNoWait starts the tab's navigation to u and returns once the
// browser has taken it, not at the page's load event.
func navigateNoWait(u string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		_, _, errText, _, err := page.Navigate(u).Do(ctx)
		if err == nil && errText != "" {
			err = errors.New(errText)
		}
		return err
	})
}

// sketchColors counts the sketch canvas' pixels of each colour given (hex),
// on the whole canvas, or inside the price grid the sketch laid out.
const sketchColors = `((colors, inPrices) => {
  const canvas = document.querySelector("#chart canvas.chart-sketch");
  if (!canvas) throw new Error("no sketch canvas in #chart");
  const ratio = canvas.width / riskchartBoot.sketch.width, g = riskchartBoot.sketch.grids[0];
  const [x0, y0, w, h] = inPrices ? [Math.ceil(g.x * ratio), Math.ceil(g.y * ratio), Math.floor(g.width * ratio), Math.floor(g.height * ratio)] : [0, 0, canvas.width, canvas.height];
  const px = canvas.getContext("2d").getImageData(x0, y0, w, h).data;
  const rgb = colors.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
  const counts = colors.map(() => 0);
  for (let i = 0; i < px.length; i += 4) {
    const k = rgb.findIndex((c) => Math.abs(px[i] - c[0]) + Math.abs(px[i + 1] - c[1]) + Math.abs(px[i + 2] - c[2]) < 12 && px[i + 3] > 200);
    if (k >= 0) counts[k]++;
  }
  return counts;
})`

// TestTheSketchDrawsTheViewsStyle holds ECharts back on views in a chart
// style and on a percent scale, which the first paint sketches too
// (boot.Look.Sketched), and reads the price grid of the sketch: a line of
// the closes in the line's colour and no candles, OHLC bars in the rising
// and falling colours and no line, candles on a percent scale.
func TestTheSketchDrawsTheViewsStyle(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		name, query           string
		line, rise, fall, min int // which of the three colours are drawn (1) and which not (0), at least min pixels each
	}{
		{"a line", "style=line", 1, 0, 0, 200},
		{"an area", "style=area&theme=dark", 1, 0, 0, 200},
		{"OHLC bars", "style=ohlc", 0, 1, 1, 100},
		{"candles on a percent scale", "scale=percent", 0, 1, 1, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			hold, release := holdECharts(t, ctx)
			defer release()
			if err := chromedp.Run(ctx, hold, navigateNoWait(s.URL+"/?contract_code=BTC-USDT&period=1min&wasm=false&"+tc.query)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `performance.getEntriesByName("riskchart:sketched").length > 0`)
			if evalJS[bool](t, ctx, `!!window.echarts`) {
				t.Fatal("ECharts ran although it was held back")
			}
			dark := strings.Contains(tc.query, "theme=dark")
			rise, fall := chartopt.DefaultStyle(dark).Up, chartopt.DefaultStyle(dark).Down
			var counts []int
			js := fmt.Sprintf(`%s([%q, %q, %q], true)`, sketchColors, chartopt.LineColor, rise, fall)
			if err := chromedp.Run(ctx, chromedp.Evaluate(js, &counts)); err != nil {
				t.Fatal(err)
			}
			for i, want := range []int{tc.line, tc.rise, tc.fall} {
				name := []string{"the line's", "rising", "falling"}[i]
				if want == 1 && counts[i] < tc.min {
					t.Errorf("%d pixels in %s colour in the price grid, want at least %d", counts[i], name, tc.min)
				}
				if want == 0 && counts[i] != 0 {
					t.Errorf("%d pixels in %s colour in the price grid, want none", counts[i], name)
				}
			}
			screenshot(t, ctx, "chart-sketch-"+strings.NewReplacer("=", "-", "&", "-").Replace(tc.query))
		})
	}
}
