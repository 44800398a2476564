package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// The chart page in a real browser against the whole server and its sandbox.

const jsChart = `echarts.getInstanceByDom(document.getElementById("chart"))`

// jsItemValue reads an element of a series' data as its value: the chart
// hands ECharts its newest candle and volume bar as items ({value,
// itemStyle: {opacity: 0}}) that its live layer draws over
// (app/echarts/live.go); every other element is a value already.
const jsItemValue = `((d) => (d !== null && typeof d === "object" && !Array.isArray(d) ? d.value : d))`

// jsChartBox is the chart element's box in the window, as JSON: tests
// compare it before and after what must not move the chart.
const jsChartBox = `JSON.stringify(document.getElementById("chart").getBoundingClientRect())`

// jsPriceGrid is the price pane's box in page coordinates ({x, y, width,
// height}), where ECharts draws the candles.
const jsPriceGrid = `(() => {
  const r = document.getElementById("chart").getBoundingClientRect(), g = ` + jsChart + `.getModel().getComponent("grid", 0).coordinateSystem.getRect();
  return {x: r.left + g.x, y: r.top + g.y, width: g.width, height: g.height};
})()`

// drawnAt is what waitDrawn waits for on the page at path, whose query
// names its contract and period: "contract|period".
func drawnAt(path string) string {
	q, _ := url.ParseQuery(path[strings.Index(path, "?")+1:])
	return q.Get("contract_code") + "|" + q.Get("period")
}

