package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones TestAChartInADaylightSavingZoneNamesEachCandleInItsOwnDatesOffset draws in, on a machine without them

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// The first paint (web/chart-boot.js) draws the prerendered chart before
// app.wasm runs; the app then adopts it. What it draws must be what the app
// draws: the same labels, prices and volumes, element by element.

// jsChartArrays is the chart's labels, prices, rising and falling volumes.
const jsChartArrays = `(() => {
  const o = echarts.getInstanceByDom(document.getElementById("chart")).getOption();
  return JSON.stringify([o.xAxis[0].data, o.series[0].data, o.series[1].data, o.series[2].data]);
})()`

// chartArrays reads the chart's arrays as plain values (numbers as float64,
// which is what ECharts holds).
func chartArrays(t *testing.T, ctx context.Context) [4][]any {
	t.Helper()
	var out [4][]any
	if err := json.Unmarshal([]byte(evalJS[string](t, ctx, jsChartArrays)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// appArrays is what chartopt.Data makes of candles, as plain values.
func appArrays(t *testing.T, candles []venueapi.Candle, p venueapi.Period, loc *time.Location) [4][]any {
	t.Helper()
	a := chartopt.Data(candles, p, loc)
	var out [4][]any
	for i, b := range [][]byte{a.Labels, a.Prices, a.Ups, a.Downs} {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// sameButLatest compares two draws of the same series but for the newest
// candle, which the venue may have moved between the two answers
// (drawsDiffer).
func sameButLatest(t *testing.T, what string, got, want [4][]any) {
	t.Helper()
	if diff := drawsDiffer(got, want); diff != "" {
		t.Fatalf("%s: %s", what, diff)
	}
}

// drawsDiffer says how got differs from want, two draws of the same series,
// or returns "". The newest candle may have moved between the two answers.
// A period may also have begun between them (a test's run crosses a
// five-minute boundary now and then): the later answer then starts a candle
// later, and the app's chart, which the live stream feeds, may hold the new
// candle as well. So the draws are lined up by their first labels and
// compared where they overlap, less the candles that were the newest of
// either. got may hold one candle more than want (the live one), never fewer,
// and no candle twice.
func drawsDiffer(got, want [4][]any) string {
	names := []string{"labels", "prices", "rising volumes", "falling volumes"}
	for i := range got {
		if len(got[i]) != len(got[0]) || len(want[i]) != len(want[0]) {
			return fmt.Sprintf("%s hold %d elements against %d labels (want %d against %d)", names[i], len(got[i]), len(got[0]), len(want[i]), len(want[0]))
		}
	}
	if n, m := len(got[0]), len(want[0]); n == 0 || n != m && n != m+1 {
		return fmt.Sprintf("%d candles, want %d (or one more, opened since)", n, m)
	}
	for j := 1; j < len(got[0]); j++ {
		if reflect.DeepEqual(got[0][j], got[0][j-1]) {
			return fmt.Sprintf("labels[%d] = labels[%d] = %v: a candle drawn twice", j-1, j, got[0][j])
		}
	}
	// The shift of want's first candle in got (negative: of got's in want).
	shift, found := 0, false
	for _, d := range []int{0, 1, -1, 2, -2} {
		g, w := max(d, 0), max(-d, 0)
		if g < len(got[0]) && w < len(want[0]) && reflect.DeepEqual(got[0][g], want[0][w]) {
			shift, found = d, true
			break
		}
	}
	if !found {
		return fmt.Sprintf("first label %v, want %v (or one of the two after it)", got[0][0], want[0][0])
	}
	g, w := max(shift, 0), max(-shift, 0)
	n := min(len(got[0])-g, len(want[0])-w)
	compared := n - 1 // the newest candle may have moved
	if shift != 0 || len(got[0]) != len(want[0]) {
		compared = n - 2 // and the one before it closed in between
	}
	for i := range got {
		for j := 0; j < compared; j++ {
			if !reflect.DeepEqual(got[i][g+j], want[i][w+j]) {
				return fmt.Sprintf("%s[%d] = %v, want %v", names[i], g+j, got[i][g+j], want[i][w+j])
			}
		}
	}
	return ""
}

// testDraw is n candles from the one numbered from, as chartArrays reads
// them: a label, the prices, a rising volume and no falling one.
func testDraw(from, n int) [4][]any {
	var d [4][]any
	for id := from; id < from+n; id++ {
		x := float64(id)
		d[0] = append(d[0], fmt.Sprintf("t%d", id))
		d[1] = append(d[1], []any{x, x + 1, x - 1, x + 2})
		d[2] = append(d[2], 10*x)
		d[3] = append(d[3], "-")
	}
	return d
}

// A draw read from the page and the answer fetched after it line up across
// a period's start, and a candle dropped or changed is still told.
func TestDrawsDiffer(t *testing.T) {
	moved := func(d [4][]any, j int) [4][]any {
		d[1] = append([]any(nil), d[1]...)
		d[1][j] = []any{-1.0, -1.0, -1.0, -1.0}
		return d
	}
	for _, c := range []struct {
		name      string
		got, want [4][]any
		diff      string // "": none; else what the message starts with
	}{
		{"the same", testDraw(0, 10), testDraw(0, 10), ""},
		{"the newest candle moved", testDraw(0, 10), moved(testDraw(0, 10), 9), ""},
		{"an older candle changed", moved(testDraw(0, 10), 3), testDraw(0, 10), "prices[3]"},
		{"a period began before want was fetched", testDraw(0, 10), testDraw(1, 10), ""},
		{"a period began before got was drawn", testDraw(1, 10), testDraw(0, 10), ""},
		{"the live candle opened in got", testDraw(0, 11), testDraw(0, 10), ""},
		{"the live candle, and want fetched after it", testDraw(0, 11), testDraw(1, 10), ""},
		{"the newest and the one that closed moved, a period later", moved(moved(testDraw(0, 10), 9), 8), testDraw(1, 10), ""},
		{"a candle changed, a period later", moved(testDraw(0, 10), 4), testDraw(1, 10), "prices[4]"},
		{"the newest candle dropped", testDraw(0, 9), testDraw(0, 10), "9 candles, want 10"},
		{"the oldest candle dropped", testDraw(1, 9), testDraw(0, 10), "9 candles, want 10"},
		{"two candles more", testDraw(0, 12), testDraw(0, 10), "12 candles, want 10"},
		{"another stretch of time", testDraw(5, 10), testDraw(0, 10), "first label t5"},
		{"nothing drawn", [4][]any{}, testDraw(0, 10), "0 candles"},
		{"the newest candle drawn twice", func() [4][]any {
			d := testDraw(0, 10)
			for i := range d {
				d[i] = append(d[i], d[i][9])
			}
			return d
		}(), testDraw(0, 10), "labels[9] = labels[10]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := drawsDiffer(c.got, c.want)
			if c.diff == "" && got != "" || c.diff != "" && !strings.HasPrefix(got, c.diff) {
				t.Errorf("drawsDiffer: %q, want %q", got, c.diff)
			}
		})
	}
}

func TestChartFirstPaint(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)

	for _, tc := range []struct {
		query string
		loc   *time.Location
	}{
		{"contract_code=ETH-USDT&period=1day&tz=utc", time.UTC},
		{"contract_code=BTC-USDT&period=15min&tz=local", time.Local},
		{"contract_code=BTC-USDT-CQ&period=1mon&tz=utc", time.UTC},
	} {
		t.Run("without the app, the page draws "+tc.query+" as the app would", func(t *testing.T) {
			// ?wasm=false: go-app's loader leaves app.wasm alone, so the first paint is all there is.
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?"+tc.query+"&wasm=false")); err != nil {
				t.Fatal(err)
			}
			tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if err := chromedp.Run(tctx, chromedp.Poll(`!!(window.riskchartBoot && riskchartBoot.drawn)`, nil)); err != nil {
				t.Fatalf("no first paint: %v", err)
			}
			v, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			p := venueapi.Period(v.Get("period"))
			want := appArrays(t, apiCandles(t, s.URL, "contract_code="+v.Get("contract_code")+"&period="+string(p)+"&size=300"), p, tc.loc)
			sameButLatest(t, "first paint", chartArrays(t, ctx), want)
			// The latest candles in view, as many as the page's configuration says
			// (the app's own first window, app/components/kchart.go's shownFirst).
			window := evalJS[string](t, ctx, `(() => {
  const shown = JSON.parse(document.getElementById("chart-boot").textContent).shown;
  return JSON.stringify({shown, zoom: riskchartBoot.chart.getOption().dataZoom.map((z) => [z.startValue, z.endValue])});
})()`)
			n := len(want[0])
			if wantWindow := fmt.Sprintf(`{"shown":120,"zoom":[[%d,%d],[%d,%d]]}`, max(0, n-120), n-1, max(0, n-120), n-1); window != wantWindow {
				t.Errorf("first paint's window %s, want %s", window, wantWindow)
			}
			if evalJS[bool](t, ctx, `!!document.querySelector(".kchart[data-drawn]:not([data-drawn=''])")`) {
				t.Error("the page claims the app drew without the app")
			}
		})
	}

	t.Run("the app adopts the first paint and draws the same candles into it", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=ETH-USDT&period=5min&tz=utc&theme=dark")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "ETH-USDT|5min")
		if !evalJS[bool](t, ctx, `riskchartBoot.adopted && document.getElementById("chart") === riskchartBoot.el && riskchartBoot.dark`) {
			t.Fatalf("the app drew a chart of its own instead of adopting the dark first paint: %s",
				evalJS[string](t, ctx, `JSON.stringify({adopted: riskchartBoot.adopted, contract: riskchartBoot.contract, period: riskchartBoot.period, dark: riskchartBoot.dark})`))
		}
		want := appArrays(t, apiCandles(t, s.URL, "contract_code=ETH-USDT&period=5min&size=300"), venueapi.Period5Min, time.UTC)
		sameButLatest(t, "adopted chart", chartArrays(t, ctx), want)
		if n := evalJS[int](t, ctx, `document.querySelectorAll("#chart").length`); n != 1 {
			t.Errorf("%d chart elements on the page", n)
		}
		// app.js starts app.wasm's download once, on the first paint or after
		// 1.5 s, whichever comes first: not on both. (Here the paint had
		// settled before app.js ran; the wait is played again, unsettled.)
		starts := evalAwait[int](t, ctx, `(async () => {
  const boot = window.riskchartBoot;
  window.riskchartBoot = {settled: false};
  let n = 0;
  const started = riskchartAfterFirstPaint(() => ++n);
  window.dispatchEvent(new Event("riskchart:first-paint"));
  await started;
  await new Promise((r) => setTimeout(r, 1700));
  window.riskchartBoot = boot;
  return n;
})()`)
		if starts != 1 {
			t.Errorf("app.js started app.wasm's download %d times", starts)
		}
		screenshot(t, ctx, "chart-first-paint-adopted")
	})
}

// jsAnswerRead holds once the head's script (web/chart-answer.js) has read
// the preloaded KLine answer's text, as chart-boot.js takes it.
const jsAnswerRead = `(() => {
  const a = window.riskchartAnswer;
  if (!a) return false;
  a.read.then((text) => { window.answerReadBytes = text.length; });
  return window.answerReadBytes > 0;
})()`

// TestChartFirstPaintReadsTheAnswerEarly holds back, in turn, ECharts and
// the KLine answer (the DevTools Fetch domain pauses the response), so that
// each lands last for certain. The head's script (web/chart-answer.js)
// starts reading the preloaded answer: when it is in before ECharts has run,
// the first paint sketches the candles at the end of its script's task,
// before the parser goes on (so before DOMContentLoaded), and ECharts draws
// them once it has run; when it lands after the page is parsed, the first
// paint waits for it. Both draw the candles the app would. Each held response is
// let through once the other event has surely happened (the answer read,
// the parsing done), not after a fixed time, which a loaded host outran.
// In the first case the first paint's own script is held with ECharts: the
// answer races the parser to it, and on a loaded host the parser could reach
// it first (then the sketch rightly waits for the answer, after the parsing).
func TestChartFirstPaintReadsTheAnswerEarly(t *testing.T) {
	s := startServer(t, nil)
	const query = "contract_code=ETH-USDT&period=4hour&tz=utc"
	want := appArrays(t, apiCandles(t, s.URL, "contract_code=ETH-USDT&period=4hour&size=300"), venueapi.Period4Hour, time.UTC)
	for _, tc := range []struct {
		name      string
		held      []string // the responses held back, as Fetch URL patterns
		until     string   // what lets them through: a condition in the page
		beforeDCL bool
	}{
		{"the answer is in before ECharts has run: sketched before the parser goes on",
			[]string{"*/web/echarts.min.js", "*/web/chart-boot.js"}, jsAnswerRead, true},
		{"the answer lands after the page is parsed: sketched and drawn when it lands",
			[]string{"*/sapi/v1/market/history/kline?*"},
			`performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd > 0`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t) // a browser of its own: no service worker answers before the network
			patterns := make([]*fetch.RequestPattern, len(tc.held))
			for i, p := range tc.held {
				patterns[i] = &fetch.RequestPattern{URLPattern: p, RequestStage: fetch.RequestStageResponse}
			}
			held, hold := holdEach(ctx, patterns...)
			for i := range held {
				whenHeld(ctx, held[i], func(id fetch.RequestID) {
					// The condition, then a moment for the page to take what came.
					if err := chromedp.Run(ctx, chromedp.Poll(tc.until, nil, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil && ctx.Err() == nil {
						t.Logf("waiting for %s: %v", tc.until, err)
					}
					time.Sleep(100 * time.Millisecond)
					if err := chromedp.Run(ctx, fetch.ContinueRequest(id)); err != nil && ctx.Err() == nil {
						t.Logf("letting %s through: %v", tc.held[i], err)
					}
				})
			}
			// ?wasm=false: the first paint alone, without the app adopting it.
			if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+"/?"+query+"&wasm=false")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.settled)`)
			got := evalJS[string](t, ctx, `JSON.stringify({
  early: !!window.riskchartAnswer && riskchartAnswer.href,
  drawn: riskchartBoot.drawn,
  beforeDCL: performance.getEntriesByName("riskchart:sketched")[0].startTime < performance.getEntriesByType("navigation")[0].domContentLoadedEventStart,
})`)
			wantState := fmt.Sprintf(`{"early":"/sapi/v1/market/history/kline?contract_code=ETH-USDT&period=4hour&size=300","drawn":true,"beforeDCL":%t}`, tc.beforeDCL)
			if got != wantState {
				t.Errorf("first paint %s, want %s", got, wantState)
			}
			sameButLatest(t, "first paint", chartArrays(t, ctx), want)
		})
	}
}

// TestTheAnswerIsReadBeforeTheStylesheets holds back the chart page's
// stylesheets, which every script file of the head waits for: the head's
// inline script (web/chart-answer.js, written in by the server and allowed
// by its hash in the Content-Security-Policy) must have read the whole
// preloaded answer meanwhile. As a script file after the stylesheets, it
// started only once they had come, and on a next visit the answer's text
// was at times ready only after the page's first layout and paint
// (docs/startup.md, "The answer read from the head"). A hash that did
// not match would block the script: no answer read, and a violation
// reported.
func TestTheAnswerIsReadBeforeTheStylesheets(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	held, hold := holdResponses(ctx, "*.css")
	read := make(chan bool, 8)
	whenHeld(ctx, held, func(id fetch.RequestID) {
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := chromedp.Run(tctx, chromedp.Poll(jsAnswerRead, nil, chromedp.WithPollingInterval(20*time.Millisecond)))
		cancel()
		read <- err == nil
		if err := chromedp.Run(ctx, fetch.ContinueRequest(id)); err != nil && ctx.Err() == nil {
			t.Logf("letting a stylesheet through: %v", err)
		}
	})
	violations := onEveryDocument(`window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline")));`)
	if err := chromedp.Run(ctx, violations, hold, chromedp.Navigate(s.URL+"/?contract_code=ETH-USDT&period=5min&wasm=false")); err != nil {
		t.Fatal(err)
	}
	select {
	case ok := <-read:
		if !ok {
			t.Fatal("the KLine answer was not read while the stylesheets were held back")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the page asked for no stylesheet")
	}
	waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.settled)`)
	got := evalJS[string](t, ctx, `JSON.stringify({
  early: riskchartAnswer.href,
  drawn: riskchartBoot.drawn,
  inline: [...document.head.querySelectorAll("script:not([src])")].some((s) => s.textContent.includes("riskchartAnswer")),
  files: [...document.querySelectorAll("script[src]")].filter((s) => s.src.includes("chart-answer")).length,
  violations: window.cspViolations,
})`)
	const want = `{"early":"/sapi/v1/market/history/kline?contract_code=ETH-USDT&period=5min&size=300","drawn":true,"inline":true,"files":0,"violations":[]}`
	if got != want {
		t.Errorf("the page's answer %s, want %s", got, want)
	}
	res, err := http.Get(s.URL + "/web/chart-answer.js")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /web/chart-answer.js: HTTP %d, want 404: the script is the page's, inline", res.StatusCode)
	}
}

// TestChartFirstPaintIsInViewBeforeTheApp holds back app.wasm (the DevTools
// Fetch domain pauses its request) and looks at the page as a person meets
// it before the app runs: the first paint must be what they see, and
// go-app's loader a note in a corner that takes no clicks, not a screen
// over the chart (it was one, fixed and full-size, until the app removed
// it: the chart drawn before app.wasm was hidden all the while). Then it
// lets app.wasm through: the app's draw, its legend and the candles the
// pointer goes over must not move the chart, on a wide screen or a phone
// (the legend, in the page's flow, was one line before the app and two to
// six with it, and pushed the chart down as much).
func TestChartFirstPaintIsInViewBeforeTheApp(t *testing.T) {
	s := startServer(t, nil)
	for _, screen := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"wide", 1280, 800, false}, {"phone", 390, 800, true}} {
		t.Run(screen.name, func(t *testing.T) {
			ctx, held := openHoldingAppWasm(t, s.URL+"/?contract_code=ETH-USDT&period=5min",
				emulation.SetDeviceMetricsOverride(screen.width, screen.height, 1, screen.mobile))
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			got := evalJS[string](t, ctx, `(() => {
  const r = document.getElementById("chart").getBoundingClientRect();
  const left = Math.max(0, r.left), top = Math.max(0, r.top); // the part of the chart in the window
  const chart = {left, top, width: Math.min(innerWidth, r.right) - left, height: Math.min(innerHeight, r.bottom) - top};
  const seen = (x, y) => { const e = document.elementFromPoint(x, y); return chart.width > 200 && chart.height > 200 && !!e && !!e.closest("#chart"); };
  const loader = document.getElementById("app-wasm-loader");
  const box = loader ? loader.getBoundingClientRect() : null;
  return JSON.stringify({
    appRunning: performance.getEntriesByName("riskchart:app-drawn").length > 0,
    chartSeen: [[0.5, 0.5], [0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.9, 0.9]].every(([fx, fy]) => seen(chart.left + fx * chart.width, chart.top + fy * chart.height)),
    loaderShown: !!loader && box.width > 0 && box.height > 0 && getComputedStyle(loader).visibility !== "hidden",
    loaderSmall: !!loader && box.width * box.height < 0.05 * innerWidth * innerHeight,
    loaderClickable: !!loader && getComputedStyle(loader).pointerEvents !== "none",
    loaderSays: loader ? loader.innerText.trim() : "",
  });
})()`)
			const want = `{"appRunning":false,"chartSeen":true,"loaderShown":true,"loaderSmall":true,"loaderClickable":false,"loaderSays":"Starting Riskchart…"}`
			if got != want {
				t.Errorf("before app.wasm runs, the page shows %s, want %s", got, want)
			}
			screenshot(t, ctx, "chart-first-paint-before-app-"+screen.name)

			before := evalJS[string](t, ctx, jsChartBox)
			letAppWasmThrough(t, ctx, held)
			waitDrawn(t, ctx, "ETH-USDT|5min")
			waitFor(t, ctx, `!!document.querySelector("#legend .legend-item")`)
			if after := evalJS[string](t, ctx, jsChartBox); after != before {
				t.Errorf("the app's draw moved the chart from %s to %s", before, after)
			}
			// The pointer goes over candles across the chart: the legend shows
			// each, and the chart stays where it is.
			y := evalJS[float64](t, ctx, `(() => { const r = document.getElementById("chart").getBoundingClientRect(); return r.top + r.height * 0.35; })()`)
			for _, fx := range []float64{0.15, 0.4, 0.65, 0.85} {
				x := float64(screen.width) * fx * 0.7
				if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, x, y)); err != nil {
					t.Fatal(err)
				}
				waitFor(t, ctx, `document.getElementById("legend").dataset.hover === "true"`)
				if after := evalJS[string](t, ctx, jsChartBox); after != before {
					t.Errorf("pointing at a candle at %.0f,%.0f moved the chart from %s to %s", x, y, before, after)
				}
			}
			screenshot(t, ctx, "chart-legend-over-chart-"+screen.name)
		})
	}
}

// jsPriceDrawing is how the chart draws its prices: the price series' type
// and drawing function (which of the page's ECharts build's, whose names
// the build minifies, made it), the rising bodies' fill, the price axis' type and
// labels, the price grid, and the shapes ECharts drew for the series in
// view, counted by kind.
const jsPriceDrawing = `(() => {
  const c = ` + jsChart + `, o = c.getOption(), m = c.getModel(), s = o.series[0], draw = m.getSeriesByIndex(0).get("renderItem");
  const shapes = {};
  c.getViewOfSeriesModel(m.getSeriesByIndex(0)).group.traverse((el) => { if (!el.isGroup) shapes[el.type] = (shapes[el.type] || 0) + 1; });
  const g = m.getComponent("grid", 0).coordinateSystem.getRect();
  return JSON.stringify({type: s.type, draw: draw ? ["ohlcBars", "closeLine"].find((f) => echarts[f]().toString() === draw.toString()) || "another" : "", fill: (s.itemStyle && s.itemStyle.color) || "",
    axis: o.yAxis[0].type || "value", labels: m.getComponent("yAxis", 0).axis.getViewLabels().map((l) => l.formattedLabel),
    grid: [g.x, g.y, g.width, g.height].map(Math.round), shapes});
})()`

// priceDrawing is what jsPriceDrawing reads.
type priceDrawing struct {
	Type, Draw, Fill, Axis string
	Labels                 []string
	Grid                   []int
	Shapes                 map[string]int
}

// TestTheFirstPaintDrawsTheViewsStyleAndScale holds app.wasm back on views
// that name a chart style or a price scale, and compares what the first
// paint drew with what the app draws once it runs: the price series, its
// drawing, the price axis and its labels, the grid and the shapes drawn.
// Before, the first paint drew linear candles for every view, and the app
// then turned them into OHLC bars or a line, or moved them onto a log axis.
func TestTheFirstPaintDrawsTheViewsStyleAndScale(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		query  string
		want   priceDrawing // Type, Draw, Fill and Axis; a label's suffix in Labels[0]
		shapes string       // the kind of shape the series draws
	}{
		{"style=hollow", priceDrawing{Type: "candlestick", Fill: "transparent", Axis: "value"}, ""},
		{"style=ohlc", priceDrawing{Type: "custom", Draw: "ohlcBars", Axis: "value"}, "line"},
		{"style=line", priceDrawing{Type: "custom", Draw: "closeLine", Axis: "value"}, "polyline"},
		{"style=area&theme=dark", priceDrawing{Type: "custom", Draw: "closeLine", Axis: "value"}, "polygon"},
		{"scale=log", priceDrawing{Type: "candlestick", Axis: "log"}, ""},
		// Two years of months: the axis crosses 100,000, where the labels'
		// step changes with the decade.
		{"scale=log&period=1mon", priceDrawing{Type: "candlestick", Axis: "log"}, ""},
		{"scale=log&style=line&theme=dark", priceDrawing{Type: "custom", Draw: "closeLine", Axis: "log"}, "polyline"},
		{"scale=percent", priceDrawing{Type: "candlestick", Axis: "value", Labels: []string{"%"}}, ""},
		// The log axis' labels in the price grid under the legend of studies
		// the first paint measured (docs/performance.md, "What the first paint
		// promises").
		{"scale=log&style=ohlc&indicators=ma:7,rsi", priceDrawing{Type: "custom", Draw: "ohlcBars", Axis: "log"}, "line"},
		// A chart embed, in its compact layout (320 × 240).
		{"embed&scale=percent&style=line", priceDrawing{Type: "custom", Draw: "closeLine", Axis: "value", Labels: []string{"%"}}, "polyline"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			path, query, period := "/", tc.query, "1min"
			if v, err := url.ParseQuery(query); err == nil && v.Has("period") {
				period = v.Get("period")
			} else {
				query += "&period=" + period
			}
			width, height := int64(1280), int64(800)
			if q, ok := strings.CutPrefix(query, "embed&"); ok {
				path, query, width, height = "/embed/chart", q, 320, 240
			}
			// The live stream is held back too: a trade between the two reads
			// moved a close, and with it the axis of a line (its closes alone).
			ctx, held := openStillHoldingAppWasm(t, s.URL+path+"?contract_code=BTC-USDT&"+query,
				emulation.SetDeviceMetricsOverride(width, height, 1, width < 640))
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			var first priceDrawing
			if err := json.Unmarshal([]byte(evalJS[string](t, ctx, jsPriceDrawing)), &first); err != nil {
				t.Fatal(err)
			}
			letAppWasmThrough(t, ctx, held)
			waitDrawn(t, ctx, "BTC-USDT|"+period)
			var app priceDrawing
			if err := json.Unmarshal([]byte(evalJS[string](t, ctx, jsPriceDrawing)), &app); err != nil {
				t.Fatal(err)
			}
			for who, d := range map[string]priceDrawing{"the first paint": first, "the app": app} {
				if d.Type != tc.want.Type || d.Draw != tc.want.Draw || d.Axis != tc.want.Axis || (tc.want.Fill != "" && d.Fill != tc.want.Fill) {
					t.Errorf("%s draws a %s series (drawing %q, fill %q) on a %s axis; want %s (%q, %q) on a %s axis",
						who, d.Type, d.Draw, d.Fill, d.Axis, tc.want.Type, tc.want.Draw, tc.want.Fill, tc.want.Axis)
				}
				if tc.shapes != "" && d.Shapes[tc.shapes] == 0 {
					t.Errorf("%s drew no %s: %v", who, tc.shapes, d.Shapes)
				}
				if len(tc.want.Labels) > 0 && (len(d.Labels) == 0 || !strings.HasSuffix(d.Labels[0], tc.want.Labels[0])) {
					t.Errorf("%s labels the price axis %q, want labels ending in %q", who, d.Labels, tc.want.Labels[0])
				}
			}
			if !reflect.DeepEqual(first, app) {
				t.Errorf("the first paint drew\n%+v\nthe app\n%+v", first, app)
			}
		})
	}
}

// TestAChartInADaylightSavingZoneNamesEachCandleInItsOwnDatesOffset: in
// WebAssembly Go's time.Local is the browser's offset at start-up for every
// date, so the app named the candles from before the last change of
// daylight saving time an hour off, and its labels jumped by an hour as it
// adopted the first paint, which names each by its own date. Both must name
// them as the zone's rules do: a 4hour chart (fifty days of candles) in a
// zone whose last change falls in those days when one does (the time of
// year decides which), else in Berlin, where the labels are still checked.
func TestAChartInADaylightSavingZoneNamesEachCandleInItsOwnDatesOffset(t *testing.T) {
	s := startServer(t, nil)
	candles := apiCandles(t, s.URL, "contract_code=BTC-USDT&period=4hour&size=300")
	lo, hi := time.Unix(candles[0].ID, 0), time.Unix(candles[len(candles)-1].ID, 0)
	var zone *time.Location
	for _, name := range []string{"Europe/Berlin", "America/New_York", "Australia/Sydney", "America/Santiago", "Pacific/Auckland"} {
		loc, err := time.LoadLocation(name) // time/tzdata is linked into this test
		if err != nil {
			t.Fatal(err)
		}
		if zone == nil {
			zone = loc
		}
		if _, end := lo.In(loc).ZoneBounds(); !end.IsZero() && end.Before(hi) {
			zone = loc
			break
		}
	}
	t.Logf("in %s, candles from %s to %s", zone, lo.In(zone), hi.In(zone))
	want := appArrays(t, candles, venueapi.Period4Hour, zone)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, emulation.SetTimezoneOverride(zone.String())); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, query string }{
		{"the first paint", "&wasm=false"},
		{"the app", ""},
	} {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=4hour&tz=local"+tc.query)); err != nil {
			t.Fatal(err)
		}
		if tc.query == "" {
			waitDrawn(t, ctx, "BTC-USDT|4hour")
		} else {
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
		}
		sameButLatest(t, tc.name+" in "+zone.String(), chartArrays(t, ctx), want)
	}
}
