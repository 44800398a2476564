package e2e

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
	"github.com/chromedp/chromedp/kb"
)

// What a trader tripped over on the chart: a phone's header and swipes, the
// dates of daily candles west of UTC, views the URL names wrongly, a chart
// that failed offline, the legend after Home, and a small chart embed.

// TestPhoneHeaderIsTwoRowsAndTheChartStartsHigh opens the chart on a phone
// (390 × 844): the header holds two rows, the period chips are touch
// targets, the price grid (and so the first candle) starts within the first
// 260 px of the page, and a vertical swipe over the chart scrolls the page.
func TestPhoneHeaderIsTwoRowsAndTheChartStartsHigh(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Emulate(device.IPhone12), chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	if w := evalJS[int](t, ctx, `innerWidth`); w != 390 {
		t.Fatalf("the phone is %d px wide", w)
	}
	rows := evalJS[int](t, ctx, `(() => {
  const tops = new Set();
  for (const el of document.querySelectorAll(".bar > *")) {
    const r = el.getBoundingClientRect();
    if (r.width > 1 && r.height > 1) tops.add(Math.round(r.top / 8));
  }
  return tops.size;
})()`)
	if rows > 2 {
		t.Errorf("the header holds %d rows of controls, want at most 2 (%.0f px high)", rows, evalJS[float64](t, ctx, `document.querySelector(".bar").getBoundingClientRect().height`))
	}
	if small := evalJS[string](t, ctx, `[...document.querySelectorAll("#period-picker .chip")].filter(c => { const r = c.getBoundingClientRect(); return r.height < 44 || r.width < 44; }).map(c => c.dataset.period + " " + Math.round(c.getBoundingClientRect().height) + " px").join(", ")`); small != "" {
		t.Errorf("period chips below 44 px: %s", small)
	}
	grid := evalJS[struct{ X, Y, Width, Height float64 }](t, ctx, jsPriceGrid)
	if top := grid.Y + evalJS[float64](t, ctx, `scrollY`); top > 260 {
		t.Errorf("the price grid starts %.0f px down the page, want the first candle within 260 px", top)
	}
	// The first candle in view sits inside the phone's width.
	if x := evalJS[float64](t, ctx, `(() => { const c = `+jsChart+`, o = c.getOption(); return document.getElementById("chart").getBoundingClientRect().left + c.convertToPixel({xAxisIndex: 0}, o.dataZoom[0].startValue); })()`); x < grid.X || x > grid.X+grid.Width {
		t.Errorf("the first candle in view is at x = %.0f, outside the grid %.0f–%.0f", x, grid.X, grid.X+grid.Width)
	}
	screenshot(t, ctx, "chart-phone-header")

	// A finger moving up over the chart's middle scrolls the page down.
	if before := evalJS[float64](t, ctx, `scrollY`); before != 0 {
		t.Fatalf("the page starts scrolled by %.0f px", before)
	}
	x, y := grid.X+grid.Width/2, grid.Y+grid.Height/2
	swipe := chromedp.Tasks{input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: x, Y: y}})}
	for i := 1; i <= 10; i++ {
		swipe = append(swipe, input.DispatchTouchEvent(input.TouchMove, []*input.TouchPoint{{X: x, Y: y - float64(i*20)}}), chromedp.Sleep(16*time.Millisecond))
	}
	swipe = append(swipe, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	if err := chromedp.Run(ctx, swipe); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(`scrollY > 50`, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Errorf("a vertical swipe over the chart scrolled the page by %.0f px, want more than 50", evalJS[float64](t, ctx, `scrollY`))
	}
}

// jsCanvasBox is a JavaScript function giving a shape's own box on the
// chart's canvas (a paint rect adds margins for strokes).
const jsCanvasBox = `((el) => {
  const r = el.getBoundingRect().clone(), m = el.getComputedTransform();
  if (m) r.applyTransform(m);
  return r;
})`