// waitDrawn waits until the chart shows contract|period.
func waitDrawn(t *testing.T, ctx context.Context, shown string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	js := fmt.Sprintf(`(() => { const s = document.querySelector(".kchart"); return !!s && s.dataset.drawn === %q })()`, shown)
	if err := chromedp.Run(tctx, chromedp.Poll(js, nil, chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		var status string
		chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText`, &status))
		t.Fatalf("chart did not show %s: %v; page says %q", shown, err, status)
	}
}

func evalJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &v)); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func apiCandles(t *testing.T, base, query string) []venueapi.Candle {
	t.Helper()
	var env venueapi.KLineEnvelope
	getJSON(t, base+venueapi.PathKLine+"?"+query, &env)
	if env.Status != "ok" {
		t.Fatalf("%s: %+v", query, env)
	}
	return env.Data
}

// jsLiveLayer reads the chart's own drawing of its newest candle
// (app/echarts/live.go) and what is wrong with it, if anything: it must show
// the legend's newest candle where ECharts' axes put those numbers, in the
// candle's colour, inside its grids, under the crosshair, over ECharts' own
// copy, hidden.
const jsLiveLayer = `(() => {
  const c = ` + jsChart + `, o = c.getOption(), n = o.series[0].data.length;
  ` + jsEChartsNewest + `;
  const el = (name) => c.getZr().storage.getRoots().find((e) => e.name === name);
  const wick = el("live-wick"), body = el("live-body"), bar = el("live-bar");
  const legend = (f) => Number(document.getElementById("legend-" + f).textContent.replaceAll(",", ""));
  const [open, high, low, close, vol] = ["open", "high", "low", "close", "vol"].map(legend);
  const px = (grid, v) => c.convertToPixel({gridIndex: grid}, [n - 1, v]);
  const off = (a, b) => Math.abs(a - b) > 0.01;
  const drawn = wick && body && bar ? JSON.stringify([wick.shape, body.shape, bar.shape]) : "";
  const problem = (() => {
    if (!drawn || wick.ignore || body.ignore) return "the live layer draws nothing";
    // ECharts draws its crosshair at z 50 on the canvas of zlevel 0.
    if ([wick, body, bar].some((e) => e.zlevel !== 0 || e.z >= 50)) return "drawn over the crosshair: zlevel " + body.zlevel + ", z " + body.z;
    const copy = [0, 1, 2].map(jsEChartsNewest);
    if (copy.some((d) => d.index !== n - 1 || d.opacity !== 0)) return "ECharts' copy of the newest candle is not hidden: " + JSON.stringify(copy);
    const [x, yHigh] = px(0, high), yLow = px(0, low)[1], yOpen = px(0, open)[1], yClose = px(0, close)[1];
    // ECharts puts a wick on the pixel grid as zrender's subPixelOptimize(x, 1) does: up to 0.75 px off.
    const d = Math.round(x * 2), wickX = (d + 1) % 2 === 0 ? d / 2 : (d - 1) / 2;
    if (off(wick.shape.y1, yHigh) || off(wick.shape.y2, yLow) || off(wick.shape.x1, wickX)) return "wick " + JSON.stringify(wick.shape) + " for high " + high + " low " + low + " at " + [x, yHigh, yLow];
    if (off(body.shape.y, Math.min(yOpen, yClose)) || off(body.shape.height, Math.abs(yOpen - yClose))) return "body " + JSON.stringify(body.shape) + " for open " + open + " close " + close;
    const want = close > open ? "up" : close < open ? "down" : "";
    const colour = body.style.fill === o.series[1].itemStyle.color ? "up" : body.style.fill === o.series[2].itemStyle.color ? "down" : body.style.fill;
    if (want && colour !== want) return "a " + want + " candle drawn " + colour;
    for (const [grid, ys] of [[0, [yHigh, yLow]], [1, [bar.shape.y, bar.shape.y + bar.shape.height]]]) {
      if (ys.some((y) => !c.containPixel({gridIndex: grid}, [x, y]))) return "drawn out of grid " + grid + ": " + ys;
    }
    if (vol > 0 && (bar.ignore || off(bar.shape.y, px(1, vol)[1]))) return "volume bar " + JSON.stringify(bar.shape) + " for " + vol;
    return "";
  })();
  return {problem, drawn};
})()`

// jsEChartsNewest is a function returning what ECharts holds (its data, not
// the option, which shares the app's arrays) of the last candle in view of
// series i: its index, values and item opacity.
const jsEChartsNewest = `function jsEChartsNewest(i) {
  const d = ` + jsChart + `.getModel().getSeriesByIndex(i).getData(), last = d.count() - 1;
  const [index, ...values] = d.getValues(last);
  return {index, values, opacity: d.getItemModel(last).get(["itemStyle", "opacity"])};
}`

func TestChartInTheBrowser(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")

	t.Run("every period draws its candles and goes into the URL", func(t *testing.T) {
		for _, p := range venueapi.Periods() {
			if p.Canonical() != p {
				continue // one chip per series: 1hour is 60min's other name
			}
			if err := chromedp.Run(ctx, chromedp.Click(fmt.Sprintf(`[data-period=%q]`, p), chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|"+string(p))
			// The chart's count and its newest candle are read together: a
			// period boundary may pass between this and the API's answers,
			// and the live chart then rightly holds one candle more.
			var n int
			var last int64
			fmt.Sscanf(evalJS[string](t, ctx, jsChart+`.getOption().series[0].data.length + " " + document.getElementById("legend").dataset.id`), "%d %d", &n, &last)
			if latest := len(apiCandles(t, s.URL, "contract_code=BTC-USDT&period="+string(p)+"&size=300")); n < latest {
				t.Errorf("%s: chart holds %d candles, the API's latest page has %d", p, n, latest)
			}
			first := last
			for i := 1; i < n; i++ {
				first = p.Prev(first)
			}
			span := apiCandles(t, s.URL, fmt.Sprintf("contract_code=BTC-USDT&period=%s&from=%d&to=%d", p, first, last))
			if len(span) != n || span[len(span)-1].ID != last {
				t.Errorf("%s: chart holds %d candles up to %d, the API has %d over the same span", p, n, last, len(span))
			}
			if u := evalJS[string](t, ctx, `location.search`); !strings.Contains(u, "period="+string(p)) {
				t.Errorf("%s: URL %q", p, u)
			}
		}
		screenshot(t, ctx, "chart-periods-1mon")
		click(t, ctx, `[data-period="1min"]`)
		waitDrawn(t, ctx, "BTC-USDT|1min")
	})

	t.Run("the legend shows the API's numbers of the candle under the pointer", func(t *testing.T) {
		// Point at a candle in the middle of the view.
		var x, y float64
		box := evalJS[map[string]float64](t, ctx, `(() => { const r = document.getElementById("chart").getBoundingClientRect(); return {x: r.left + r.width * 0.5, y: r.top + r.height * 0.3}; })()`)
		x, y = box["x"], box["y"]
		if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, x, y)); err != nil {
			t.Fatal(err)
		}
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		latest := evalJS[int](t, ctx, jsChart+`.getOption().xAxis[0].data.length`)
		if err := chromedp.Run(tctx, chromedp.Poll(`document.getElementById("legend").dataset.hover === "true"`, nil)); err != nil {
			t.Fatalf("the legend does not follow the pointer (%d candles): %v", latest, err)
		}
		id := evalJS[string](t, ctx, `document.getElementById("legend").dataset.id`)
		want := apiCandles(t, s.URL, "contract_code=BTC-USDT&period=1min&from="+id+"&to="+id)
		if len(want) != 1 {
			t.Fatalf("no API candle %s", id)
		}
		c := want[0]
		change, pct := c.Close.Sub(c.Open), "—"
		if !c.Open.IsZero() {
			pct = change.Shift(2).DivRound(c.Open, 2).StringFixed(2) + "%"
		}
		sign := map[bool]string{true: "+"}[change.IsPositive()]
		for field, value := range map[string]string{
			"open": chartopt.Group(c.Open.StringFixed(1)), "high": chartopt.Group(c.High.StringFixed(1)), "low": chartopt.Group(c.Low.StringFixed(1)), "close": chartopt.Group(c.Close.StringFixed(1)),
			"change": sign + chartopt.Group(change.StringFixed(1)), "change-pct": sign + pct,
			"vol": chartopt.Group(c.Vol.String()), "amount": chartopt.Group(c.Amount.String()), "count": chartopt.Group(c.Count.String()), "turnover": chartopt.Group(c.TradeTurnover.String()),
		} {
			if got := evalJS[string](t, ctx, `document.getElementById("legend-`+field+`").textContent`); got != value {
				t.Errorf("legend %s = %q, the API says %q", field, got, value)
			}
		}
		screenshot(t, ctx, "chart-legend")
	})

	t.Run("volume bars take their candle's colour, and the price axis fits the candles in view", func(t *testing.T) {
		// Every candle has one volume bar, in the series of its direction,
		// drawn in the candle's colour.
		if problem := evalJS[string](t, ctx, `(() => {
  const o = `+jsChart+`.getOption(), [price, up, down] = o.series;
  const val = `+jsItemValue+`;
  if (up.itemStyle.color !== price.itemStyle.color || down.itemStyle.color !== price.itemStyle.color0) return "bar colours " + [up.itemStyle.color, down.itemStyle.color] + " for candles " + [price.itemStyle.color, price.itemStyle.color0];
  for (let i = 0; i < price.data.length; i++) {
    const [open, close] = val(price.data[i]), rising = close >= open, [u, d] = [val(up.data[i]), val(down.data[i])];
    if ((u !== "-") !== rising || (d !== "-") === rising) return "candle " + i + " (" + open + " to " + close + ") has bars " + [u, d];
  }
  return "";
})()`); problem != "" {
			t.Error(problem)
		}
		// Zoomed to twenty recent candles, then to twenty far back, the price
		// axis spans their lows and highs, and not all the candles'. (Not the
		// newest: a view ending on it would follow a candle appended meanwhile.)
		jsFit := `(() => {
  const c = ` + jsChart + `, [first, last] = ` + jsInView + `, data = c.getOption().series[0].data;
  const val = ` + jsItemValue + `, shown = data.slice(first, last + 1).map(val);
  const [lo, hi] = [Math.min(...shown.map((d) => d[2])), Math.max(...shown.map((d) => d[3]))];
  const all = [Math.min(...data.map((d) => val(d)[2])), Math.max(...data.map((d) => val(d)[3]))];
  const [min, max] = c.getModel().getComponent("yAxis", 0).axis.scale.getExtent();
  return {lo, hi, min, max, all};
})()`
		n := evalJS[int](t, ctx, jsChart+`.getOption().series[0].data.length`)
		for _, r := range [][2]int{{n - 60, n - 41}, {10, 29}} {
			do(t, ctx, fmt.Sprintf(`%s.dispatchAction({type: "dataZoom", startValue: %d, endValue: %d})`, jsChart, r[0], r[1]))
			waitFor(t, ctx, fmt.Sprintf(`JSON.stringify(%s) === "[%d,%d]"`, jsInView, r[0], r[1]))
			var fit struct {
				Lo, Hi, Min, Max float64
				All              [2]float64
			}
			if err := chromedp.Run(ctx, chromedp.Evaluate(jsFit, &fit)); err != nil {
				t.Fatal(err)
			}
			if fit.Min > fit.Lo || fit.Max < fit.Hi || fit.Max-fit.Min > 2*(fit.Hi-fit.Lo) {
				t.Errorf("candles %v range from %v to %v, the price axis from %v to %v (all candles: %v)", r, fit.Lo, fit.Hi, fit.Min, fit.Max, fit.All)
			}
		}
		click(t, ctx, `#jump-latest`)
	})

	t.Run("the current candle updates live, drawn alone where ECharts' axes put it, under the crosshair", func(t *testing.T) {
		// The pointer leaves the chart: the legend shows the newest candle.
		if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 1, 1)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.getElementById("legend").dataset.hover !== "true"`)
		for _, view := range []struct {
			name  string
			shown int // candles in view, the newest last
		}{{"the default view", 0}, {"two candles, the price axis as tight as it gets", 2}, {"twelve candles", 12}} {
			if view.shown > 0 {
				do(t, ctx, fmt.Sprintf(`(() => { const n = %s.getOption().series[0].data.length; %s.dispatchAction({type: "dataZoom", startValue: n - %d, endValue: n - 1}); })()`, jsChart, jsChart, view.shown))
			}
			// Over several live updates (a new high or low may leave the
			// axes' range: ECharts then gets the series again and rescales),
			// the layer shows the legend's candle and stays in its grids.
			var drawn []string
			for len(drawn) < 4 {
				var got struct{ Problem, Drawn string }
				tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				err := chromedp.Run(tctx, chromedp.Poll(jsLiveLayer+`.drawn !== `+strconv.Quote(strings.Join(drawn[max(len(drawn)-1, 0):], "")), nil, chromedp.WithPollingInterval(50*time.Millisecond)),
					chromedp.Poll(jsLiveLayer+`.problem === ""`, nil, chromedp.WithPollingInterval(20*time.Millisecond)))
				cancel()
				if readErr := chromedp.Run(ctx, chromedp.Evaluate(jsLiveLayer, &got)); err == nil {
					err = readErr
				}
				if err != nil {
					t.Fatalf("%s: after %d live updates: %v: %s", view.name, len(drawn), err, got.Problem)
				}
				drawn = append(drawn, got.Drawn)
			}
			screenshot(t, ctx, "chart-live-"+strconv.Itoa(view.shown))
		}
		// Out of range for good: a price axis pinned above the candle. Each
		// live update hands ECharts the series again, whose copy of the
		// newest candle then follows the legend, and the layer draws nothing.
		do(t, ctx, jsChart+`.setOption({yAxis: [{min: 1e9, max: 2e9}]})`)
		waitFor(t, ctx, `(() => {
  `+jsEChartsNewest+`;
  const v = jsEChartsNewest(0).values;
  const legend = ["open", "close", "low", "high"].map((f) => Number(document.getElementById("legend-" + f).textContent.replaceAll(",", "")));
  return JSON.stringify(v) === JSON.stringify(legend) && `+jsChart+`.getZr().storage.getRoots().filter((e) => e.name && e.name.startsWith("live-")).every((e) => e.ignore);
})()`)
		do(t, ctx, jsChart+`.setOption({yAxis: [{min: null, max: null}]})`)
		waitFor(t, ctx, jsLiveLayer+`.problem === ""`)
		if err := chromedp.Run(ctx, chromedp.Evaluate(jsChart+`.dispatchAction({type: "dataZoom", start: 70, end: 100})`, nil)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("panning past the oldest candle loads older ones without gaps or duplicates", func(t *testing.T) {
		n := evalJS[int](t, ctx, jsChart+`.getOption().series[0].data.length`)
		do(t, ctx, jsChart+`.dispatchAction({type: "dataZoom", startValue: 0, endValue: 60})`)
		tctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Run(tctx, chromedp.Poll(fmt.Sprintf(`%s.getOption().series[0].data.length >= %d`, jsChart, n+2000), nil)); err != nil {
			t.Fatalf("older candles did not load: %v", err)
		}
		labels := evalJS[[]string](t, ctx, jsChart+`.getOption().xAxis[0].data`)
		if i := notAMinuteApart(labels); i > 0 {
			t.Fatalf("labels %d and %d: %q then %q, not one minute apart", i-1, i, labels[i-1], labels[i])
		}
		start := evalJS[int](t, ctx, jsChart+`.getOption().dataZoom[0].startValue`)
		if start < 1900 {
			t.Errorf("the view jumped: it starts at %d after prepending 2000", start)
		}
		screenshot(t, ctx, "chart-back-scroll")
		click(t, ctx, `#jump-latest`)
	})

	t.Run("another listed contract, and an unknown one, and a malformed one", func(t *testing.T) {
		do(t, ctx, `(() => { const s = document.getElementById("contract-select"); s.value = "ETH-USDT"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
		waitDrawn(t, ctx, "ETH-USDT|1min")
		close := evalJS[string](t, ctx, `document.getElementById("legend-close").textContent`)
		if i := strings.IndexByte(close, '.'); i < 0 || len(close)-i-1 != 2 {
			t.Errorf("ETH close %q is not at the contract's precision of 2", close)
		}
		enter := func(code string) {
			do(t, ctx, fmt.Sprintf(`(() => { const i = document.getElementById("contract-input"); i.value = %q; i.dispatchEvent(new Event("input", {bubbles: true})); })()`, code))
			click(t, ctx, `#contract-form button`)
		}
		enter("ABC-USDT")
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := chromedp.Run(tctx, chromedp.Poll(`(document.getElementById("chart-status") || {}).textContent?.includes("does not know the contract ABC-USDT")`, nil)); err != nil {
			t.Fatalf("no message for an unknown contract: %v", err)
		}
		screenshot(t, ctx, "chart-unknown-contract")
		enter("btc usdt")
		if err := chromedp.Run(tctx, chromedp.Poll(`!!document.getElementById("contract-error")`, nil)); err != nil {
			t.Fatalf("no message for a malformed code: %v", err)
		}
		field := `document.getElementById("contract-input").value`
		if got := evalJS[string](t, ctx, field); got != "btc usdt" {
			t.Errorf("a malformed code left the field %q, want it as typed", got)
		}
		enter("BTC-USDT-CQ")
		waitDrawn(t, ctx, "BTC-USDT-CQ|1min")
		// The code taken, the field empties: the picker names the contract on show.
		if got := evalJS[string](t, ctx, field); got != "" {
			t.Errorf("the field holds %q once its code is on show, want it empty", got)
		}
	})

	t.Run("zone and theme toggles, and the URL restores the view after a reload", func(t *testing.T) {
		click(t, ctx, `[data-period="5min"]`)
		waitDrawn(t, ctx, "BTC-USDT-CQ|5min")
		click(t, ctx, `#tz-toggle`)
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := chromedp.Run(tctx, chromedp.Poll(`document.getElementById("legend-time").textContent.endsWith("UTC")`, nil)); err != nil {
			t.Fatalf("times are not in UTC: %v", err)
		}
		click(t, ctx, `#theme-toggle`) // auto, light, dark
		waitFor(t, ctx, `document.getElementById("theme-toggle").textContent === "Theme: light"`)
		click(t, ctx, `#theme-toggle`)
		if theme := evalJS[string](t, ctx, `document.documentElement.dataset.theme || ""`); theme != "dark" {
			t.Fatalf("theme %q after two toggles, want dark", theme)
		}
		waitFor(t, ctx, jsLiveLayer+`.problem === ""`) // the newest candle drawn again in the new frame
		screenshot(t, ctx, "chart-dark-utc")
		u := evalJS[string](t, ctx, `location.search`)
		for _, want := range []string{"contract_code=BTC-USDT-CQ", "period=5min", "tz=utc", "theme=dark"} {
			if !strings.Contains(u, want) {
				t.Errorf("URL %q lacks %s", u, want)
			}
		}
		if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT-CQ|5min")
		if evalJS[string](t, ctx, `document.documentElement.dataset.theme || ""`) != "dark" ||
			!evalJS[bool](t, ctx, `document.getElementById("legend-time").textContent.endsWith("UTC")`) ||
			evalJS[string](t, ctx, `document.querySelector('[data-period="5min"]').getAttribute("aria-pressed")`) != "true" {
			t.Fatal("the reload did not restore contract, period, zone and theme")
		}
	})
}

// notAMinuteApart returns the first index of minute labels ("01-02 15:04")
// that is not one minute after the one before, or 0 when all are.
func notAMinuteApart(labels []string) int {
	for i := 1; i < len(labels); i++ {
		a, errA := time.Parse("01-02 15:04", labels[i-1])
		b, errB := time.Parse("01-02 15:04", labels[i])
		if errA != nil || errB != nil || b.Sub(a) != time.Minute {
			return i
		}
	}
	return 0
}
