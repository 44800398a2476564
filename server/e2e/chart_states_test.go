package e2e

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

// The chart's states against a sandbox venue the test can make fail, its
// history's start, its view under live updates, and its layout on a phone.

// jsView is the chart's zoom as [first, last] candle indexes and the count.
const jsView = `(() => { const o = ` + jsChart + `.getOption(); return [o.dataZoom[0].startValue, o.dataZoom[0].endValue, o.series[0].data.length]; })()`

func chartView(t *testing.T, ctx context.Context) (start, end, n int) {
	t.Helper()
	v := evalJS[[]int](t, ctx, jsView)
	return v[0], v[1], v[2]
}

func TestChartStates(t *testing.T) {
	venueURL, sb := sandboxtest.Start(t, sandbox.Config{})
	s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": venueURL})
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")

	t.Run("a live update leaves a view the user moved where it is, and Latest jumps back", func(t *testing.T) {
		do(t, ctx, jsChart+`.dispatchAction({type: "dataZoom", startValue: 100, endValue: 160})`)
		waitFor(t, ctx, `performance.getEntriesByName("riskchart:live").length > 0`)
		lives := evalJS[int](t, ctx, `performance.getEntriesByName("riskchart:live").length`)
		waitFor(t, ctx, fmt.Sprintf(`performance.getEntriesByName("riskchart:live").length >= %d`, lives+2))
		if start, end, _ := chartView(t, ctx); start != 100 || end != 160 {
			t.Errorf("after two live updates the view is %d–%d, not 100–160", start, end)
		}
		click(t, ctx, "#jump-latest")
		waitFor(t, ctx, `(() => { const o = `+jsChart+`.getOption(); return o.dataZoom[0].endValue === o.series[0].data.length - 1; })()`)
		if start, end, _ := chartView(t, ctx); end-start != 60 {
			t.Errorf("Latest changed the zoom width: %d–%d", start, end)
		}
	})

	t.Run("a slow venue shows the chart loading", func(t *testing.T) {
		sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: {Latency: 1500 * time.Millisecond}}})
		click(t, ctx, `[data-period="30min"]`)
		waitFor(t, ctx, `(document.getElementById("chart-status") || {}).textContent?.includes("Loading BTC-USDT 30min")`)
		screenshot(t, ctx, "chart-loading")
		waitDrawn(t, ctx, "BTC-USDT|30min")
		sb.SetFaults(sandbox.Faults{})
	})

	t.Run("a failing venue marks the candles stale and keeps them", func(t *testing.T) {
		sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: {Rate5xx: 1}}})
		waitFor(t, ctx, `!!document.getElementById("stale-mark")`)
		if _, _, n := chartView(t, ctx); n == 0 {
			t.Error("the stale chart lost its candles")
		}
		screenshot(t, ctx, "chart-stale")
	})

	t.Run("a chart the venue cannot serve says so, and Retry loads it once it can", func(t *testing.T) {
		warnings := consoleLines(ctx, "warning")
		sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: {Rate5xx: 1}}})
		click(t, ctx, `[data-period="4hour"]`) // never loaded: nothing to fall back on
		waitFor(t, ctx, `!!document.getElementById("retry") && document.getElementById("chart-status").textContent.includes("Could not load the chart")`)
		screenshot(t, ctx, "chart-error")
		// The technical text is the console's, as a warning (app/browser/console.go).
		const want = "the chart did not load contract=BTC-USDT period=4hour err="
		if got := warnings(); !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("the console's warnings are %q, want one starting %q", got, want)
		}
		sb.SetFaults(sandbox.Faults{})
		// The server holds off a failing endpoint until its next trial call
		// (docs/decisions.md#failure-memory): Retry, clicked again as a person
		// would while the error stays, loads the chart once that trial is due.
		retry := `(() => {
  const s = document.querySelector(".kchart");
  if (s && s.dataset.drawn === "BTC-USDT|4hour") return true;
  const r = document.getElementById("retry"), now = Date.now();
  if (r && !(window.retriedAt > now - 1000)) { window.retriedAt = now; r.click(); }
  return false;
})()`
		tctx, cancel := context.WithTimeout(ctx, 40*time.Second) // the longest wait of an endpoint is 30 s
		defer cancel()
		if err := chromedp.Run(tctx, pollToDeadline(retry, nil, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			t.Fatalf("Retry never loaded the chart once the venue healed: %v", err)
		}
		waitFor(t, ctx, `!document.getElementById("stale-mark") && !document.getElementById("chart-status")`)
	})

	t.Run("panning to the start of history says the venue keeps about two years", func(t *testing.T) {
		click(t, ctx, `[data-period="1mon"]`)
		waitDrawn(t, ctx, "BTC-USDT|1mon")
		_, _, n := chartView(t, ctx)
		do(t, ctx, jsChart+`.dispatchAction({type: "dataZoom", startValue: 0, endValue: 10})`)
		waitFor(t, ctx, `!!document.getElementById("horizon-mark")`)
		if _, _, after := chartView(t, ctx); after != n {
			t.Errorf("%d candles before the horizon, %d after", n, after)
		}
		if n > 26 {
			t.Errorf("%d monthly candles: more than two years", n)
		}
		screenshot(t, ctx, "chart-horizon")
	})
}