// jsChartTexts reads every text the chart draws (the axes' labels, the
// last-price tag, the high and low marks, the times) from ECharts' list of
// shapes, and names those that run off its canvas (chartTexts).
const jsChartTexts = `(() => {
  const c = ` + jsChart + `, w = c.getWidth(), h = c.getHeight(), out = [];
  let texts = 0, longest = "";
  for (const el of c.getZr().storage.getDisplayList(true)) {
    const text = el.style && typeof el.style.text === "string" ? el.style.text.trim() : "";
    if (!text || el.ignore || el.invisible) continue;
    texts++;
    if (text.length > longest.length) longest = text;
    const r = ` + jsCanvasBox + `(el);
    if (r.x < -1 || r.y < -1 || r.x + r.width > w + 1 || r.y + r.height > h + 1) {
      out.push(JSON.stringify(text) + " at " + Math.round(r.x) + "–" + Math.round(r.x + r.width) + " × " + Math.round(r.y) + "–" + Math.round(r.y + r.height));
    }
  }
  return {texts, longest, out: out.join("; ")};
})()`

// jsPriceLabels and jsTimeLabels read the labels the price axis and the
// time axis write (the time axis of a chart without studies' panes).
const (
	jsPriceLabels = `(() => ` + jsChart + `.getModel().getComponent("yAxis", 0).axis.getViewLabels().map((l) => l.formattedLabel))()`
	// jsPriceExtent reads the price axis' extent, its lowest and highest
	// value.
	jsPriceExtent = `(() => ` + jsChart + `.getModel().getComponent("yAxis", 0).axis.scale.getExtent())()`
	jsTimeLabels  = `(() => ` + jsChart + `.getModel().getComponent("xAxis", 1).axis.getViewLabels().map((l) => l.formattedLabel))()`
)

// chartTexts is what jsChartTexts reads: how many texts, the longest, and
// those off the canvas, with their boxes.
type chartTexts struct {
	Texts   int
	Longest string
	Out     string
}

// TestAPhoneShowsThePeriodOnShowAndWholePrices opens the chart on a phone
// (390 × 844) at periods past its width and in it: the period strip opens
// at the pressed chip, at its end, and leaves a strip whose pressed chip is
// in view as it is; no text the chart draws (the price axis' labels, the
// last-price tag, the high and low marks, the times) runs off its canvas.
// Bitcoin's daily and monthly candles carry the widest price labels the
// sandbox draws ("120,000.0").
func TestAPhoneShowsThePeriodOnShowAndWholePrices(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Emulate(device.IPhone12)); err != nil {
		t.Fatal(err)
	}
	const strip = `(() => {
  const s = document.querySelector(".bar > .chips"), c = s.querySelector(".chip[aria-pressed=true]");
  const sr = s.getBoundingClientRect(), cr = c.getBoundingClientRect();
  return {period: c.dataset.period, in: cr.left >= sr.left - 0.5 && cr.right <= sr.right + 0.5, scrolled: s.scrollLeft, wider: s.scrollWidth > s.clientWidth};
})()`
	type stripState struct {
		Period    string
		In, Wider bool
		Scrolled  float64
	}
	for _, tc := range []struct {
		period   string
		scrolled bool // the pressed chip lies past the phone's width
	}{
		{"1day", true},
		{"1mon", true},
		{"5min", false},
	} {
		t.Run(tc.period, func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period="+tc.period)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|"+tc.period)
			st := evalJS[stripState](t, ctx, strip)
			if !st.Wider {
				t.Fatalf("the period strip is not wider than the phone: nothing to scroll")
			}
			if st.Period != tc.period || !st.In {
				t.Errorf("the pressed chip (%s) lies outside the period strip, scrolled by %.0f px", st.Period, st.Scrolled)
			}
			if tc.scrolled != (st.Scrolled > 0) {
				t.Errorf("the strip opened scrolled by %.0f px, want scrolled: %v", st.Scrolled, tc.scrolled)
			}
			d := evalJS[chartTexts](t, ctx, jsChartTexts)
			if d.Texts < 5 {
				t.Fatalf("the chart draws %d texts: the list of its shapes was not read", d.Texts)
			}
			if d.Out != "" {
				t.Errorf("the chart's text runs off its %.0f px canvas: %s", evalJS[float64](t, ctx, jsChart+`.getWidth()`), d.Out)
			}
			t.Logf("%d texts, the longest %q", d.Texts, d.Longest)
		})
	}
	screenshot(t, ctx, "chart-phone-1mon")
}

