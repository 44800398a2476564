package e2e

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
	"github.com/chromedp/chromedp/kb"
)

// unroundLabels says which of a log axis' labels, in ascending order, is
// not a round price by chartopt.LogTicks' rule: each label a multiple of a
// step of 1, 2, 2.5 or 5 times a power of ten, the step no finer than the
// label's gap to its nearer neighbour. How many digits that takes depends on
// the prices in view: a quiet hour of BTC's minutes is labelled every 25
// (93,275), two years' every 10,000. "" when every label is round.
func unroundLabels(labels []string) string {
	vs := make([]float64, len(labels))
	for i, l := range labels {
		v, err := strconv.ParseFloat(strings.ReplaceAll(l, ",", ""), 64)
		if err != nil || !(v > 0) {
			return fmt.Sprintf("label %q is not a price", l)
		}
		if i > 0 && !(v > vs[i-1]) {
			return fmt.Sprintf("label %q is not above the one before it", l)
		}
		vs[i] = v
	}
	for i, v := range vs {
		gap := math.Inf(1)
		if i > 0 {
			gap = v - vs[i-1]
		}
		if i+1 < len(vs) {
			gap = min(gap, vs[i+1]-v)
		}
		if math.IsInf(gap, 0) {
			return "a single label"
		}
		if !onNiceStep(v, gap) {
			return fmt.Sprintf("label %q is not a multiple of a step of 1, 2, 2.5 or 5 times a power of ten at least its gap (%v) to a neighbour", labels[i], gap)
		}
	}
	return ""
}

// onNiceStep reports whether v is a multiple of a step of 1, 2, 2.5 or 5
// times a power of ten that is at least gap.
func onNiceStep(v, gap float64) bool {
	for p := math.Pow(10, math.Floor(math.Log10(gap))); p <= v; p *= 10 {
		for _, m := range []float64{1, 2, 2.5, 5} {
			if step := m * p; step >= gap*(1-1e-9) && math.Abs(v/step-math.Round(v/step)) < 1e-6 {
				return true
			}
		}
	}
	return false
}

// TestUnroundLabels holds the browser test's rule for a log axis' labels
// to chartopt.LogTicks' own: the labels it writes pass, however many digits
// they take, and labels off their step do not.
func TestUnroundLabels(t *testing.T) {
	for _, tc := range []struct {
		labels []string
		bad    string // the label named, "" for none
	}{
		{[]string{"93,250.0", "93,275.0", "93,300.0", "93,325.0", "93,350.0"}, ""},
		{[]string{"96,800.0", "97,000.0", "97,200.0", "97,400.0"}, ""},
		{[]string{"60,000.0", "70,000.0", "80,000.0", "90,000.0", "100,000.0", "120,000.0", "140,000.0"}, ""},
		{[]string{"5", "10", "50", "100", "500", "1,000", "2,000"}, ""},
		{[]string{"0.1235", "0.12375", "0.124", "0.12425"}, ""},
		{[]string{"93,250.0", "93,263.7", "93,275.0", "93,300.0"}, "93,263.7"},
		{[]string{"93,210.0", "93,235.0", "93,260.0", "93,285.0"}, "93,210.0"},
		{[]string{"10,000.0", "100,000.0"}, "10,000.0"},
		{[]string{"93,300.0", "93,250.0"}, "93,250.0"},
		{[]string{"93,250.0", "—"}, "—"},
	} {
		got := unroundLabels(tc.labels)
		if tc.bad == "" && got != "" || tc.bad != "" && !strings.Contains(got, strconv.Quote(tc.bad)) {
			t.Errorf("unroundLabels(%q) = %q, want it to name %q", tc.labels, got, tc.bad)
		}
	}
}

