package components

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func TestExtremesOfTheViewAreItsHighestHighAndLowestLow(t *testing.T) {
	d := decimal.RequireFromString
	k := func(high, low string) venueapi.Candle { return venueapi.Candle{High: d(high), Low: d(low)} }
	// Prices that a float would confuse: 0.1+0.2 style digits far to the right.
	candles := []venueapi.Candle{k("100.5", "99"), k("101.30000001", "98.9"), k("101.3", "98.90000001"), k("100", "97.5"), k("101.30000001", "99.2")}
	tests := []struct {
		name       string
		start, end int
		high, low  int
		ok         bool
	}{
		{"the whole series: the earliest of two equal highs", 0, 4, 1, 3, true},
		{"a view that leaves the lowest low out", 0, 2, 1, 1, true},
		{"one candle is its own high and low", 2, 2, 2, 2, true},
		{"a view past the candles held is clamped", 3, 99, 4, 3, true},
		{"a view before the first candle is clamped", -5, 0, 0, 0, true},
		{"an empty view marks nothing", 3, 2, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, l, ok := extremesOf(candles, tt.start, tt.end)
			if h != tt.high || l != tt.low || ok != tt.ok {
				t.Errorf("extremesOf(%d, %d) = %d, %d, %v; want %d, %d, %v", tt.start, tt.end, h, l, ok, tt.high, tt.low, tt.ok)
			}
		})
	}
	if _, _, ok := extremesOf(nil, 0, 10); ok {
		t.Error("no candles: nothing to mark")
	}
}
