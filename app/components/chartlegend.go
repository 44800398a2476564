package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/chartopt"
)

// priceTop is where the frame starts the price grid under the studies'
// legend (chartopt.Style.PriceTop): under the legend as last measured, or 0
// for the frame's rule: until it is measured, without studies, on a narrow
// chart (one line) and in a compact embed (its own top).
func (k *KLineChart) priceTop(narrow bool) int {
	if narrow || k.Compact || k.Look.Indicators == "" {
		return 0
	}
	return k.legendTop
}

// fitLegend measures the legend with the studies' values and moves the
// price grid's top under it when it has moved: after a draw, a change of
// the studies and a resize, never on a move of the pointer or a live
// update, so that what the legend says never moves the chart. Each fit
// leaves the mark riskchart:legend-fitted, which browser tests wait for.
func (k *KLineChart) fitLegend() {
	if k.chart == nil || len(k.candles) == 0 || k.Look.Indicators == "" || k.Compact {
		return
	}
	bottom, ok := browser.Below("legend", "chart")
	if !ok {
		return
	}
	k.legendTop = chartopt.PriceTopUnder(bottom)
	if top := k.priceTop(k.narrow()); top != k.topDrew {
		if top > 0 {
			k.chart.Patch(chartopt.PriceTopPatch(top))
		}
		k.topDrew = top
	}
	browser.Mark("riskchart:legend-fitted")
}

// fitted fits the legend and tells OnLayout how high the price pane of the
// full layout is.
func (k *KLineChart) fitted(ctx app.Context) {
	k.fitLegend()
	if k.OnLayout == nil || k.chart == nil || k.Compact || len(k.candles) == 0 {
		return
	}
	if px, ok := k.chart.PricePane(); ok {
		k.OnLayout(ctx, px)
	}
}