// TestACoinQuotedToNineDecimalsHasRoomForItsPrices opens SHIB-USDT, whose
// prices the sandbox writes to nine decimals ("0.000012345"), on a desktop,
// on a phone and in a compact embed: once the contract list has come, the
// price axis writes every label at the contract's tick, and the room right
// of the grids (chartopt.PriceRoom) holds them: no text the chart draws runs
// off its canvas. With the frame's fixed 64 px, the labels ran 14 px past
// the canvas' right edge. On the percent scale the last-price tag holds the
// price and, under it, its distance in percent: beside it, it ran 40 px past.
// The tag spans the labels' width, so that the label at its price is hidden
// whole ([jsTagCover]).
func TestACoinQuotedToNineDecimalsHasRoomForItsPrices(t *testing.T) {
	s := startServer(t, nil)
	const tick, percent = `^0\.\d{9}$`, `^[+-]?\d+\.\d\d%$` // what every price label is, JavaScript regular expressions
	for _, tc := range []struct {
		name, path string
		setup      chromedp.Action
		label      string
	}{
		{"desktop", "/?contract_code=SHIB-USDT&period=1day", emulation.SetDeviceMetricsOverride(1280, 800, 1, false), tick},
		{"phone", "/?contract_code=SHIB-USDT&period=4hour", chromedp.Emulate(device.IPhone12), tick},
		{"compact embed", "/embed/chart?contract_code=SHIB-USDT&period=5min", emulation.SetDeviceMetricsOverride(320, 240, 1, false), tick},
		{"percent scale", "/?contract_code=BTC-USDT&period=1day&scale=percent", emulation.SetDeviceMetricsOverride(1280, 800, 1, false), percent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, tc.setup, chromedp.Navigate(s.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, drawnAt(tc.path))
			fitted := `((labels, texts) => labels.length >= 2 && labels.every((p) => /` + tc.label + `/.test(p)) && texts.texts >= 5 && texts.out === "")(` + jsPriceLabels + `, ` + jsChartTexts + `)`
			tctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			if err := chromedp.Run(tctx, chromedp.Poll(fitted, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
				d := evalJS[chartTexts](t, ctx, jsChartTexts)
				t.Errorf("the price axis writes %q; %d texts, off the %.0f px canvas: %s (want each label as /%s/, all on it)",
					evalJS[[]string](t, ctx, jsPriceLabels), d.Texts, evalJS[float64](t, ctx, jsChart+`.getWidth()`), d.Out, tc.label)
			}
			shown, cancelShown := context.WithTimeout(ctx, 5*time.Second)
			defer cancelShown()
			chromedp.Run(shown, chromedp.Poll(`(`+jsTagCover+`).shown`, nil, chromedp.WithPollingInterval(50*time.Millisecond))) // the check below says if it never is
			if c := evalJS[tagCover](t, ctx, jsTagCover); !c.Shown || c.Labels == 0 || c.TagLeft > c.LabelsLeft || c.TagRight < c.LabelsRight {
				t.Errorf("the last-price tag spans %.1f–%.1f px, the price labels %.1f–%.1f px (%d); want the tag shown, over the labels' whole width",
					c.TagLeft, c.TagRight, c.LabelsLeft, c.LabelsRight, c.Labels)
			}
			screenshot(t, ctx, "chart-room-"+strings.ReplaceAll(tc.name, " ", "-"))
		})
	}
}

// jsTagCover reads where the last-price tag and the price axis' labels are
// across the canvas: the tag passes over the labels at its price, and hides
// them whole only if it spans their width. The tag used to be as wide as its
// text, in a smaller font than the labels', and a label showed past its end.
const jsTagCover = `(() => {
  const c = ` + jsChart + `, shown = new Set(c.getModel().getComponent("yAxis", 0).axis.getViewLabels().map((l) => l.formattedLabel));
  const box = ` + jsCanvasBox + `;
  const out = {shown: false, tagLeft: 0, tagRight: 0, labels: 0, labelsLeft: Infinity, labelsRight: -Infinity};
  for (const el of c.getZr().storage.getDisplayList(true)) {
    const text = el.style && el.style.text;
    if (shown.has(text)) {
      const r = box(el);
      Object.assign(out, {labels: out.labels + 1, labelsLeft: Math.min(out.labelsLeft, r.x), labelsRight: Math.max(out.labelsRight, r.x + r.width)});
    }
  }
  const tag = c.getZr().storage.getRoots().find((el) => el.name === "last-price-tag");
  if (tag && !tag.ignore) {
    const r = box(tag);
    Object.assign(out, {shown: true, tagLeft: r.x, tagRight: r.x + r.width});
  }
  return out;
})()`

