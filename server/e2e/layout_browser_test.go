package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// jsLayout reads the chart's layout: the legend's height, each grid's
// top and height, and the time labels' boxes against the chart's.
const jsLayout = `(() => {
  const c = ` + jsChart + `, m = c.getModel(), o = c.getOption();
  const grids = o.grid.map((_, i) => { const r = m.getComponent("grid", i).coordinateSystem.getRect(); return {y: r.y, h: r.height}; });
  const texts = c.getZr().storage.getDisplayList(true).filter((e) => (e.type === "text" || e.type === "tspan") && !e.ignore && e.style && /^\d\d-\d\d \d\d:\d\d$|^\d\d:\d\d$/.test(e.style.text || "")).map((e) => { const r = e.getBoundingRect().clone(); if (e.transform) r.applyTransform(e.transform); return {text: e.style.text, x: r.x, w: r.width, y: r.y, h: r.height}; });
  return {legend: document.getElementById("legend").getBoundingClientRect().height, grids, width: c.getWidth(), height: c.getHeight(), texts};
})()`

type layoutDrawn struct {
	Legend float64                  `json:"legend"`
	Grids  []struct{ Y, H float64 } `json:"grids"`
	Width  float64                  `json:"width"`
	Height float64                  `json:"height"`
	Texts  []struct {
		Text       string
		X, W, Y, H float64
	} `json:"texts"`
}

// jsLegendLine reads the legend scrolled to its start: its box, and the
// terms it shows, from left to right (a term by its value's id, a study's
// by its name).
const jsLegendLine = `(() => {
  const l = document.getElementById("legend");
  l.scrollLeft = 0;
  const box = l.getBoundingClientRect();
  const items = [...l.children].filter(e => e.getClientRects().length > 0).map(e => {
    const r = e.getBoundingClientRect(), dd = e.querySelector("dd");
    return {id: dd.id ? dd.id.replace("legend-", "") : dd.dataset.study, left: r.left, right: r.right};
  }).sort((a, b) => a.left - b.left);
  return {left: box.left, right: box.right, items};
})()`

// legendLine is what jsLegendLine reads.
type legendLine struct {
	Left, Right float64
	Items       []legendTerm
}

// legendTerm is one term of the legend and where it lies.
type legendTerm struct {
	ID          string
	Left, Right float64
}

// order is the shown terms' ids from left to right.
func (l legendLine) order() []string {
	ids := make([]string, len(l.Items))
	for i, it := range l.Items {
		ids[i] = it.ID
	}
	return ids
}

// cut says which of ids the legend's box does not show whole.
func (l legendLine) cut(ids ...string) []string {
	var cut []string
	for _, id := range ids {
		i := slices.IndexFunc(l.Items, func(it legendTerm) bool { return it.ID == id })
		if i < 0 || l.Items[i].Left < l.Left-0.5 || l.Items[i].Right > l.Right+0.5 {
			cut = append(cut, id)
		}
	}
	return cut
}

// layoutScreen is a window the layout tests open the chart in.
type layoutScreen struct {
	name          string
	path          string
	width, height int64
	mobile        bool
	slider        float64 // the zoom slider's band at the chart's foot, whose handle labels are not time labels
}

// open opens url in a new tab of the screen's size and waits for the
// chart of BTC-USDT's minutes.
func (sc layoutScreen) open(t *testing.T, url string) context.Context {
	t.Helper()
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(sc.width, sc.height, 1, sc.mobile), chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	return ctx
}

