package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// price reads one of a candle's prices.
type price func(venueapi.Candle) decimal.Decimal

func highOf(c venueapi.Candle) decimal.Decimal  { return c.High }
func lowOf(c venueapi.Candle) decimal.Decimal   { return c.Low }
func closeOf(c venueapi.Candle) decimal.Decimal { return c.Close }

// extremePrices are the prices a view's high and low are found among: the
// highs and the lows, or the closes alone when onCloses. A line or an area
// draws the closes, and its price axis fits them alone
// (app/chartopt/styles.go), so a wick's high may lie off the grid.
func extremePrices(onCloses bool) (high, low price) {
	if onCloses {
		return closeOf, closeOf
	}
	return highOf, lowOf
}

// extremesOf returns the indexes of the highest high and the lowest low of
// candles[start..end] (clamped to the candles held), as high and low read
// them, the earliest on a tie; ok is false when the range holds no candle.
func extremesOf(candles []venueapi.Candle, start, end int, high, low price) (hi, lo int, ok bool) {
	start, end = max(start, 0), min(end, len(candles)-1)
	if start > end {
		return 0, 0, false
	}
	hi, lo = start, start
	for i := start + 1; i <= end; i++ {
		if high(candles[i]).GreaterThan(high(candles[hi])) {
			hi = i
		}
		if low(candles[i]).LessThan(low(candles[lo])) {
			lo = i
		}
	}
	return hi, lo, true
}
