package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// priceSpan is the lowest low and the highest high of the candles a chart
// holds: the price axis never writes a label much longer than theirs.
type priceSpan struct {
	lo, hi decimal.Decimal
	ok     bool // a candle was added
}

// spanOf is the span of candles.
func spanOf(candles []venueapi.Candle) priceSpan {
	var s priceSpan
	s.add(candles...)
	return s
}

// add widens the span to candles, reporting whether it moved.
func (s *priceSpan) add(candles ...venueapi.Candle) bool {
	moved := false
	for _, c := range candles {
		switch {
		case !s.ok:
			s.lo, s.hi, s.ok, moved = c.Low, c.High, true, true
		case c.Low.LessThan(s.lo):
			s.lo, moved = c.Low, true
		}
		if c.High.GreaterThan(s.hi) {
			s.hi, moved = c.High, true
		}
	}
	return moved
}

// widenRoom takes candles into the held span and, when they widen it, fits
// the price axis' room again and patches it in: a prepend of older candles,
// or a live candle past the highest high (a patch only when the room
// changes: a new high past a power of ten).
func (k *KLineChart) widenRoom(candles []venueapi.Candle) {
	if k.span.add(candles...) {
		k.fitRoom()
		k.chart.SetRoom(k.room)
	}
}

// fitRoom sets the room the price axis needs right of the grids
// (chartopt.PriceRoom) for the labels of the candles held, as the browser
// measures them: a coin quoted to nine decimals ("0.000012345") or a price
// past a million needs more than the frame's default. Set before a frame
// is drawn, the frame has it; on a chart already drawn, the caller patches
// it in (echarts.Chart.SetRoom), which does nothing when it has not changed.
//
// The labels measured are chartopt.PriceRoomLabels'. With the contract's
// decimals not known yet, the candles' own digits are counted, more than
// the axis then writes. The first paint (web/chart-boot.js) fits its room
// by the same rule, so the app's first draw keeps it.
func (k *KLineChart) fitRoom() {
	if k.chart == nil || !k.span.ok {
		return
	}
	d := k.Decimals
	if d < 0 {
		d = max(-k.span.lo.Exponent(), -k.span.hi.Exponent(), 0)
	}
	size := chartopt.AxisFontSize
	if k.Compact {
		size = chartopt.CompactAxisFontSize
	}
	w := 0.0
	for _, label := range chartopt.PriceRoomLabels(k.span.lo.InexactFloat64(), k.span.hi.InexactFloat64(), d) {
		w = max(w, k.chart.TextWidth(label, chartopt.AxisFont(size)))
	}
	k.room = chartopt.PriceRoom(w)
}