// TestChartLayoutWithAllStudiesOnAPhoneAndAWideScreen draws every study on
// a phone, a wide screen, a tablet, a chart embed as narrow as a phone, one too low
// for the full layout with these panes and a small one (both compact:
// chartopt.CompactBelow): an embed's chart ends inside its frame, the
// price pane stays the largest (and, but in a compact embed, at least
// 180 px), no pane lies over another, the time labels
// stay inside the chart and the panes' value labels a line apart; where the
// legend keeps to one line, it begins with the candle's four prices, in
// sight, but in a compact embed, whose line shows the time, the close and
// its change in the legend's order.
func TestChartLayoutWithAllStudiesOnAPhoneAndAWideScreen(t *testing.T) {
	s := startServer(t, nil)
	for _, screen := range []layoutScreen{
		{"phone", "/", 390, 844, true, 34},
		{"wide", "/", 1920, 1080, false, 34},
		{"tablet", "/", 768, 1024, true, 34},
		{"embed", "/embed/chart", 600, 640, false, 34},
		{"short embed", "/embed/chart", 600, 450, false, 0}, // compact: too low for four panes under the legend band
		{"compact embed", "/embed/chart", 320, 240, false, 0},
	} {
		t.Run(screen.name, func(t *testing.T) {
			ctx := screen.open(t, s.URL+screen.path+"?contract_code=BTC-USDT&period=1min&indicators="+allStudies)
			l := evalJS[layoutDrawn](t, ctx, jsLayout)
			if strings.HasPrefix(screen.path, "/embed/") {
				// An embed's chart fills its frame, and ends inside it.
				if bottom := evalJS[float64](t, ctx, `document.getElementById("chart").getBoundingClientRect().bottom`); bottom > float64(screen.height)+0.5 {
					t.Errorf("the chart ends at %.0f px, below the %d px frame", bottom, screen.height)
				}
			}
			if len(l.Grids) != 4 {
				t.Fatalf("%d grids for price, volume, MACD and RSI", len(l.Grids))
			}
			compact := evalJS[bool](t, ctx, `document.querySelector(".embed-compact") !== null`)
			if !compact && l.Grids[0].H < 180 {
				t.Errorf("the candles have %.0f px of the chart's %.0f: too few to read a day's moves in", l.Grids[0].H, l.Height)
			}
			for i, g := range l.Grids[1:] {
				if g.H >= l.Grids[0].H {
					t.Errorf("pane %d is %.0f px high, the candles' %.0f: the price pane must stay the largest", i+1, g.H, l.Grids[0].H)
				}
				if above := l.Grids[i]; g.Y < above.Y+above.H {
					t.Errorf("pane %d starts at %.0f px, inside pane %d (%.0f to %.0f)", i+1, g.Y, i, above.Y, above.Y+above.H)
				}
				if g.H < 12 {
					t.Errorf("pane %d is %.0f px high: too low to read a line in", i+1, g.H)
				}
			}
			// Three lines, or a quarter of a tablet's taller chart (web/style.css),
			// where the legend takes five or six lines as the values' widths go.
			if l.Legend > 75 && l.Legend > l.Height/4 {
				t.Errorf("the legend is %.0f px high over the chart's %.0f", l.Legend, l.Height)
			}
			if msg := evalJS[string](t, ctx, jsLegendClear); msg != "" {
				t.Error(msg)
			}
			if screen.width <= 640 {
				// The legend keeps to a line there: the candles start under it.
				band := evalJS[float64](t, ctx, `(() => { const g = `+jsPriceGrid+`; return g.y - document.getElementById("legend").getBoundingClientRect().bottom; })()`)
				if band > 20 {
					t.Errorf("%.0f px of chart lie empty between the legend and the candles", band)
				}
				line := evalJS[legendLine](t, ctx, jsLegendLine)
				if compact {
					// The compact line's three terms, in the legend's order.
					if got, want := line.order(), []string{"time", "close", "change-pct"}; !slices.Equal(got, want) {
						t.Errorf("the compact legend shows %v, want %v", got, want)
					}
				} else {
					// Of that line, the candle's prices come first, whole in sight.
					if got, want := line.order(), []string{"open", "high", "low", "close", "time"}; len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
						t.Errorf("the legend's line begins %v, want %v", got, want)
					}
					if cut := line.cut("open", "high", "low", "close"); len(cut) > 0 {
						t.Errorf("the legend, %.0f-%.0f px, shows %v cut or not at all: %+v", line.Left, line.Right, cut, line.Items)
					}
				}
			}
			labels := 0
			for _, lbl := range l.Texts {
				if lbl.Y > l.Height-screen.slider {
					continue // the zoom slider's handle labels, shown while dragging
				}
				labels++
				if lbl.X < 0 || lbl.X+lbl.W > l.Width {
					t.Errorf("time label %q cut at the chart's edge: %.0f to %.0f of %.0f px", lbl.Text, lbl.X, lbl.X+lbl.W, l.Width)
				}
				if lbl.Y+lbl.H > l.Height {
					t.Errorf("time label %q cut at the chart's foot: %.0f to %.0f of %.0f px", lbl.Text, lbl.Y, lbl.Y+lbl.H, l.Height)
				}
			}
			if labels < 2 {
				t.Errorf("%d time labels: %+v", labels, l.Texts)
			}
			if covered := evalJS[string](t, ctx, jsTimeLabelsCovered); covered != "" {
				t.Errorf("the page lies over time labels: %s", covered)
			}
			if crowded := evalJS[string](t, ctx, jsPaneLabelsApart); crowded != "" {
				t.Errorf("the panes' axis labels run into each other at their edges: %s", crowded)
			}
			if screen.name == "phone" {
				// Turned into a wide window, the legend wraps to three lines:
				// the frame follows the chart's width, and back.
				for _, turn := range []struct {
					width int64
					chart string // the chart's width, against chartopt.NarrowWidth
				}{{1280, "> 640"}, {screen.width, "<= 640"}} {
					if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(turn.width, 700, 1, screen.mobile)); err != nil {
						t.Fatal(err)
					}
					waitFor(t, ctx, fmt.Sprintf(`%s === "" && %s.getWidth() %s`, jsLegendClear, jsChart, turn.chart))
				}
			}
			t.Logf("%s: legend %.0f px, panes %+v", screen.name, l.Legend, l.Grids)
			screenshot(t, ctx, "chart-all-studies-"+strings.ReplaceAll(screen.name, " ", "-"))
		})
	}
}