// tagCover is what jsTagCover reads.
type tagCover struct {
	Shown                   bool
	TagLeft, TagRight       float64
	Labels                  int
	LabelsLeft, LabelsRight float64
}

// TestTheFirstPaintWritesPricesAsTheAppWill holds app.wasm back: the first
// paint writes the price axis' labels at the contract's decimals from the
// list the page carries ("95,300.0", not ECharts' "95,300"), fits the axis'
// room by the app's rule, so SHIB-USDT's nine decimals stay on the canvas,
// and names the times the app names (round times, none cut at the edges).
// Once the app runs and adopts the chart, the price grid is where the first
// paint put it, and both axes' labels are the same. Before, the first
// paint's SHIB labels ran 7 px off the canvas, its first time label 7 to
// 19 px, the app's first draw narrowed the grids by 24 px, and every label
// changed. The live stream is held back with app.wasm: a minute turning
// between the first paint and the app's draw would move the 1min window by
// a candle and its edge labels with it.
func TestTheFirstPaintWritesPricesAsTheAppWill(t *testing.T) {
	s := startServer(t, nil)
	type grid struct{ X, Y, Width, Height float64 }
	for _, tc := range []struct{ contract, period, zone, label string }{
		{"SHIB-USDT", "1min", "", `^0\.\d{9}$`},
		{"BTC-USDT", "1day", "", `^\d{1,3}(,\d{3})*\.\d$`},
		{"ETH-USDT", "60min", "America/New_York", `^\d{1,3}(,\d{3})*\.\d\d$`}, // round hours of a zone behind UTC
	} {
		t.Run(tc.contract+"|"+tc.period, func(t *testing.T) {
			ctx, held := openStillHoldingAppWasm(t, s.URL+"/?contract_code="+tc.contract+"&period="+tc.period,
				emulation.SetDeviceMetricsOverride(1280, 800, 1, false), emulation.SetTimezoneOverride(tc.zone))
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			written := `((labels) => labels.length >= 2 && labels.every((p) => /` + tc.label + `/.test(p)))(` + jsPriceLabels + `)`
			if !evalJS[bool](t, ctx, written) {
				t.Errorf("before the app, the price axis writes %q, want each as /%s/", evalJS[[]string](t, ctx, jsPriceLabels), tc.label)
			}
			if d := evalJS[chartTexts](t, ctx, jsChartTexts); d.Out != "" {
				t.Errorf("before the app, the chart's text runs off its canvas: %s", d.Out)
			}
			before, named := evalJS[grid](t, ctx, jsPriceGrid), evalJS[[]string](t, ctx, jsTimeLabels)
			letAppWasmThrough(t, ctx, held)
			waitDrawn(t, ctx, tc.contract+"|"+tc.period)
			if !evalJS[bool](t, ctx, `riskchartBoot.adopted`) {
				t.Fatal("the app did not adopt the first paint")
			}
			if after := evalJS[grid](t, ctx, jsPriceGrid); after != before {
				t.Errorf("the app moved the price grid from %+v to %+v", before, after)
			}
			if !evalJS[bool](t, ctx, written) {
				t.Errorf("the app's price axis writes %q, want each as /%s/", evalJS[[]string](t, ctx, jsPriceLabels), tc.label)
			}
			if got := evalJS[[]string](t, ctx, jsTimeLabels); !slices.Equal(got, named) || len(got) < 2 {
				t.Errorf("the first paint named the times %q, the app %q; want the same, two at least", named, got)
			}
		})
	}
}

