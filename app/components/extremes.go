package components

import "github.com/riskchart/riskchart/venueapi"

// extremesOf returns the indexes of the highest high and the lowest low of
// candles[start..end] (clamped to the candles held), the earliest on a tie;
// ok is false when the range holds no candle.
func extremesOf(candles []venueapi.Candle, start, end int) (high, low int, ok bool) {
	start, end = max(start, 0), min(end, len(candles)-1)
	if start > end {
		return 0, 0, false
	}
	high, low = start, start
	for i := start + 1; i <= end; i++ {
		if candles[i].High.GreaterThan(candles[high].High) {
			high = i
		}
		if candles[i].Low.LessThan(candles[low].Low) {
			low = i
		}
	}
	return high, low, true
}
