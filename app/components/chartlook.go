package components

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/echarts"
)

// style is the frame the chart draws: the theme's colours with the view's
// scale, chart style and studies, for the chart's width.
func (k *KLineChart) style() chartopt.Style {
	s := chartopt.DefaultStyle(k.Dark)
	s.Scale, s.Kind = k.Look.Scale, k.Look.Kind
	s.Studies = k.studyLines()
	s.Narrow = k.narrow()
	s.PriceTop = k.priceTop(s.Narrow)
	s.PriceRoom = k.room
	return s
}

// narrow reports whether the frame is a narrow chart's (chartopt's
// Style.Narrow). Only a legend with the studies' values keeps to one line:
// a frame without them is the same at any width (and the first paint's,
// adopted). The view names studies exactly when it draws study lines.
func (k *KLineChart) narrow() bool {
	return k.Look.Indicators != "" && k.chart != nil && k.chart.Width() <= chartopt.NarrowWidth
}

// attachAxes gives the chart the page's label rules: prices at the
// contract's decimals (or in percent from the first candle in view), no
// two of them less than the contract's tick apart, volume
// briefly, time on round times of the period.
func (k *KLineChart) attachAxes() {
	if k.chart == nil {
		return
	}
	k.chart.SetAxes(echarts.Axes{Price: k.priceLabel, Pointer: k.tagLabel, Volume: chartopt.FormatVolume, TimeShown: k.timeShown,
		PriceStep: chartopt.PriceStep(k.Decimals)})
	k.chart.SetPriceText(k.markLabel)
	k.chart.SetExtremes(k.extremes)
}

// tagLabel writes the price under the crosshair: the price itself on every
// scale, and on the percent scale its distance from the first close in
// view beside it ("99,518.3 (+1.25%)"). ECharts keeps the crosshair's label
// inside the chart.
func (k *KLineChart) tagLabel(v float64) string { return k.priceAndPercent(v, " (", ")") }

// markLabel writes the last-price tag: as tagLabel, with the distance in
// percent on a line of its own, under the price. The tag lies in the price
// axis' room, which its labels' width sets: beside the price, the distance
// ran 40 px past the canvas.
func (k *KLineChart) markLabel(v float64) string { return k.priceAndPercent(v, "\n", "") }

// priceAndPercent writes price v and, on the percent scale, its distance
// from the first close in view ("+1.25%") between before and after; the
// price alone on the other scales, or with no candle in view.
func (k *KLineChart) priceAndPercent(v float64, before, after string) string {
	price := chartopt.FormatPrice(v, k.Decimals)
	if k.Look.Scale != chartopt.ScalePercent {
		return price
	}
	base, ok := k.percentBase()
	if !ok {
		return price
	}
	if pct := chartopt.FormatPercent(v, base); pct != "" {
		return price + before + pct + after
	}
	return price
}

// percentBase is the close of the first candle in view, which the percent
// scale measures from; ok is false when no candle is there.
func (k *KLineChart) percentBase() (base float64, ok bool) {
	start, _ := k.chart.View()
	if start < 0 || start >= len(k.candles) {
		return 0, false
	}
	base, _ = k.candles[start].Close.Float64()
	return base, true
}

// priceLabel writes a price axis value.
func (k *KLineChart) priceLabel(v float64) string {
	if k.Look.Scale == chartopt.ScalePercent {
		if base, ok := k.percentBase(); ok {
			return chartopt.FormatPercent(v, base)
		}
	}
	return chartopt.FormatPrice(v, k.Decimals) // < 0: the contract is not known yet, as few digits as the value needs
}

// timeShown tells the time axis whether candle i begins a round time of
// the step that fits the view (chartopt.StepFor).
func (k *KLineChart) timeShown(i int) bool {
	if i <= 0 || i >= len(k.candles) {
		return false
	}
	start, end := k.chart.View()
	step := chartopt.StepFor(k.Period, end-start+1, chartopt.TimeLabels)
	loc := chartopt.LabelZone(k.Period, k.loc()) // a daily candle's month is its UTC date's, as its label says
	return step.Bucket(k.candles[i].ID, loc) != step.Bucket(k.candles[i-1].ID, loc)
}

// countdown writes the time left in the newest candle beside the last
// price, once a second, until gone is closed: the tag alone is repainted
// (app/echarts/lastprice.go), and the page is not rendered again for it.
func (k *KLineChart) countdown(ctx app.Context, gone <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-gone:
			return
		case now := <-t.C:
			ctx.Dispatch(func(ctx app.Context) {
				ctx.PreventUpdate()
				if k.chart != nil && len(k.candles) > 0 {
					k.chart.SetTimeLeft(chartopt.TimeLeft(k.candles[len(k.candles)-1].ID, k.Period, now))
				}
			})
		}
	}
}

// baseCoin is the coin a contract's amount is counted in: "BTC" of BTC-USDT.
func baseCoin(contract string) string {
	base, _, _ := strings.Cut(contract, "-")
	return base
}