// TestAChartEmbedWritesPricesAtTheContractsPrecision opens the chart embed
// alone, as an iframe does: once the contract list has come, its price axis
// and its legend write every price at the contract's tick (BTC-USDT: one
// decimal, "95,300.0"), as the chart page does, not in the venue's digits
// ("95,300" beside "95,271.9"). The embed used to draw without the list.
func TestAChartEmbedWritesPricesAtTheContractsPrecision(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/chart?contract_code=BTC-USDT&period=1min&controls=0")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	const prices = `(() => {
  const labels = ` + jsPriceLabels + `;
  const legend = ["open", "high", "low", "close"].map((id) => document.getElementById("legend-" + id).textContent);
  return {labels, legend};
})()`
	const atTick = `(({labels, legend}) => labels.length >= 2 && [...labels, ...legend].every((p) => /^\d{1,3}(,\d{3})*\.\d$/.test(p)))(` + prices + `)`
	tctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(atTick, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		last := evalJS[struct{ Labels, Legend []string }](t, ctx, prices)
		t.Errorf("the embed writes prices %q on its axis and %q in its legend, want one decimal each (BTC-USDT's tick)", last.Labels, last.Legend)
	}
}

// TestChartStatesAsATraderMeetsThem: daily candles west of UTC, codes and
// periods the URL names wrongly, a chart that failed offline, the legend
// after Home.
func TestChartStatesAsATraderMeetsThem(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)

	t.Run("west of UTC a daily candle carries its UTC date on the axis and in the legend", func(t *testing.T) {
		if err := chromedp.Run(ctx, emulation.SetTimezoneOverride("America/New_York"),
			chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1day&tz=local")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1day")
		candles := apiCandles(t, s.URL, "contract_code=BTC-USDT&period=1day&size=3")
		want := time.Unix(candles[len(candles)-1].ID, 0).UTC().Format("2006-01-02")
		if zone := evalJS[int](t, ctx, `new Date().getTimezoneOffset()`); zone < 240 {
			t.Fatalf("the browser's zone is %d min from UTC: not west of it", zone)
		}
		got := evalJS[string](t, ctx, `(() => { const d = `+jsChart+`.getOption().xAxis[1].data; return d[d.length - 1]; })()`)
		if got != want {
			t.Errorf("the latest daily candle is labelled %q on the axis, want its UTC date %q", got, want)
		}
		// Between the first and last candles in view, whose labels ECharts
		// writes at the edges, the axis names the first candle of each month:
		// its round times are found in UTC too. Found in New York's zone,
		// they fell on each month's second day.
		shown := evalJS[[]string](t, ctx, jsTimeLabels)
		if len(shown) < 4 {
			t.Fatalf("the time axis names %q, want a few months", shown)
		}
		for _, l := range shown[1 : len(shown)-1] {
			if !strings.HasSuffix(l, "-01") {
				t.Errorf("the time axis names %q among %q, want the first day of each month", l, shown)
			}
		}
		waitFor(t, ctx, `!!document.getElementById("legend-time")`)
		if legend := evalJS[string](t, ctx, `document.getElementById("legend-time").textContent`); legend != want+" UTC" {
			t.Errorf("the legend says %q, want %q", legend, want+" UTC")
		}
		// The minute candles stay in the browser's zone.
		click(t, ctx, `[data-period="1min"]`)
		waitDrawn(t, ctx, "BTC-USDT|1min")
		if legend := evalJS[string](t, ctx, `document.getElementById("legend-time").textContent`); strings.Contains(legend, "UTC") && !strings.Contains(legend, "UTC-") {
			t.Errorf("a minute candle's legend %q is not in New York's time", legend)
		}
		if err := chromedp.Run(ctx, emulation.SetTimezoneOverride("")); err != nil {
			t.Fatalf("setting the browser's own time zone back: %v", err)
		}
	})

	t.Run("a lower-case code is the contract, not BTC-USDT", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=eth-usdt&period=5MIN")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "ETH-USDT|5min")
		if n := evalJS[int](t, ctx, `document.querySelectorAll("#view-notice").length`); n != 0 {
			t.Errorf("a code read whatever its case still drew a notice: %q", evalJS[string](t, ctx, `document.getElementById("view-notice").textContent`))
		}
	})

	t.Run("a period the venue lacks and a malformed code are named, with what is shown instead", func(t *testing.T) {
		for _, tc := range []struct{ query, says, shown string }{
			{"period=1week", "“1week” is not a period of the venue", "BTC-USDT|1min"},
			{"contract_code=ETH_USDT&period=1hour", "“ETH_USDT” is not a contract code", "BTC-USDT|1hour"},
		} {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?"+tc.query)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, tc.shown)
			waitFor(t, ctx, `!!document.getElementById("view-notice")`)
			if text := evalJS[string](t, ctx, `document.getElementById("view-notice").textContent`); !strings.Contains(text, tc.says) || !strings.Contains(text, "showing") {
				t.Errorf("%s: the notice reads %q, want %q and what is shown", tc.query, text, tc.says)
			}
		}
		// A pick names the view on show, and the notice goes; Back to the
		// entry the page was opened with names what it asked for again.
		waitFor(t, ctx, jsAppRunning)
		click(t, ctx, `[data-period="5min"]`)
		waitDrawn(t, ctx, "BTC-USDT|5min")
		waitFor(t, ctx, `!document.getElementById("view-notice")`)
		if err := chromedp.Run(ctx, chromedp.Evaluate(`history.back()`, nil)); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1hour")
		waitFor(t, ctx, `!!document.getElementById("view-notice") && document.getElementById("view-notice").textContent.includes("“ETH_USDT” is not a contract code")`)
	})

	t.Run("a chart that failed offline loads by itself once the connection is back", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1min")
		if err := chromedp.Run(ctx, network.Enable(), network.EmulateNetworkConditions(true, 0, -1, -1)); err != nil {
			t.Fatal(err)
		}
		click(t, ctx, `[data-period="4hour"]`) // never loaded here: nothing saved to fall back on
		waitFor(t, ctx, `!!document.getElementById("retry")`)
		status := evalJS[string](t, ctx, `document.getElementById("chart-status").textContent`)
		if !strings.Contains(status, "No connection to the server") {
			t.Errorf("offline, the chart says %q", status)
		}
		for _, dev := range []string{"TypeError", "Failed to fetch", "no answer from the server ("} {
			if strings.Contains(status, dev) {
				t.Errorf("the chart shows developer text %q: %q", dev, status)
			}
		}
		back := time.Now()
		if err := chromedp.Run(ctx, network.EmulateNetworkConditions(false, 0, -1, -1)); err != nil {
			t.Fatal(err)
		}
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Run(tctx, chromedp.Poll(`document.querySelector(".kchart").dataset.drawn === "BTC-USDT|4hour"`, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			t.Fatalf("30 s after the connection came back the chart still says %q", evalJS[string](t, ctx, `document.querySelector(".kchart").innerText`))
		}
		t.Logf("drawn %v after the connection came back", time.Since(back).Round(10*time.Millisecond))
	})

	t.Run("after Home the legend shows the candle under the crosshair", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1min")
		grid := evalJS[struct{ X, Y, Width, Height float64 }](t, ctx, jsPriceGrid)
		if err := chromedp.Run(ctx, chromedp.Focus("#chart-area", chromedp.ByID),
			chromedp.MouseEvent(input.MouseMoved, grid.X+grid.Width*0.6, grid.Y+grid.Height/2)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.getElementById("legend").dataset.hover === "true"`)
		prepends := evalJS[int](t, ctx, `performance.getEntriesByName("riskchart:prepend").length`)
		if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Home)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, fmt.Sprintf(`performance.getEntriesByName("riskchart:prepend").length > %d`, prepends))
		// The crosshair's candle, read from ECharts, and the legend's.
		const jsAgree = `(() => {
  const c = ` + jsChart + `, o = c.getOption(), info = c.getModel().getComponent("axisPointer").coordSysAxesInfo;
  const ax = info && Object.values(info.axesInfo).find(a => a.axis.dim === "x" && a.axis.model.componentIndex === 0);
  const i = ax && ax.axisPointerModel.option.value, label = o.xAxis[0].data[i];
  const legend = document.getElementById("legend-time").textContent, hover = document.getElementById("legend").dataset.hover;
  if (ax && ax.axisPointerModel.option.status === "hide") return hover === "false" ? "" : "no crosshair, but the legend shows the hovered " + legend;
  return legend === label + " UTC" ? "" : "crosshair on " + i + " (" + label + "), legend on " + legend;
})()`
		tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := chromedp.Run(tctx, chromedp.Poll(jsAgree+` === ""`, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			t.Errorf("after Home and the older candles: %s", evalJS[string](t, ctx, jsAgree))
		}
		// Home goes on loading older chunks, and each one that lands hides
		// the crosshair again until the pointer moves: move it until a
		// move finds the legend and the crosshair on one candle.
		msg := "the legend never showed the hovered candle"
		for try := 0; try < 50 && msg != ""; try++ {
			if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, grid.X+grid.Width*0.3+float64(try%2), grid.Y+grid.Height/2)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			if evalJS[bool](t, ctx, `document.getElementById("legend").dataset.hover === "true"`) {
				msg = evalJS[string](t, ctx, jsAgree)
			}
		}
		if msg != "" {
			t.Errorf("pointing again after Home: %s", msg)
		}
	})
}