// jsLook reads what the chart draws of the view's look (app/chartopt/look.go)
// and marks (app/echarts/lastprice.go): the price axis' type, the candles'
// rising fill, the last-price tag's text and colour, the line's height and
// the newest close's, and the labels the axes show.
const jsLook = `(() => {
  const c = ` + jsChart + `, o = c.getOption(), n = o.series[0].data.length;
  const el = (name) => c.getZr().storage.getRoots().find((e) => e.name === name);
  const line = el("last-price-line"), tag = el("last-price-tag");
  const last = o.series[0].data[n - 1], v = Array.isArray(last) ? last : last.value;
  const axis = c.getModel().getComponent("yAxis", 0).axis, time = c.getModel().getComponent("xAxis", 1).axis;
  return {
    yType: o.yAxis[0].type, upFill: o.series[0].itemStyle.color, up: o.series[1].itemStyle.color, down: o.series[2].itemStyle.color,
    close: Number(document.getElementById("legend-close").textContent.replaceAll(",", "")), dir: document.getElementById("legend").classList.contains("up") ? "up" : "down",
    tag: tag && !tag.ignore ? tag.style.text : "", tagColour: tag ? tag.style.backgroundColor : "",
    lineY: line && !line.ignore ? line.shape.y1 : -1, closeY: c.convertToPixel({gridIndex: 0}, [n - 1, Number(document.getElementById("legend-close").textContent.replaceAll(",", ""))])[1],
    priceLabels: axis.getViewLabels().map((l) => l.formattedLabel),
    timeLabels: time.getViewLabels().map((l) => l.formattedLabel),
    volumeLabels: c.getModel().getComponent("yAxis", 1).axis.getViewLabels().map((l) => l.formattedLabel),
    notice: (document.getElementById("view-notice") || {}).textContent || "",
    url: location.search,
  };
})()`

// untilTagAgreesWithLegend waits, up to 20 s, for the last-price tag to name
// the close the legend shows (on the percent scale, the price before its
// percent), and for the tag to hold the countdown when withCountdown, and
// returns the chart's look (jsLook) as it was then. A live trade moves the
// tag and the line at once and the legend a moment later, so a check takes
// the look in which they agree, not one read again after: a trade between
// the two reads would part them. When they never agree, it returns the look
// as it is, for the caller's checks to report.
func untilTagAgreesWithLegend(t *testing.T, ctx context.Context, withCountdown bool) map[string]any {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var l map[string]any
	err := chromedp.Run(tctx, chromedp.Poll(`(() => { const l = `+jsLook+`;
  return (!`+strconv.FormatBool(withCountdown)+` || l.tag.includes("\n")) && Number(l.tag.split("\n")[0].split(" (")[0].replaceAll(",", "")) === l.close && l; })()`, &l))
	if err != nil {
		return evalJS[map[string]any](t, ctx, jsLook)
	}
	return l
}