// jsTimeLabelsCovered lists the time labels that an element of the page
// (a button, a note) lies over, by what lies at each label's centre.
const jsTimeLabelsCovered = `(() => {
  const c = ` + jsChart + `, dom = c.getDom(), r = dom.getBoundingClientRect(), bad = [];
  for (const e of c.getZr().storage.getDisplayList(true)) {
    if (!(e.type === "text" || e.type === "tspan") || e.ignore || !e.style || !/^\d\d-\d\d \d\d:\d\d$|^\d\d:\d\d$/.test(e.style.text || "")) continue;
    const b = e.getBoundingRect().clone();
    if (e.transform) b.applyTransform(e.transform);
    const x = r.left + b.x + b.width / 2, y = r.top + b.y + b.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const at = document.elementFromPoint(x, y);
    if (at && !dom.contains(at)) bad.push(e.style.text + " under " + at.tagName.toLowerCase() + (at.id ? "#" + at.id : "") + (at.className ? "." + at.className : ""));
  }
  return bad.join("; ");
})()`

// jsPaneLabelsApart lists where two stacked panes' value labels, which share
// the chart's right edge, are less than a line apart: the lowest label of a
// pane and the top label of the pane under it. A label the axis leaves out
// (showMinLabel, showMaxLabel false) or an axis without labels is not there.
const jsPaneLabelsApart = `(() => {
  const c = ` + jsChart + `, opt = c.getOption(), bad = [];
  const shown = (i) => {
    const label = opt.yAxis[i].axisLabel || {};
    if (label.show === false) return [];
    const a = c.getModel().getComponent("yAxis", i).axis;
    let ys = a.getTicksCoords().map((t) => a.toGlobalCoord(t.coord)); // from the axis's minimum up
    if (label.showMaxLabel === false) ys = ys.slice(0, -1);
    if (label.showMinLabel === false) ys = ys.slice(1);
    return ys;
  };
  for (let i = 0; i + 1 < opt.yAxis.length; i++) {
    const above = shown(i), below = shown(i + 1), font = (opt.yAxis[i + 1].axisLabel || {}).fontSize || 12;
    if (above.length === 0 || below.length === 0) continue;
    const gap = Math.min(...below) - Math.max(...above);
    if (gap < font + 2) bad.push("panes " + i + " and " + (i + 1) + ": " + gap.toFixed(0) + " px");
  }
  return bad.join("; ");
})()`

// TestThePriceAndVolumeLabelsStayApart opens the chart without studies on a
// phone, a laptop and in an embed: the volume pane's labels and the price
// axis's lowest, which share the chart's right edge two hundredths of its
// height apart, are a line apart (jsPaneLabelsApart), at any scale.
func TestThePriceAndVolumeLabelsStayApart(t *testing.T) {
	s := startServer(t, nil)
	for _, screen := range []layoutScreen{
		{name: "phone", path: "/", width: 390, height: 844, mobile: true},
		{name: "laptop", path: "/", width: 1280, height: 720},
		{name: "embed", path: "/embed/chart", width: 600, height: 450},
		{name: "log scale", path: "/?scale=log", width: 1280, height: 720},
	} {
		t.Run(screen.name, func(t *testing.T) {
			ctx := screen.open(t, s.URL+screen.path)
			if crowded := evalJS[string](t, ctx, jsPaneLabelsApart); crowded != "" {
				t.Errorf("the price and volume labels run into each other: %s", crowded)
			}
		})
	}
}

