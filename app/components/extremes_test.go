package components

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func TestExtremesOfTheViewAreItsHighestAndLowestPrices(t *testing.T) {
	d := decimal.RequireFromString
	k := func(high, low, close string) venueapi.Candle {
		return venueapi.Candle{High: d(high), Low: d(low), Close: d(close)}
	}
	// Prices that a float would confuse: 0.1+0.2 style digits far to the right.
	// The closes peak and bottom out at other candles than the wicks do.
	candles := []venueapi.Candle{
		k("100.5", "99", "99.5"),
		k("101.30000001", "98.9", "99.1"),
		k("101.3", "98.90000001", "100.20000001"),
		k("100", "97.5", "100.2"),
		k("101.30000001", "99.2", "99.10000001"),
	}
	tests := []struct {
		name       string
		start, end int
		onCloses   bool
		high, low  int
		ok         bool
	}{
		{"the whole series: the earliest of two equal highs", 0, 4, false, 1, 3, true},
		{"a view that leaves the lowest low out", 0, 2, false, 1, 1, true},
		{"one candle is its own high and low", 2, 2, false, 2, 2, true},
		{"a view past the candles held is clamped", 3, 99, false, 4, 3, true},
		{"a view before the first candle is clamped", -5, 0, false, 0, 0, true},
		{"an empty view marks nothing", 3, 2, false, 0, 0, false},
		{"a line: the highest and the lowest close, not the wicks", 0, 4, true, 2, 1, true},
		{"a line: the lowest close left out of the view", 2, 4, true, 2, 4, true},
		{"a line over one candle", 3, 3, true, 3, 3, true},
		{"a line over an empty view marks nothing", 4, 3, true, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			high, low := extremePrices(tt.onCloses)
			h, l, ok := extremesOf(candles, tt.start, tt.end, high, low)
			if h != tt.high || l != tt.low || ok != tt.ok {
				t.Errorf("extremesOf(%d, %d, closes %v) = %d, %d, %v; want %d, %d, %v", tt.start, tt.end, tt.onCloses, h, l, ok, tt.high, tt.low, tt.ok)
			}
		})
	}
	if _, _, ok := extremesOf(nil, 0, 10, highOf, lowOf); ok {
		t.Error("no candles: nothing to mark")
	}
}
