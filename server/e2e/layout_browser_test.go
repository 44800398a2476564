package e2e

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// jsLayout reads the chart's layout: the legend's height, each grid's
// height, and the time labels' boxes against the chart's.
const jsLayout = `(() => {
  const c = ` + jsChart + `, m = c.getModel(), o = c.getOption();
  const grids = o.grid.map((_, i) => m.getComponent("grid", i).coordinateSystem.getRect().height);
  const texts = c.getZr().storage.getDisplayList(true).filter((e) => (e.type === "text" || e.type === "tspan") && !e.ignore && e.style && /^\d\d-\d\d \d\d:\d\d$|^\d\d:\d\d$/.test(e.style.text || "")).map((e) => { const r = e.getBoundingRect().clone(); if (e.transform) r.applyTransform(e.transform); return {text: e.style.text, x: r.x, w: r.width, y: r.y}; });
  return {legend: document.getElementById("legend").getBoundingClientRect().height, grids, width: c.getWidth(), height: c.getHeight(), texts};
})()`

type layoutDrawn struct {
	Legend float64   `json:"legend"`
	Grids  []float64 `json:"grids"`
	Width  float64   `json:"width"`
	Height float64   `json:"height"`
	Texts  []struct {
		Text    string
		X, W, Y float64
	} `json:"texts"`
}

func TestChartLayoutWithAllStudiesOnAPhoneAndAWideScreen(t *testing.T) {
	s := startServer(t, nil)
	for _, screen := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"phone", 390, 844, true}, {"wide", 1920, 1080, false}} {
		t.Run(screen.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(screen.width, screen.height, 1, screen.mobile),
				chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&indicators="+allStudies)); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|1min")
			l := evalJS[layoutDrawn](t, ctx, jsLayout)
			if len(l.Grids) != 4 {
				t.Fatalf("%d grids for price, volume, MACD and RSI", len(l.Grids))
			}
			for i, h := range l.Grids[1:] {
				if h >= l.Grids[0] {
					t.Errorf("pane %d is %.0f px high, the candles' %.0f: the price pane must stay the largest", i+1, h, l.Grids[0])
				}
			}
			if l.Legend > 75 {
				t.Errorf("the legend is %.0f px high over the chart", l.Legend)
			}
			labels := 0
			for _, lbl := range l.Texts {
				if lbl.Y > l.Height-34 {
					continue // the zoom slider's handle labels, shown while dragging
				}
				labels++
				if lbl.X < 0 || lbl.X+lbl.W > l.Width {
					t.Errorf("time label %q cut at the chart's edge: %.0f to %.0f of %.0f px", lbl.Text, lbl.X, lbl.X+lbl.W, l.Width)
				}
			}
			if labels < 2 {
				t.Errorf("%d time labels: %+v", labels, l.Texts)
			}
			if crowded := evalJS[string](t, ctx, jsPaneLabelsApart); crowded != "" {
				t.Errorf("the panes' axis labels run into each other at their edges: %s", crowded)
			}
			t.Logf("%s: legend %.0f px, panes %.0f px", screen.name, l.Legend, l.Grids)
			screenshot(t, ctx, "chart-all-studies-"+screen.name)
		})
	}
}

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