func TestChartLooksAndMarksFromTheURL(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	read := func(t *testing.T, path string) map[string]any {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+path)); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1min")
		return evalJS[map[string]any](t, ctx, jsLook)
	}
	t.Run("the default draws filled candles on a linear axis with the last price marked", func(t *testing.T) {
		l := read(t, "/?contract_code=BTC-USDT&period=1min")
		if l["yType"] != "value" || l["upFill"] != l["up"] {
			t.Errorf("default look: %v", l)
		}
		// The countdown is written once a second.
		l = untilTagAgreesWithLegend(t, ctx, true)
		// The legend shows the newest candle (nothing hovered); the tag writes
		// its close with thousands separators, the countdown under it.
		close, _ := l["close"].(float64)
		tag, _ := l["tag"].(string)
		head, left, _ := strings.Cut(tag, "\n")
		if v, err := strconv.ParseFloat(strings.ReplaceAll(head, ",", ""), 64); err != nil || v != close || !strings.Contains(head, ",") {
			t.Errorf("last-price tag %q for close %v", tag, close)
		}
		// A minute candle has 1 to 60 seconds left: "42s", or "1:00" in its
		// first second (chartopt.TimeLeft).
		secs, inSeconds := strings.CutSuffix(left, "s")
		if n, err := strconv.Atoi(secs); left != "1:00" && (!inSeconds || err != nil || n < 1 || n > 59) {
			t.Errorf("no time left under the last price (1min candle): tag %q", tag)
		}
		want := l[l["dir"].(string)]
		if l["tagColour"] != want {
			t.Errorf("tag coloured %v, the candle is %v (%v)", l["tagColour"], l["dir"], want)
		}
		if dy := l["lineY"].(float64) - l["closeY"].(float64); dy > 0.5 || dy < -0.5 {
			t.Errorf("last-price line at y %v, the close is at %v", l["lineY"], l["closeY"])
		}
		// ECharts lists the view's edge candles too and hides them when off the interval.
		times := l["timeLabels"].([]any)
		if len(times) < 3 {
			t.Fatalf("time labels %v", times)
		}
		for _, lbl := range times[1 : len(times)-1] {
			hm := lbl.(string)[len(lbl.(string))-2:]
			if hm != "00" && hm != "15" && hm != "30" && hm != "45" {
				t.Errorf("time label %q is not on a quarter hour (labels %v)", lbl, l["timeLabels"])
			}
		}
		if len(l["volumeLabels"].([]any)) == 0 {
			t.Errorf("the volume pane has no scale")
		}
	})
	t.Run("scale=log and style=hollow are drawn and stay in the URL", func(t *testing.T) {
		l := read(t, "/?contract_code=BTC-USDT&period=1min&scale=log&style=hollow")
		if l["yType"] != "log" || l["upFill"] != "transparent" {
			t.Errorf("log and hollow: %v", l)
		}
		if u := l["url"].(string); !strings.Contains(u, "scale=log") || !strings.Contains(u, "style=hollow") {
			t.Errorf("URL %q lost the look", u)
		}
	})
	t.Run("a log axis spans the prices in view, a day's or two years', and labels round prices", func(t *testing.T) {
		// ECharts widens a log axis to whole powers of ten and labels those
		// alone: a day's candles were a line along the top of an axis from
		// 10,000 to 100,000, with two labels. The newest candle, an item
		// (jsItemValue), counts: the axis spans it, and in a month that makes
		// a new low its low is the one in view.
		const jsLogAxis = `(() => {
  const c = ` + jsChart + `, o = c.getOption(), z = o.dataZoom[0];
  const rows = o.series[0].data.slice(z.startValue, z.endValue + 1).map(` + jsItemValue + `).filter(Array.isArray).map((d) => d.map(Number));
  const a = c.getModel().getComponent("yAxis", 0).axis, [min, max] = a.scale.getExtent();
  const ys = a.getTicksCoords().map((t) => t.coord), gaps = ys.slice(1).map((y, i) => Math.abs(y - ys[i]));
  return {low: Math.min(...rows.map((d) => d[2])), high: Math.max(...rows.map((d) => d[3])), min, max,
    labels: a.getViewLabels().map((l) => l.formattedLabel), closest: Math.min(...gaps)};
})()`
		type logAxis struct {
			Low, High, Min, Max float64
			Labels              []string
			Closest             float64
		}
		check := func(t *testing.T, view string, got logAxis) {
			t.Helper()
			if got.Min < got.Low*0.98 || got.Max > got.High*1.02 || got.Min > got.Low || got.Max < got.High {
				t.Errorf("%s: the log axis spans %v to %v, the candles in view %v to %v", view, got.Min, got.Max, got.Low, got.High)
			}
			if len(got.Labels) < 4 || got.Closest < 14 {
				t.Errorf("%s: labels %q, the closest %.0f px apart", view, got.Labels, got.Closest)
			}
			if bad := unroundLabels(got.Labels); bad != "" {
				t.Errorf("%s: %s (labels %q)", view, bad, got.Labels)
			}
		}
		for _, period := range []string{"1min", "1mon"} {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&scale=log&period="+period)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|"+period)
			check(t, period, evalJS[logAxis](t, ctx, jsLogAxis))
			// Zoomed to older candles, the axis and its labels follow.
			evalJS[bool](t, ctx, jsChart+`.dispatchAction({type: "dataZoom", start: 0, end: 40}) || true`)
			// The app hands the labels over after the zoom's render.
			waitFor(t, ctx, `((l) => l.labels.length >= 4 && l.min >= l.low * 0.98 && l.max <= l.high * 1.02)(`+jsLogAxis+`)`)
			check(t, period+" zoomed out to the oldest", evalJS[logAxis](t, ctx, jsLogAxis))
		}
	})
	t.Run("scale=percent labels the price axis in percent", func(t *testing.T) {
		l := read(t, "/?contract_code=BTC-USDT&period=1min&scale=percent")
		labels := l["priceLabels"].([]any)
		if len(labels) == 0 {
			t.Fatal("no price labels")
		}
		for _, lbl := range labels {
			if !strings.HasSuffix(lbl.(string), "%") {
				t.Errorf("percent axis label %q", lbl)
			}
		}
	})
	t.Run("a bad scale is named in a notice and the rest is drawn", func(t *testing.T) {
		l := read(t, "/?contract_code=BTC-USDT&period=1min&scale=foo&style=hollow")
		if n := l["notice"].(string); !strings.Contains(n, "scale=foo") || !strings.Contains(n, "linear, log or percent") {
			t.Errorf("notice %q", n)
		}
		if l["yType"] != "value" || l["upFill"] != "transparent" {
			t.Errorf("the rest of the look is not drawn: %v", l)
		}
	})
	t.Run("the embed takes the same parameters", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/chart?contract_code=BTC-USDT&period=1min&scale=log&style=hollow")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1min")
		l := evalJS[map[string]any](t, ctx, jsLook)
		if l["yType"] != "log" || l["upFill"] != "transparent" {
			t.Errorf("embed look: %v", l)
		}
	})
}