func TestChartOnAPhone(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Emulate(device.IPhone12), chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		t.Errorf("the page is %d px wider than the phone", w)
	}
	// Once the panels below have filled, ECharts' canvas is its element's
	// size and ends above them (the element had shrunk as they filled while
	// the canvas kept the height of the first paint, over the panels).
	waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0`)
	if got := evalJS[string](t, ctx, `(() => {
  const el = document.getElementById("chart").getBoundingClientRect();
  const cv = document.querySelector("#chart canvas").getBoundingClientRect();
  const risk = document.querySelector(".risk").getBoundingClientRect();
  const near = (a, b) => Math.abs(a - b) < 1;
  return JSON.stringify({canvasIsTheElement: near(cv.top, el.top) && near(cv.bottom, el.bottom) && near(cv.width, el.width), panelsBelow: risk.top >= cv.bottom - 0.5});
})()`); got != `{"canvasIsTheElement":true,"panelsBelow":true}` {
		t.Errorf("on a phone, the chart's canvas and the panels: %s", got)
	}
	if h := evalJS[float64](t, ctx, `document.getElementById("chart").getBoundingClientRect().height`); h < 300 {
		t.Errorf("the chart is %.0f px high", h)
	}
	screenshot(t, ctx, "chart-phone")
}

// jsLegendClear says where the legend reaches into the price grid, or over
// its topmost price where it reaches over the price axis; "" when it is clear.
const jsLegendClear = `(() => {
  const l = document.getElementById("legend").getBoundingClientRect(), g = ` + jsPriceGrid + `;
  const top = g.y, axis = g.x + g.width;
  const clear = l.right > axis ? 7 : 0; // the topmost price is centred on the grid's top edge
  return l.bottom <= top - clear + 0.5 ? "" : "the legend (" + document.getElementById("legend").innerText.replace(/\s+/g, " ") + ") ends at " + l.bottom.toFixed(1) + ", the grid starts at " + top.toFixed(1) + (clear ? " and its topmost price 7 px higher" : "");
})()`

// TestChartLegendCoversNoCandleAndNoPrice opens the chart from a small phone
// to a wide screen, on the views whose legend is longest (a future's monthly
// candles) and on a short one, and points at candles across it: the legend
// always ends above the price grid, where the candles are, and where it
// reaches over the price axis, above the topmost price too (web/style.css
// reserves its lines by the chart's width).
func TestChartLegendCoversNoCandleAndNoPrice(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	dated := datedFuture(t, s.URL, "ETH-USDT") // a delivery date in the code: the longest legend
	for _, width := range []int64{320, 360, 390, 430, 600, 768, 1024, 1280} {
		for _, view := range []string{"BTC-USDT-CQ|1mon", dated + "|1mon", "BTC-USDT|1min"} {
			contract, period, _ := strings.Cut(view, "|")
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(width, 800, 1, width < 600),
				chromedp.Navigate(s.URL+"/?contract_code="+contract+"&period="+period)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, view)
			waitFor(t, ctx, `!!document.querySelector("#legend .legend-item")`)
			checkLegendClearAcross(t, ctx, fmt.Sprintf("%d px, %s", width, view))
		}
	}
	screenshot(t, ctx, "chart-legend-wide")
}

// checkLegendClearAcross checks that the legend ends above the candles
// (jsLegendClear) at the latest candle and pointing at candles across the
// price grid, where its values take other widths.
func checkLegendClearAcross(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	if msg := evalJS[string](t, ctx, jsLegendClear); msg != "" {
		t.Errorf("%s, the latest candle: %s", where, msg)
	}
	grid := evalJS[struct{ X, Y, Width, Height float64 }](t, ctx, jsPriceGrid)
	for _, fx := range []float64{0.1, 0.5, 0.9} {
		shown := evalJS[string](t, ctx, `document.getElementById("legend").dataset.id`)
		x, y := grid.X+grid.Width*fx, grid.Y+grid.Height*0.5
		if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, x, y)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, fmt.Sprintf(`(() => { const l = document.getElementById("legend"); return l.dataset.hover === "true" && l.dataset.id !== %q })()`, shown))
		if msg := evalJS[string](t, ctx, jsLegendClear); msg != "" {
			t.Errorf("%s, pointing at %.0f,%.0f: %s", where, x, y, msg)
		}
	}
}

// datedFuture is the dated code (ETH-USDT-YYMMDD) of pair's quarterly
// future as the venue lists it now: the contract list offers futures by
// their type codes (BTC-USDT-CQ), which outlive a delivery, and the venue's
// position limits of a pair and a contract type name the dated one.
func datedFuture(t *testing.T, base, pair string) string {
	t.Helper()
	q := venueapi.LimitQuery{Pair: pair, ContractType: venueapi.TypeQuarter, BusinessType: "futures"}
	res, err := http.Get(base + venueapi.PathPositionLimit + "?" + q.Values().Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the position limits: %v", err)
	}
	env, err := venueapi.DecodeLimits(raw)
	if err != nil {
		t.Fatalf("reading the position limits: %v: %s", err, raw)
	}
	for _, l := range env.Data {
		if date, ok := strings.CutPrefix(l.ContractCode, pair+"-"); ok && len(date) == 6 && strings.Trim(date, "0123456789") == "" {
			return l.ContractCode
		}
	}
	t.Fatalf("no %s-YYMMDD among the position limits of its quarterly future: %s", pair, raw)
	return ""
}

// jsStudiesBand is the empty band between the legend's foot and the price
// grid, and the grid's top in the chart, in px.
const jsStudiesBand = `(() => {
  const l = document.getElementById("legend").getBoundingClientRect(), c = document.getElementById("chart").getBoundingClientRect(), g = ` + jsPriceGrid + `;
  return {band: g.y - l.bottom, top: g.y - c.top};
})()`

// jsPriceTopFitted is whether the app has measured the studies' legend and
// started the candles under it (app/components/chartlegend.go).
const jsPriceTopFitted = `performance.getEntriesByName("riskchart:legend-fitted").length > 0`

// TestTheCandlesStartALineUnderTheStudiesLegend opens charts with studies
// on screens too wide for the one-line legend, on views whose legend is
// long (a future's monthly candles) and short: the app measures the legend
// and starts the candles under it with a line to spare (chartopt's
// PriceTopUnder), not under the lines the widest legend would take; pointed
// at candles across the chart, the legend still ends above them; narrowed,
// the chart follows.
func TestTheCandlesStartALineUnderTheStudiesLegend(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	dated := datedFuture(t, s.URL, "ETH-USDT")
	// Six px clear of the legend, a line of 22 to spare, and one more: the
	// latest candle's values change live, and wrap to a line fewer than
	// when the legend was measured as often as to one more. A px of rounding.
	const most = 6 + 22 + 22 + 1
	for _, width := range []int64{768, 1024, 1280, 1920} {
		for _, view := range []string{dated + "|1mon|ma:7,rsi", "BTC-USDT|1min|ma:7", "BTC-USDT|5min|boll,macd"} {
			parts := strings.Split(view, "|")
			// The pointer off the chart: the legend is measured showing the latest candle.
			if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 1, 1), emulation.SetDeviceMetricsOverride(width, 900, 1, false),
				chromedp.Navigate(s.URL+"/?contract_code="+parts[0]+"&period="+parts[1]+"&indicators="+parts[2])); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, parts[0]+"|"+parts[1])
			waitFor(t, ctx, `!!document.querySelector("#legend .legend-study")`)
			// Measured: until then the candles start where the frame puts them.
			waitFor(t, ctx, jsPriceTopFitted)
			b := evalJS[struct{ Band, Top float64 }](t, ctx, jsStudiesBand)
			if b.Band > most && b.Top > 38.5 {
				t.Errorf("%d px, %s: %.0f px of chart lie empty between the legend and the candles", width, view, b.Band)
			}
			checkLegendClearAcross(t, ctx, fmt.Sprintf("%d px, %s", width, view))
			if got := evalJS[struct{ Band, Top float64 }](t, ctx, jsStudiesBand); math.Abs(got.Top-b.Top) > 0.5 {
				t.Errorf("%d px, %s: pointing at candles moved the candles' top from %.0f to %.0f px", width, view, b.Top, got.Top)
			}
		}
	}
	// From a wide window to a narrower one, the legend wraps to more lines,
	// and the candles start where the legend then measured puts them
	// (chartopt.PriceTopUnder). Whether that is lower than before depends
	// on the latest candle's values: a candle just begun, its volumes 0,
	// may keep the legend within the 96 px a wide window's top is capped at.
	if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 1, 1), emulation.SetDeviceMetricsOverride(1920, 900, 1, false),
		chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&indicators="+allStudies)); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, `!!document.querySelector("#legend .legend-study")`)
	wide := evalJS[float64](t, ctx, `document.getElementById("legend").getBoundingClientRect().height`)
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 900, 1, false)); err != nil {
		t.Fatal(err)
	}
	jsFit := `(() => {
  const b = ` + jsStudiesBand + `, l = document.getElementById("legend").getBoundingClientRect(), c = document.getElementById("chart").getBoundingClientRect();
  return {band: b.band, top: b.top, under: l.bottom - c.top, height: l.height};
})()`
	var fit struct{ Band, Top, Under, Height float64 }
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		fit = evalJS[struct{ Band, Top, Under, Height float64 }](t, ctx, jsFit)
		want := chartopt.PriceTopUnder(int(math.Ceil(fit.Under))) // as the app measures it (browser.Below)
		if fit.Height > wide && math.Abs(fit.Top-float64(want)) <= 0.5 && fit.Band >= 0 && fit.Band <= most {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("narrowed to 1280 px: the legend %.0f px high (%.0f at 1920), its foot %.1f px under the chart's top, the candles from %.0f px, want %d, %.0f px between", fit.Height, wide, fit.Under, fit.Top, want, fit.Band)
		}
	}
	if msg := evalJS[string](t, ctx, jsLegendClear); msg != "" {
		t.Errorf("narrowed to 1280 px: %s", msg)
	}
}

// TestTheAppStartsWhenEChartsDoesNotLoad: the first paint waits for ECharts
// to have run, and Go waits for the first paint. When echarts.min.js fails
// before web/chart-boot.js runs (its load event gone), or loads something
// else (a captive portal's answer, a file cut short: it runs and defines no
// echarts), the app must start anyway and say the chart library did not
// load: on a view the first paint sketches (ECharts async in the head) and
// on one with studies (ECharts blocking the parser).
func TestTheAppStartsWhenEChartsDoesNotLoad(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		view string
		ran  bool // the file comes, and is not ECharts
	}{
		{"contract_code=BTC-USDT&period=1min&tz=utc", false},
		{"contract_code=BTC-USDT&period=1min&tz=utc&indicators=ma:7", false},
		{"contract_code=BTC-USDT&period=1min&tz=utc", true},
		{"contract_code=BTC-USDT&period=1min&tz=utc&indicators=ma:7", true},
	} {
		view := tc.view
		t.Run(fmt.Sprintf("%s, the file comes: %v", view, tc.ran), func(t *testing.T) {
			ctx := newBrowser(t) // a browser of its own: no service worker answers before the network
			if tc.ran {
				answerEveryHeld(t, ctx, "application/javascript", "/* the network's sign-in page was here */")
			} else {
				failEveryHeld(t, ctx, network.ErrorReasonFailed)
			}
			fail := fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/web/echarts.min.js", RequestStage: fetch.RequestStageRequest}})
			if err := chromedp.Run(ctx, fail, chromedp.Navigate(s.URL+"/?"+view)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!document.getElementById("app-wasm-loader") && (document.getElementById("chart-status") || {}).textContent?.includes("The chart library did not load.")`)
			if !evalJS[bool](t, ctx, `!!(window.riskchartBoot && riskchartBoot.settled)`) {
				t.Error("the first paint did not settle")
			}
		})
	}
}