// TestAnEmbedWhoseLinesLeaveTheCandlesTooLittleIsCompact opens chart
// embeds 400 px high, which the height rule (chartopt.CompactBelow) gives
// the full layout: on a wide frame the chips and the legend take a line or
// two and the full layout stays; on a narrow one they take four, and the
// embed takes the compact layout once the chart has measured its candles'
// pane under chartopt.MinPricePane. Before, a 600 × 400 embed drew 105 px
// of candles over a 15 px volume pane whose labels ran into the price
// axis', and a 320 × 400 one 57 px over 6.
func TestAnEmbedWhoseLinesLeaveTheCandlesTooLittleIsCompact(t *testing.T) {
	s := startServer(t, nil)
	for _, tc := range []struct {
		screen  layoutScreen
		query   string
		compact bool
	}{
		{layoutScreen{name: "wide", path: "/embed/chart", width: 1000, height: 400}, "", false},
		{layoutScreen{name: "laptop's column", path: "/embed/chart", width: 800, height: 400}, "", false},
		{layoutScreen{name: "half a laptop", path: "/embed/chart", width: 600, height: 400}, "", true},
		{layoutScreen{name: "phone's width", path: "/embed/chart", width: 320, height: 400}, "", true},
	} {
		t.Run(tc.screen.name, func(t *testing.T) {
			ctx := tc.screen.open(t, s.URL+tc.screen.path+"?contract_code=BTC-USDT&period=1min"+tc.query)
			want := fmt.Sprintf(`(document.querySelector(".embed-compact") !== null) === %v`, tc.compact)
			tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := chromedp.Run(tctx, chromedp.Poll(want, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
				t.Errorf("compact layout: want %v; the candles have %.0f px", tc.compact, evalJS[layoutDrawn](t, ctx, jsLayout).Grids[0].H)
			}
			waitDrawn(t, ctx, "BTC-USDT|1min")
			l := evalJS[layoutDrawn](t, ctx, jsLayout)
			if l.Grids[0].H < 130 {
				t.Errorf("the candles have %.0f px of the chart's %.0f", l.Grids[0].H, l.Height)
			}
			if crowded := evalJS[string](t, ctx, jsPaneLabelsApart); crowded != "" {
				t.Errorf("the panes' labels run into each other: %s", crowded)
			}
			if bottom := evalJS[float64](t, ctx, `document.getElementById("chart").getBoundingClientRect().bottom`); bottom > float64(tc.screen.height)+0.5 {
				t.Errorf("the chart ends at %.0f px, below the %d px frame", bottom, tc.screen.height)
			}
			screenshot(t, ctx, "embed-lines-"+strings.ReplaceAll(tc.screen.name, " ", "-"))
		})
	}
}

// jsGrids reads where each of the chart's grids starts and ends, px from
// the chart's top, rounded.
const jsGrids = `(() => { const c = ` + jsChart + `; return c.getOption().grid.map((_, i) => { const r = c.getModel().getComponent("grid", i).coordinateSystem.getRect(); return {y: Math.round(r.y), foot: Math.round(r.y + r.height)}; }); })()`

// gridSpan is one grid of jsGrids.
type gridSpan struct{ Y, Foot int }

// jsWatchCompact records, in window.compactFrames, each change of the
// embed's layout (its root compact or not) from one painted frame to the
// next, starting with the layout now.
const jsWatchCompact = `(() => {
  window.compactFrames = [];
  const tick = () => {
    const root = document.getElementById("embed-root"), compact = !!root && root.classList.contains("embed-compact");
    if (compactFrames[compactFrames.length - 1] !== compact) compactFrames.push(compact);
    requestAnimationFrame(tick);
  };
  tick();
  return true;
})()`

// TestAChartEmbedPaintsFirstAsTheAppWill holds app.wasm back in chart
// embeds and compares the first paint with what the app then draws.
//
// Layout: under the height rule (chartopt.CompactBelow, 100 px more with a
// MACD pane), or where the frame's price grid would leave the candles under
// chartopt.MinPricePane (600 × 400 and 320 × 400, whose period chips take
// two lines or more; 660 × 410 and 800 × 400 with six studies, under the
// legend the app writes), the first paint takes the compact layout, as the
// app does (the class on the embed's root, the price grid under a one-line
// legend, no zoom slider), and the app keeps the price grid where the first
// paint put it. Before, the full layout's period chips filled a 320 × 240
// frame and the first paint's chart had no room, and a 600 × 400 embed drew
// the full layout first and changed to the compact one when the app ran, as
// the embeds with six studies did until the first paint measured the legend
// the app writes.
//
// Prices: the page carries the contract's entry of the list (pages.FirstOffer),
// so the first paint writes BTC-USDT's prices at one decimal, as the app
// does ("95,300.0"; before, ECharts' "95,300" until the app ran).
//
// The answer: the embed's head preloads it and reads it inline
// (bundle/answer.go), and the first paint draws from that one request.
func TestAChartEmbedPaintsFirstAsTheAppWill(t *testing.T) {
	const volumeAverages = "vol_ma:5,vol_ma:10,vol_ma:20,vol_ma:30,vol_ma:60,vol_ma:120"
	s := startServer(t, nil)
	type grid struct{ X, Y, Width, Height float64 }
	const jsCompact = `({root: document.getElementById("embed-root").classList.contains("embed-compact"), slider: ` + jsChart + `.getOption().dataZoom.some((z) => z.type === "slider" && z.show !== false)})`
	type compactness struct{ Root, Slider bool }
	const atTick = `((labels) => labels.length >= 2 && labels.every((p) => /^\d{1,3}(,\d{3})*\.\d$/.test(p)))(` + jsPriceLabels + `)`
	const jsAnswers = `JSON.stringify({early: !!window.riskchartAnswer && riskchartAnswer.href,
  fetched: performance.getEntriesByType("resource").filter((e) => e.name.includes("` + venueapi.PathKLine + `?")).length})`
	for _, tc := range []struct {
		name    string
		w, h    int64
		query   string
		compact bool
	}{
		{"320 × 240", 320, 240, "", true},
		{"320 × 480 with MACD", 320, 480, "&indicators=macd", true},
		{"320 × 400", 320, 400, "", true},
		{"320 × 500", 320, 500, "", true},
		{"320 × 590 with MACD and RSI", 320, 590, "&indicators=macd,rsi", true},
		{"600 × 400", 600, 400, "", true},
		{"800 × 400", 800, 400, "", false},
		{"1000 × 400", 1000, 400, "", false},
		// Under the legend of six volume averages (two or three lines) the
		// full layout would leave the candles under 130 px, though under a
		// narrow chart's one line it would not: the first paint takes the
		// compact layout once it has measured the legend the app writes.
		// (Studies of the volume: the app's lines of a price study may widen
		// the price axis, which the first paint draws for the candles alone.)
		{"660 × 410 with six studies", 660, 410, "&indicators=" + volumeAverages, true},
		{"800 × 400 with six studies", 800, 400, "&indicators=" + volumeAverages, true},
		{"800 × 480 with six studies", 800, 480, "&indicators=" + volumeAverages, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, held := openHoldingAppWasm(t, s.URL+"/embed/chart?contract_code=BTC-USDT&period=1min"+tc.query,
				emulation.SetDeviceMetricsOverride(tc.w, tc.h, 1, false))
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			first := evalJS[compactness](t, ctx, jsCompact)
			if first.Root != tc.compact || first.Slider == tc.compact {
				t.Errorf("before the app: compact root %v, zoom slider %v; want compact %v", first.Root, first.Slider, tc.compact)
			}
			before := evalJS[grid](t, ctx, jsPriceGrid)
			least := float64(chartopt.MinPricePane) // the full layout's; the compact one's in a 240 px frame is 107 px
			if tc.compact {
				least = 100
			}
			if before.Height < least {
				t.Errorf("before the app, the candles have %.0f px of the %d px frame, under %.0f", before.Height, tc.h, least)
			}
			if !evalJS[bool](t, ctx, atTick) {
				t.Errorf("before the app, the price axis writes %q, want BTC-USDT's one decimal", evalJS[[]string](t, ctx, jsPriceLabels))
			}
			const wantAnswers = `{"early":"` + venueapi.PathKLine + `?contract_code=BTC-USDT&period=1min&size=300","fetched":1}`
			if got := evalJS[string](t, ctx, jsAnswers); got != wantAnswers {
				t.Errorf("the first paint's answer: %s, want %s (read from the head's preload, one request)", got, wantAnswers)
			}
			labels, grids := evalJS[[]string](t, ctx, jsPriceLabels), evalJS[[]gridSpan](t, ctx, jsGrids)
			extent := evalJS[[]float64](t, ctx, jsPriceExtent)
			screenshot(t, ctx, "embed-first-paint-"+strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", ""), "×", "x"))
			// Every frame painted from here on shows the same layout: the
			// app kept the first paint's compact one at 600 × 400, where it
			// had drawn its full layout over it for a while, then found it
			// too low and taken the compact one again.
			evalJS[bool](t, ctx, jsWatchCompact)
			letAppWasmThrough(t, ctx, held)
			waitDrawn(t, ctx, "BTC-USDT|1min")
			waitFor(t, ctx, jsAppRunning)
			waitFor(t, ctx, `window.compactFrames.length > 0`)
			if seen := evalJS[[]bool](t, ctx, `window.compactFrames`); !slices.Equal(seen, []bool{tc.compact}) {
				t.Errorf("the frames painted while the app started were compact: %v, in turn; want %v alone", seen, tc.compact)
			}
			if app := evalJS[compactness](t, ctx, jsCompact); app.Root != tc.compact || app.Slider == tc.compact {
				t.Errorf("the app: compact root %v, zoom slider %v; want compact %v", app.Root, app.Slider, tc.compact)
			}
			if after := evalJS[grid](t, ctx, jsPriceGrid); tc.compact && after.Y != before.Y {
				t.Errorf("the app moved the price grid's top from %.0f to %.0f px", before.Y, after.Y)
			}
			// The compact layout measures no legend: every grid stays, the
			// MACD pane's too (boot.Look). Its lowest grid reaches down to
			// the time labels, whatever the frame's height: a share of the
			// chart left a band 40 px high under them at 320 × 500.
			app := evalJS[[]gridSpan](t, ctx, jsGrids)
			if tc.compact && !slices.Equal(app, grids) {
				t.Errorf("the first paint's grids %+v, the app's %+v; want them alike", grids, app)
			}
			if h := evalJS[int](t, ctx, jsChart+`.getHeight()`); tc.compact && (len(app) == 0 || h-app[len(app)-1].Foot > 31) {
				t.Errorf("the lowest grid ends at %+v of a chart %d px high; want 30 px at most above its foot, for the time labels", app, h)
			}
			// The sandbox's market goes on while the app starts: a candle
			// pushed in between may widen the price axis, and then the
			// labels differ for a reason of the market's. Over the same
			// extent they are the first paint's; over another, the app's
			// are still BTC-USDT's one decimal.
			switch got, now := evalJS[[]string](t, ctx, jsPriceLabels), evalJS[[]float64](t, ctx, jsPriceExtent); {
			case slices.Equal(now, extent) && !slices.Equal(got, labels):
				t.Errorf("the first paint wrote the prices %q, the app %q over the same extent %v; want the same", labels, got, extent)
			case !slices.Equal(now, extent) && !evalJS[bool](t, ctx, atTick):
				t.Errorf("the app writes the prices %q, want BTC-USDT's one decimal", got)
			case !slices.Equal(now, extent):
				t.Logf("the market moved the price axis from %v to %v while the app started; labels %q, then %q", extent, now, labels, got)
			}
		})
	}
}

// TestTheChartKeepsItsHeightWhenTheAppRunsWithStudies opens the chart with
// studies on a phone, a tablet, a phone held sideways, a laptop, a desktop
// and in an embed, app.wasm held back: the chart area has its height with
// studies (web/style.css, no taller than the window) in the page as the
// server sent it, and keeps it once the app has drawn the studies, so that
// the page below does not move. The first paint draws the candles into the
// studies' layout (boot.Look), every grid where the app's draw and its
// measure of its legend put it: the volume and oscillator panes, and the
// candles' grid from top to foot. On a chart wider than NarrowWidth the
// legend takes the lines its values need, and the grid starts under them
// (chartopt.PriceTopUnder): the script measures a copy of the legend the
// app will write and removes it. Before, the first paint drew the frame
// without studies, and the app's draw raised the candles' foot by the
// panes' height (on the phone from 381 to 269 px, on the tablet from 418
// to 295); then it started the candles under the most lines the rule
// allows, and the app moved their top up when it measured its legend (on
// the tablet from 96 to 67 px).
func TestTheChartKeepsItsHeightWhenTheAppRunsWithStudies(t *testing.T) {
	s := startServer(t, nil)
	const jsArea = `document.querySelector(".chart-area").getBoundingClientRect().height`
	const maMACDRSI, seven = "ma:7,macd,rsi", "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi"
	for _, tc := range []struct {
		screen      layoutScreen
		indicators  string
		grids       int     // price, volume, and a pane per oscillator
		least, most float64 // the chart area's height with studies
	}{
		{layoutScreen{"phone", "/", 390, 844, true, 34}, maMACDRSI, 4, 560, 844},
		{layoutScreen{"tablet", "/", 768, 1024, true, 34}, maMACDRSI, 4, 600, 1024},
		{layoutScreen{"phone sideways", "/", 844, 390, true, 34}, maMACDRSI, 4, 360, 390}, // no taller than the window
		{layoutScreen{"laptop", "/", 1024, 768, false, 34}, "ma:7,ma:25,boll", 2, 400, 768},
		{layoutScreen{"desktop", "/", 1280, 800, false, 34}, seven, 4, 400, 800},
		{layoutScreen{"embed", "/embed/chart", 800, 600, false, 34}, "ma:7,macd", 3, 300, 600},
	} {
		screen := tc.screen
		t.Run(screen.name, func(t *testing.T) {
			ctx, held := openHoldingAppWasm(t, s.URL+screen.path+"?contract_code=BTC-USDT&period=1min&indicators="+tc.indicators,
				emulation.SetDeviceMetricsOverride(screen.width, screen.height, 1, screen.mobile))
			waitFor(t, ctx, jsFirstPaint+` !== ""`)
			before := evalJS[float64](t, ctx, jsArea)
			if before < tc.least || before > tc.most {
				t.Errorf("before the app runs the chart area is %.0f px high, not the chart's with studies (%.0f to %.0f)", before, tc.least, tc.most)
			}
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			first := evalJS[[]gridSpan](t, ctx, jsGrids)
			if n := evalJS[int](t, ctx, `document.querySelectorAll(".legend:not(#legend)").length`); n != 0 {
				t.Errorf("the first paint left %d copies of the legend in the page", n)
			}
			letAppWasmThrough(t, ctx, held)
			waitDrawn(t, ctx, "BTC-USDT|1min")
			waitFor(t, ctx, `document.querySelector(".legend-study") !== null`)
			waitFor(t, ctx, jsPriceTopFitted)
			if after := evalJS[float64](t, ctx, jsArea); math.Abs(after-before) > 0.5 {
				t.Errorf("the chart area was %.0f px high before the app ran, %.0f px once it drew the studies", before, after)
			}
			app := evalJS[[]gridSpan](t, ctx, jsGrids)
			if len(first) != tc.grids || len(app) != tc.grids {
				t.Fatalf("the first paint drew %d grids (%+v), the app %d (%+v); want %d", len(first), first, len(app), app, tc.grids)
			}
			if !slices.Equal(first, app) {
				t.Errorf("the first paint's grids %+v, the app's %+v under its legend (%s); want them alike", first, app,
					evalJS[string](t, ctx, `document.getElementById("legend").innerText.replace(/\s+/g, " ")`))
			}
			t.Logf("the candles from %d to %d px", app[0].Y, app[0].Foot)
		})
	}
}

// withinLastPlace reports whether two numbers written with the same
// decimals and thousands separators are a unit of their last place apart
// at most (0.00001351960 and 0.00001351959).
func withinLastPlace(a, b string) bool {
	x, errX := strconv.ParseFloat(strings.ReplaceAll(a, ",", ""), 64)
	y, errY := strconv.ParseFloat(strings.ReplaceAll(b, ",", ""), 64)
	_, frac, _ := strings.Cut(a, ".")
	return errX == nil && errY == nil && math.Abs(x-y) <= 1.000001*math.Pow10(-len(frac))
}

// TestTheFirstPaintMeasuresTheLegendTheAppWrites holds app.wasm and the
// live stream back, so that the latest candle stays as the first paint read
// it, and compares the copy of the legend the first paint measured
// (web/chart-boot.js, riskchartBoot.legend) with the legend the app writes,
// term by term: the candle's time, prices at the contract's decimals,
// change, volumes, and each study line's value at its decimals, or a dash
// where it has too little history. The candle's terms are the same to the
// letter: the script works them out in decimals from the answer's text, as
// the app does. It works the studies out in floating point and the app
// exactly, so a study's value may differ by a unit of its last place, never
// in its length. One case rewrites the newest candle's prices to values half
// way between two of the contract's (ETH-USDT's two places): as doubles they
// are a hair off the half, and rounding the double wrote 3300.015 as
// "3,300.01" where the app writes "3,300.02".
func TestTheFirstPaintMeasuresTheLegendTheAppWrites(t *testing.T) {
	s := startServer(t, nil)
	const jsAppLegend = `[...document.querySelectorAll("#legend .legend-item")].map((i) => [i.querySelector("dt").textContent, i.querySelector("dd").textContent])`
	const candleTerms = 11 // Time, O, H, L, C, Chg, Chg%, Vol, Amount, Turnover, Count; the studies' follow
	for _, tc := range []struct {
		name, query   string
		width, height int64
		newest        map[string]string // the newest candle's numbers as the answer is rewritten to carry them; nil: as the server sent it
	}{
		{"seven studies", "contract_code=BTC-USDT&period=1min&indicators=ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi", 1280, 800, nil},
		{"a coin of many decimals", "contract_code=SHIB-USDT&period=5min&indicators=ema:12,boll,macd,vol_ma:5", 1024, 768, nil},
		{"days, one study too long for the candles", "contract_code=ETH-USDT&period=1day&indicators=ma:500,rsi", 900, 700, nil},
		{"prices half way between two of the contract's", "contract_code=ETH-USDT&period=1day&indicators=ma:7", 1280, 800,
			map[string]string{"open": "3300.015", "close": "3300.055", "high": "3300.075", "low": "3299.995", "vol": "12.50", "amount": "0.0375"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rewrite func([]byte) ([]byte, error)
			if tc.newest != nil {
				rewrite = func(body []byte) ([]byte, error) { return withNewestCandle(body, tc.newest) }
			}
			ctx, held := openStillRewritingKLine(t, s.URL+"/?"+tc.query, rewrite, emulation.SetDeviceMetricsOverride(tc.width, tc.height, 1, false))
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			measured := evalJS[[][2]string](t, ctx, `riskchartBoot.legend || []`)
			if len(measured) == 0 {
				t.Fatal("the first paint measured no legend")
			}
			letAppWasmThrough(t, ctx, held)
			waitFor(t, ctx, jsPriceTopFitted)
			written := evalJS[[][2]string](t, ctx, jsAppLegend)
			if len(written) != len(measured) || len(written) < candleTerms {
				t.Fatalf("the first paint measured %d items %v, the app writes %d %v", len(measured), measured, len(written), written)
			}
			for i, m := range measured {
				w := written[i]
				if m[0] != w[0] || len(m[1]) != len(w[1]) || (m[1] != w[1] && (i < candleTerms || !withinLastPlace(m[1], w[1]))) {
					t.Errorf("item %d: the first paint measured %q %q, the app writes %q %q", i, m[0], m[1], w[0], w[1])
				}
			}
			if tc.newest != nil && (written[1][1] != "3,300.02" || written[4][1] != "3,300.06" || written[7][1] != "12.5") {
				t.Errorf("the app's legend does not show the rewritten candle: %v", written[:candleTerms])
			}
			t.Logf("%d items, e.g. %v", len(written), written[len(written)-1])
		})
	}
}

// withNewestCandle is body, a KLine answer, with numbers of its newest
// candle (the greatest id) replaced by newest's, written as JSON numbers.
func withNewestCandle(body []byte, newest map[string]string) ([]byte, error) {
	var answer map[string]json.RawMessage
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("reading the KLine answer: %w", err)
	}
	var candles []map[string]json.RawMessage
	if err := json.Unmarshal(answer["data"], &candles); err != nil || len(candles) == 0 {
		return nil, fmt.Errorf("reading the KLine answer's %d candles: %v", len(candles), err)
	}
	last, lastID := 0, int64(math.MinInt64)
	for i, c := range candles {
		id, err := strconv.ParseInt(string(c["id"]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("reading candle %d's id: %w", i, err)
		}
		if id > lastID {
			last, lastID = i, id
		}
	}
	for k, v := range newest {
		candles[last][k] = json.RawMessage(v)
	}
	data, err := json.Marshal(candles)
	if err != nil {
		return nil, err
	}
	answer["data"] = data
	return json.Marshal(answer)
}

// TestTheFirstPaintDrawsTheStudiesLines holds app.wasm and the live stream
// back and compares the first paint's study lines and axes with the app's:
// every line of every study has points at the same candles, with values
// within a millionth of a percent of the line's largest (the script works
// them out in floating point; MACD's lines are differences of averages of
// prices near 96,000, so a point near zero carries their rounding, about
// 1e-11 absolute, and cannot be held to a share of itself: the app's DIF
// 0.003363424746 is the script's 0.0033634247084, a hundred-millionth of
// itself apart), and every pane's value axis writes the same
// labels before the app and with it. Before, the first paint left the lines
// out: the oscillator panes were empty until the app ran, and the app's
// lines of a study of the price widened the price axis (an 800 × 440 embed
// with MA 7, MA 25, BOLL and VOL MA went from labels 95,800–96,500 by 100
// to 95,600–96,600 by 200).
func TestTheFirstPaintDrawsTheStudiesLines(t *testing.T) {
	s := startServer(t, nil)
	// Each line's values, in candle order (null where it draws no point), from
	// the series' data: [index, value] pairs, flat or in rows.
	const jsLines = `(() => { const c = ` + jsChart + `, o = c.getOption();
  const values = (d) => (ArrayBuffer.isView(d) || typeof d[0] === "number" ? Array.from(d).filter((_, i) => i % 2 === 1) : d.map((p) => p && p[1]));
  return JSON.stringify({
    lines: o.series.slice(3).map((s) => values(s.data).map((v) => (v === null || v === undefined || Number.isNaN(v) ? null : v))),
    axes: o.yAxis.map((_, i) => c.getModel().getComponent("yAxis", i).axis.getViewLabels().map((l) => l.formattedLabel)),
  }); })()`
	type drawn struct {
		Lines [][]*float64
		Axes  [][]string
	}
	read := func(ctx context.Context) drawn {
		var d drawn
		if err := json.Unmarshal([]byte(evalJS[string](t, ctx, jsLines)), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name, path, query string
		width, height     int64
		lines             int
	}{
		{"seven studies", "/", "indicators=ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi", 1280, 800, 11},
		{"an embed with BOLL", "/embed/chart", "indicators=ma:7,ma:25,boll,vol_ma", 800, 440, 6},
		{"BOLL on a log scale", "/", "scale=log&indicators=boll,rsi", 1280, 800, 4},
		{"a phone, MACD", "/", "indicators=macd,ema:12", 390, 844, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, held := openStillHoldingAppWasm(t, s.URL+tc.path+"?contract_code=BTC-USDT&period=1min&"+tc.query,
				emulation.SetDeviceMetricsOverride(tc.width, tc.height, 1, tc.width < 640))
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			first := read(ctx)
			letAppWasmThrough(t, ctx, held)
			waitFor(t, ctx, jsPriceTopFitted)
			app := read(ctx)
			if len(first.Lines) != tc.lines || len(app.Lines) != tc.lines {
				t.Fatalf("the first paint drew %d study lines, the app %d; want %d", len(first.Lines), len(app.Lines), tc.lines)
			}
			for i := range app.Lines {
				f, a := first.Lines[i], app.Lines[i]
				if len(f) != len(a) {
					t.Errorf("line %d: %d points at first, %d from the app", i, len(f), len(a))
					continue
				}
				points, off, scale := 0, 0, 0.0
				for _, v := range a {
					if v != nil {
						scale = math.Max(scale, math.Abs(*v))
					}
				}
				for j := range a {
					switch {
					case (f[j] == nil) != (a[j] == nil):
						off++
					case a[j] != nil:
						points++
						if !(math.Abs(*f[j]-*a[j]) <= 1e-8*scale) {
							off++
						}
					}
				}
				if off > 0 || points == 0 {
					t.Errorf("line %d: %d of its %d points off the app's (%d drawn)", i, off, len(a), points)
				}
			}
			if !reflect.DeepEqual(first.Axes, app.Axes) {
				t.Errorf("the value axes wrote %q before the app, %q with it", first.Axes, app.Axes)
			}
		})
	}
}