// jsStudies reads the study series the chart draws: name, type, grid and
// how many points it has, and the grids' boxes.
const jsStudies = `(() => {
  const c = ` + jsChart + `, o = c.getOption();
  return {
    // A line's data is [index, value] pairs, NaN where there is no point.
    series: o.series.slice(3).map((s) => {
      const v = Array.from(s.data).filter((_, i) => i % 2 === 1);
      return {name: s.name, type: s.type, axis: s.xAxisIndex, points: v.filter((x) => !Number.isNaN(x)).length, n: v.length};
    }),
    grids: o.grid.length, candles: o.series[0].data.length,
    // The RSI pane's scale as ECharts drew it.
    rsi: ((s) => {
      if (!s) {
        return null;
      }
      const a = c.getModel().getComponent("yAxis", s.yAxisIndex).axis;
      return {extent: a.scale.getExtent(), labels: a.getViewLabels().map((l) => l.formattedLabel)};
    })(o.series.find((s) => s.name === "RSI 14")),
    legend: [...document.querySelectorAll("#legend [data-study]")].map((e) => e.dataset.study + "=" + e.textContent),
    notice: (document.getElementById("view-notice") || {}).textContent || "",
  };
})()`

type studySeries struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Axis   int    `json:"axis"`
	Points int    `json:"points"`
	N      int    `json:"n"`
}

type studiesDrawn struct {
	Series  []studySeries `json:"series"`
	Grids   int           `json:"grids"`
	Candles int           `json:"candles"`
	RSI     *struct {
		Extent []float64 `json:"extent"`
		Labels []string  `json:"labels"`
	} `json:"rsi"`
	Legend []string `json:"legend"`
	Notice string   `json:"notice"`
}

const allStudies = "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi"