// TestChartEmbedAt320x240 opens a chart embed the size of a small widget:
// it names its contract and period, draws candles, keeps its price labels
// apart, its legend to one line and its time labels clear of the slider.
func TestChartEmbedAt320x240(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(320, 240, 1, false),
		chromedp.Navigate(s.URL+"/embed/chart?contract_code=ETH-USDT&period=5min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `!!document.querySelector("#legend .legend-item") && document.querySelector(".embed").classList.contains("embed-compact")`)
	title := evalJS[struct {
		Text               string
		Top, Bottom, Right float64
	}](t, ctx, `(() => { const e = document.getElementById("embed-title"), r = e.getBoundingClientRect(); return {text: e.textContent, top: r.top, bottom: r.bottom, right: r.right}; })()`)
	if title.Text != "ETH-USDT · 5min" || title.Top < 0 || title.Bottom > 40 || title.Right > 320 {
		t.Errorf("the embed's title %+v, want “ETH-USDT · 5min” in its top 40 px", title)
	}
	if n := evalJS[int](t, ctx, jsCandleCount); n == 0 {
		t.Error("no candles")
	}
	grid := evalJS[struct{ X, Y, Width, Height float64 }](t, ctx, jsPriceGrid)
	if grid.Height < 80 {
		t.Errorf("the price grid is %.0f px high, want 80 at least", grid.Height)
	}
	// Price labels: few, and each at least a line from the next.
	ticks := evalJS[[]float64](t, ctx, `(() => {
  const c = `+jsChart+`, ax = c.getModel().getComponent("yAxis", 0).axis;
  return ax.getTicksCoords().map(t => t.coord);
})()`)
	font := evalJS[float64](t, ctx, `(() => { const l = `+jsChart+`.getOption().yAxis[0].axisLabel; return (l && l.fontSize) || 12; })()`)
	if len(ticks) > 6 || len(ticks) < 2 {
		t.Errorf("%d price labels on a %.0f px grid, want 2 to 6", len(ticks), grid.Height)
	}
	for i := 1; i < len(ticks); i++ {
		if gap := math.Abs(ticks[i-1] - ticks[i]); gap < font+2 {
			t.Errorf("price labels %d and %d are %.0f px apart, under a line of %.0f px", i-1, i, gap, font+2)
		}
	}
	// Volume labels: a line apart too, on its thin pane, whatever the volumes.
	crowded := evalJS[string](t, ctx, `(() => {
  const c = `+jsChart+`, ax = c.getModel().getComponent("yAxis", 1);
  const label = c.getOption().yAxis[1].axisLabel || {}, font = label.fontSize || 12;
  const up = c.getOption().series[1].data, down = c.getOption().series[2].data;
  const scaled = (d, k) => d.map((v) => (v === "-" ? v : v * k));
  const bad = [];
  for (const k of [0.001, 0.01, 0.3, 1, 3, 7, 50, 1000, 1e5]) {
    c.setOption({ series: [{}, { data: scaled(up, k) }, { data: scaled(down, k) }] });
    const ticks = ax.axis.getTicksCoords().map((t) => t.coord).slice(label.showMinLabel === false ? 1 : 0); // the zero's label may go unwritten
    if (ticks.some((y, i) => i > 0 && Math.abs(ticks[i - 1] - y) < font + 2)) bad.push(ticks.length + " labels at volumes ×" + k);
    // The two axes share the chart's right edge: the volume's top label keeps a line from the price's lowest.
    const global = (a) => a.getTicksCoords().map((t) => a.toGlobalCoord(t.coord));
    const gap = Math.min(...global(ax.axis)) - Math.max(...global(c.getModel().getComponent("yAxis", 0).axis));
    if (gap < font + 2) bad.push("the top volume label " + gap.toFixed(0) + " px under the lowest price label at volumes ×" + k);
  }
  c.setOption({ series: [{}, { data: up }, { data: down }] });
  return bad.join("; ");
})()`)
	if crowded != "" {
		t.Errorf("the volume axis's labels run into each other: %s", crowded)
	}
	legend := evalJS[float64](t, ctx, `document.getElementById("legend").getBoundingClientRect().height`)
	if legend > 24 {
		t.Errorf("the legend is %.0f px high: more than a line", legend)
	}
	if bottom := evalJS[float64](t, ctx, `document.getElementById("legend").getBoundingClientRect().bottom`); bottom > grid.Y+0.5 {
		t.Errorf("the legend ends at %.0f, below the price grid's top %.0f", bottom, grid.Y)
	}
	// The time labels end inside the embed, and no slider lies over them.
	clear := evalJS[string](t, ctx, `(() => {
  const c = `+jsChart+`, o = c.getOption(), r = document.getElementById("chart").getBoundingClientRect();
  const vol = c.getModel().getComponent("grid", 1).coordinateSystem.getRect();
  const labelsBottom = r.top + vol.y + vol.height + 4 + 14;
  if (labelsBottom > innerHeight) return "time labels end at " + labelsBottom.toFixed(0) + ", below the embed's " + innerHeight;
  const slider = o.dataZoom.find(z => z.type === "slider");
  if (slider && slider.show !== false) return "a slider is shown over the time labels";
  return "";
})()`)
	if clear != "" {
		t.Error(clear)
	}
	if covered := evalJS[string](t, ctx, jsTimeLabelsCovered); covered != "" {
		t.Errorf("the embed lies over time labels: %s", covered)
	}
	screenshot(t, ctx, "embed-chart-320x240")
	// The price labels stay few over any price range, not only today's: the
	// shown candles' prices are stretched to spans over four decades, from
	// six bases, and each range is drawn with the page's own options
	// (ECharts rounds the interval it is asked for to a nice number and
	// widens the axis to whole intervals: see chartopt.Compact).
	sweep := evalJS[struct {
		Ranges  int
		Crowded []string
	}](t, ctx, `(() => {
  const c = `+jsChart+`, font = `+strconv.FormatFloat(font, 'f', -1, 64)+`;
  const data = c.getOption().series[0].data.filter(Array.isArray).map((d) => d.map(Number)); // the live candle may be held out
  const lo = Math.min(...data.map((d) => d[2])), hi = Math.max(...data.map((d) => d[3]));
  const bad = [];
  let ranges = 0;
  for (const base of [1, 7.77, 1234.5, 50000.07, 98765, 3e6 + 0.3]) {
    for (let i = 0; i <= 40; i++) {
      const span = Math.pow(10, -1 + i / 10); // 0.1 to 1000
      const k = span / (hi - lo);
      ranges++;
      c.setOption({ series: [{ data: data.map((d) => d.map((v) => base + (v - lo) * k)) }] });
      const ticks = c.getModel().getComponent("yAxis", 0).axis.getTicksCoords().map((t) => t.coord);
      const close = ticks.some((y, j) => j > 0 && Math.abs(ticks[j - 1] - y) < font + 2);
      if (ticks.length < 2 || ticks.length > 6 || close) {
        bad.push(ticks.length + " labels for prices " + base + " to " + (base + span).toPrecision(6));
      }
    }
  }
  return { ranges, crowded: bad };
})()`)
	if len(sweep.Crowded) > 0 {
		t.Errorf("%d price ranges of %d crowd the embed's price axis, as %q", len(sweep.Crowded), sweep.Ranges, sweep.Crowded[:min(3, len(sweep.Crowded))])
	}
}
