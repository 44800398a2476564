package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/echarts"
)

// extremes finds the highest high and the lowest low of the candles from
// index start to end (the highest and the lowest close in a style that
// draws closes alone), exactly, for the chart's marks
// (app/echarts/extremes.go); ok is false when no candle is in that range.
func (k *KLineChart) extremes(start, end int) (high, low echarts.Extreme, ok bool) {
	hiPrice, loPrice := extremePrices(k.Look.Kind.ClosesOnly())
	h, l, ok := extremesOf(k.candles, start, end, hiPrice, loPrice)
	if !ok {
		return high, low, false
	}
	mark := func(i int, d decimal.Decimal) echarts.Extreme {
		v, _ := d.Float64() // drawn: a pixel position
		return echarts.Extreme{Index: i, Value: v, Text: priceText(d, k.Decimals)}
	}
	return mark(h, hiPrice(k.candles[h])), mark(l, loPrice(k.candles[l])), true
}

// priceText writes an exact price at the contract's precision, decimals
// (as the venue wrote it when that is < 0: not known), grouped as the axis
// writes prices; the legend writes its prices so too.
func priceText(d decimal.Decimal, decimals int32) string {
	if decimals < 0 {
		return grouped(d)
	}
	return chartopt.Group(d.StringFixed(decimals))
}
