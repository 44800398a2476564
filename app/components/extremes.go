package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// extremesOf returns the indexes of the highest and the lowest price of
// candles[start..end] (clamped to the candles held), the earliest on a tie;
// ok is false when the range holds no candle. The prices are the highs and
// the lows, or the closes alone when onCloses: a line or an area draws the
// closes, and its price axis fits them alone (app/chartopt/styles.go), so a
// wick's high may lie off the grid.
func extremesOf(candles []venueapi.Candle, start, end int, onCloses bool) (high, low int, ok bool) {
	start, end = max(start, 0), min(end, len(candles)-1)
	if start > end {
		return 0, 0, false
	}
	hi, lo := func(c venueapi.Candle) decimal.Decimal { return c.High }, func(c venueapi.Candle) decimal.Decimal { return c.Low }
	if onCloses {
		hi, lo = closeOf, closeOf
	}
	high, low = start, start
	for i := start + 1; i <= end; i++ {
		if hi(candles[i]).GreaterThan(hi(candles[high])) {
			high = i
		}
		if lo(candles[i]).LessThan(lo(candles[low])) {
			low = i
		}
	}
	return high, low, true
}

func closeOf(c venueapi.Candle) decimal.Decimal { return c.Close }