func TestStudiesFromTheURL(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	open := func(t *testing.T, path, shown string) studiesDrawn {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+path)); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, shown)
		return evalJS[studiesDrawn](t, ctx, jsStudies)
	}
	check := func(t *testing.T, d studiesDrawn) {
		t.Helper()
		want := map[string]int{"MA 7": 0, "MA 25": 0, "EMA 99": 0, "BOLL upper": 0, "BOLL middle": 0, "BOLL lower": 0,
			"VOL MA 20": 1, "MACD DIF": 2, "MACD DEA": 2, "MACD hist": 2, "RSI 14": 3}
		if d.Grids != 4 {
			t.Errorf("%d grids, want price, volume, MACD and RSI", d.Grids)
		}
		got := map[string]bool{}
		for _, sr := range d.Series {
			got[sr.Name] = true
			axis, ok := want[sr.Name]
			if !ok {
				continue
			}
			if sr.Axis != axis || sr.N != d.Candles || sr.Points == 0 {
				t.Errorf("%s: axis %d (want %d), %d values for %d candles, %d drawn", sr.Name, sr.Axis, axis, sr.N, d.Candles, sr.Points)
			}
		}
		for name := range want {
			if !got[name] {
				t.Errorf("no series %s (series %+v)", name, d.Series)
			}
		}
		if len(d.Legend) < len(want) {
			t.Errorf("legend shows %v", d.Legend)
		}
		// The RSI pane spans the RSI's range, labelled at its levels alone
		// (docs/studies.md).
		if d.RSI == nil || fmt.Sprint(d.RSI.Extent) != "[0 100]" || fmt.Sprint(d.RSI.Labels) != "[30 70]" {
			t.Errorf("the RSI pane: %+v, want 0 to 100, labelled 30 and 70", d.RSI)
		}
	}
	t.Run("every study draws its series in its pane, the legend its value", func(t *testing.T) {
		d := open(t, "/?contract_code=BTC-USDT&period=1min&indicators="+allStudies, "BTC-USDT|1min")
		check(t, d)
		screenshot(t, ctx, "studies-1280")
	})
	t.Run("a reload keeps them", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|1min")
		check(t, evalJS[studiesDrawn](t, ctx, jsStudies))
	})
	t.Run("a period change keeps them", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click(`[data-period="5min"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "BTC-USDT|5min")
		check(t, evalJS[studiesDrawn](t, ctx, jsStudies))
		if u := evalJS[string](t, ctx, "location.search"); !strings.Contains(u, "indicators=") {
			t.Errorf("URL %q lost the studies", u)
		}
	})
	t.Run("a bad study is named and the others drawn", func(t *testing.T) {
		d := open(t, "/?contract_code=BTC-USDT&period=1min&indicators=ma:0,rsi", "BTC-USDT|1min")
		if !strings.Contains(d.Notice, "ma:0") {
			t.Errorf("notice %q", d.Notice)
		}
		if len(d.Series) != 1 || d.Series[0].Name != "RSI 14" {
			t.Errorf("series %+v", d.Series)
		}
	})
	t.Run("the embed takes them", func(t *testing.T) {
		check(t, open(t, "/embed/chart?contract_code=BTC-USDT&period=1min&indicators="+allStudies, "BTC-USDT|1min"))
	})
}

func TestStudyMenuWithTheKeyboardAndBack(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	seriesNamed := func(name string) bool {
		return evalJS[bool](t, ctx, `(`+jsStudies+`).series.some((s) => s.name === `+strconv.Quote(name)+`)`)
	}
	wait := func(t *testing.T, js string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Poll(js, nil)); err != nil {
			t.Fatalf("waiting for %s: %v (URL %s)", js, err, evalJS[string](t, ctx, "location.search"))
		}
	}
	// Open the menu and tick MA 7 with the keyboard alone.
	if err := chromedp.Run(ctx,
		chromedp.Focus(`#study-menu > summary`, chromedp.ByQuery),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`input[data-study="ma:7"]`, chromedp.ByQuery), // the open menu's controls
		chromedp.KeyEvent("\t"),
		chromedp.KeyEvent(" "),
	); err != nil {
		t.Fatal(err)
	}
	wait(t, `location.search.includes("indicators=ma%3A7")`)
	wait(t, `(`+jsStudies+`).series.some((s) => s.name === "MA 7")`)
	// And untick it: the URL follows, the line goes.
	if err := chromedp.Run(ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	wait(t, `!location.search.includes("indicators=")`)
	wait(t, `!(`+jsStudies+`).series.some((s) => s.name === "MA 7")`)
	// Back steps to the view with MA 7, then to the one without.
	if err := chromedp.Run(ctx, chromedp.Evaluate(`history.back()`, nil)); err != nil {
		t.Fatal(err)
	}
	wait(t, `location.search.includes("indicators=ma%3A7")`)
	wait(t, `(`+jsStudies+`).series.some((s) => s.name === "MA 7")`)
	if !seriesNamed("MA 7") {
		t.Errorf("Back did not restore the study")
	}
}

// TestTheStudyMenuTicksSeveralStudiesInOneOpening: each box ticked or
// unticked with the menu open changes the view as it is then, not as it
// was when the menu opened: ticking a second study keeps the first. A
// study of the view's own (MA 50) unticked keeps its box, in its place,
// while the menu is open, so that the boxes after it do not move and it
// can be ticked again; every box says whether its study is on show.
func TestTheStudyMenuTicksSeveralStudiesInOneOpening(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&indicators=ma:50,ma:60")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsAppRunning)
	click(t, ctx, `#study-menu > summary`)
	waitFor(t, ctx, `!!document.querySelector('input[data-study="ma:7"]')`)
	const jsList = `(new URLSearchParams(location.search).get("indicators") ?? "")`
	const jsBoxes = `[...document.querySelectorAll(".study-menu-body input[data-study]")].map((b) => b.dataset.study + (b.checked ? "+" : "-")).join(" ")`
	const fixed = "ma:7%s ma:25%s ema:99- boll- vol_ma:20- macd- rsi%s ma:50%s ma:60%s"
	for _, step := range []struct{ box, want, boxes string }{
		{"ma:7", "ma:50,ma:60,ma:7", fmt.Sprintf(fixed, "+", "-", "-", "+", "+")},
		{"ma:25", "ma:50,ma:60,ma:7,ma:25", fmt.Sprintf(fixed, "+", "+", "-", "+", "+")},
		{"ma:50", "ma:60,ma:7,ma:25", fmt.Sprintf(fixed, "+", "+", "-", "-", "+")},
		{"ma:60", "ma:7,ma:25", fmt.Sprintf(fixed, "+", "+", "-", "-", "-")},
		{"ma:50", "ma:7,ma:25,ma:50", fmt.Sprintf(fixed, "+", "+", "-", "+", "-")},
		{"rsi", "ma:7,ma:25,ma:50,rsi", fmt.Sprintf(fixed, "+", "+", "+", "+", "-")},
		{"ma:7", "ma:25,ma:50,rsi", fmt.Sprintf(fixed, "-", "+", "+", "+", "-")},
	} {
		click(t, ctx, `input[data-study="`+step.box+`"]`)
		if err := chromedp.Run(ctx, chromedp.Poll(jsList+` === `+strconv.Quote(step.want)+` && `+jsBoxes+` === `+strconv.Quote(step.boxes),
			nil, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			t.Fatalf("after the box of %s: the view's studies are %q and the boxes %q, want %q and %q",
				step.box, evalJS[string](t, ctx, jsList), evalJS[string](t, ctx, jsBoxes), step.want, step.boxes)
		}
	}
	const jsDrawn = `(` + jsStudies + `).series.map((s) => s.name).sort().join(",")`
	if err := chromedp.Run(ctx, chromedp.Poll(jsDrawn+` === "MA 25,MA 50,RSI 14"`, nil, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Fatalf("the view's studies are %q and the chart draws %q, want MA 25, MA 50 and RSI 14", evalJS[string](t, ctx, jsList), evalJS[string](t, ctx, jsDrawn))
	}
	// Closed and opened again, the menu offers the view's studies alone.
	click(t, ctx, `#study-menu > summary`)
	click(t, ctx, `#study-menu > summary`)
	waitFor(t, ctx, jsBoxes+` === "ma:7- ma:25+ ema:99- boll- vol_ma:20- macd- rsi+ ma:50+"`)
}

// TestTheStudyMenuAddsNoSeventeenthStudy: a view draws at most sixteen
// studies, and a longer list in the URL shows none. With sixteen on show,
// the menu's checkbox and its Add MA button say why they add nothing, and
// the view and its URL stay as they were.
func TestTheStudyMenuAddsNoSeventeenthStudy(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	var sixteen []string
	for n := 1; n <= 16; n++ {
		sixteen = append(sixteen, "ma:"+strconv.Itoa(n))
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&indicators="+strings.Join(sixteen, ","))); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsAppRunning)
	const jsMAs = `(` + jsStudies + `).series.filter((s) => /^MA \d+$/.test(s.name)).length`
	waitFor(t, ctx, jsMAs+` === 16`)
	search := evalJS[string](t, ctx, `location.search`)
	click(t, ctx, `#study-menu > summary`)
	waitFor(t, ctx, `!!document.querySelector('input[data-study="rsi"]')`)
	click(t, ctx, `input[data-study="rsi"]`)
	waitFor(t, ctx, `(document.querySelector("#study-menu .field-error") || {}).textContent === "At most 16 studies: remove one to add another."`)
	if evalJS[bool](t, ctx, `document.querySelector('input[data-study="rsi"]').checked`) {
		t.Error("the refused study's box stays ticked")
	}
	if err := chromedp.Run(ctx, chromedp.SendKeys("#study-period", "100", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#study-add-ma")
	time.Sleep(300 * time.Millisecond) // a change would have pushed a URL by now
	if got := evalJS[string](t, ctx, `location.search`); got != search {
		t.Errorf("the URL went from %s to %s", search, got)
	}
	if n := evalJS[int](t, ctx, jsMAs); n != 16 {
		t.Errorf("%d MAs drawn, want the sixteen", n)
	}
	if evalJS[bool](t, ctx, `(`+jsStudies+`).series.some((s) => s.name === "MA 100" || s.name.startsWith("RSI"))`) {
		t.Error("a seventeenth study is drawn")
	}
}

func TestChartComfort(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1day&indicators=ma:7,macd")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1day")
	t.Run("Home loads back to the start of history, the studies with it", func(t *testing.T) {
		before := evalJS[int](t, ctx, jsCandleCount)
		if err := chromedp.Run(ctx, chromedp.Focus("#chart-area", chromedp.ByID), chromedp.KeyEvent(kb.Home)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Run(ctx, chromedp.WaitVisible("#horizon-mark", chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		d := evalJS[studiesDrawn](t, ctx, jsStudies)
		if d.Candles <= before {
			t.Errorf("Home: %d candles, %d before", d.Candles, before)
		}
		for _, sr := range d.Series {
			if sr.N != d.Candles {
				t.Errorf("%s holds %d values for %d candles after the back-scroll", sr.Name, sr.N, d.Candles)
			}
		}
	})
	t.Run("the snapshot is ECharts' PNG of the chart", func(t *testing.T) {
		url := evalJS[string](t, ctx, jsChart+`.getDataURL({type: "png", pixelRatio: 2, backgroundColor: "#fff"})`)
		if !strings.HasPrefix(url, "data:image/png;base64,") || len(url) < 10000 {
			t.Errorf("snapshot %.60s… (%d bytes)", url, len(url))
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll("#chart-snapshot, #chart-fullscreen").length`); n != 2 {
			t.Errorf("%d of the snapshot and fullscreen buttons", n)
		}
	})
}

// jsStudyLive reads where the chart draws the newest point of the MA 7 line
// and of the MACD histogram (ECharts' own elements: the line's vertex, the
// bar's top) and what is wrong with it, if anything: it must be where the
// price and MACD axes put the values the legend shows for the newest candle.
const jsStudyLive = `(() => {
  const c = ` + jsChart + `, m = c.getModel(), o = c.getOption(), n = o.series[0].data.length;
  const drawn = [];
  for (const name of ["MA 7", "MACD hist"]) {
    const i = o.series.findIndex((s) => s.name === name), s = m.getSeriesByIndex(i), d = s.getData(), k = d.count() - 1;
    if (i < 0 || d.getRawIndex(k) !== n - 1) return {problem: name + ": the newest candle is not in view", drawn: ""};
    const text = document.querySelector('#legend [data-study="' + name + '"]').textContent;
    const want = c.convertToPixel({seriesIndex: i}, [n - 1, Number(text.replace(/[^0-9.-]/g, ""))])[1];
    let y;
    if (s.subType === "bar") {
      const bar = d.getItemGraphicEl(k);
      y = bar.shape.y + bar.shape.height;
    } else {
      y = c.getViewOfSeriesModel(s)._polyline.shape.points[2 * k + 1];
    }
    if (!(Math.abs(y - want) <= 0.5)) return {problem: name + " drawn at y " + y + ", the legend's " + text + " is at " + want, drawn: ""};
    drawn.push(y);
  }
  return {problem: "", drawn: JSON.stringify(drawn)};
})()`

func TestStudyLinesFollowTheLiveCandle(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&indicators=ma:7,macd")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	// The pointer leaves the chart: the legend shows the newest candle.
	if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 1, 1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById("legend").dataset.hover !== "true"`)
	// Live updates move the newest candle's close, and with it the newest
	// value of each study: the lines' last points must move with it, at
	// once, not at the next new candle or zoom.
	// The sandbox's close can stay put for half a minute and more (a quiet
	// market: CI once saw no move in 30 s); a new minute's candle moves both
	// lines' last points, so each move is given a minute's turn: 65 s.
	var drawn []string
	for len(drawn) < 3 {
		var got struct{ Problem, Drawn string }
		tctx, cancel := context.WithTimeout(ctx, 65*time.Second)
		err := chromedp.Run(tctx, pollToDeadline(`((r) => r.problem === "" && r.drawn !== `+strconv.Quote(strings.Join(drawn[max(len(drawn)-1, 0):], ""))+`)(`+jsStudyLive+`)`, nil, chromedp.WithPollingInterval(50*time.Millisecond)))
		cancel()
		if readErr := chromedp.Run(ctx, chromedp.Evaluate(jsStudyLive, &got)); err == nil {
			err = readErr
		}
		if err != nil {
			t.Fatalf("after %d moves of the study lines: %v (then: %q, drawn %s)", len(drawn), err, got.Problem, got.Drawn)
		}
		drawn = append(drawn, got.Drawn)
	}
	screenshot(t, ctx, "studies-live")
}

// TestTheStudyMenuOpensOnAPhone: on a phone the toggles are a strip that
// scrolls sideways, which clips what hangs out of it. The open menu shows
// within the window, on top, and a tap on a study takes it.
func TestTheStudyMenuOpensOnAPhone(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Emulate(device.IPhone12), chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	click(t, ctx, "#study-menu > summary")
	waitFor(t, ctx, `document.getElementById("study-menu").open`)
	// shown is what of the menu's controls is hidden, cut by the window, or
	// under something else: "" when all show.
	const shown = `(() => {
  const out = [];
  for (const el of document.querySelectorAll(".study-menu-body input, .study-menu-body button")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.right > innerWidth || r.top < 0 || r.bottom > innerHeight) { out.push((el.id || el.dataset.study) + " outside the window"); continue; }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit !== el && !el.contains(hit) && !(el.labels && [...el.labels].some((l) => l.contains(hit)))) out.push((el.id || el.dataset.study) + " under " + (hit ? hit.id || hit.className || hit.tagName : "nothing"));
  }
  return out.join("; ");
})()`
	if got := evalJS[string](t, ctx, shown); got != "" {
		t.Errorf("the open menu on a phone: %s", got)
	}
	click(t, ctx, `input[data-study="ma:7"]`)
	waitFor(t, ctx, `location.search.includes("indicators=ma%3A7")`)
}
