//go:build !js

package components

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// A candle is final only 10 s after its close (docs/decisions.md, "Closed
// candles"): the one before the current candle may still change after the
// current one began, and the stream pushes that change (docs/decisions.md,
// "Stream event ids"), as a poll of the newest two brings it. The chart
// must draw the revised candle, not keep the snapshot it had.
func TestARevisionOfTheCandleBeforeTheCurrentOneIsDrawn(t *testing.T) {
	m := venueapi.Period1Min
	start := int64(1_764_000_000)
	for _, tc := range []struct {
		name  string
		fresh func(prev, cur venueapi.Candle) [][]venueapi.Candle // each a push or a poll's answer
	}{
		{"pushed alone", func(prev, cur venueapi.Candle) [][]venueapi.Candle { return [][]venueapi.Candle{{prev}} }},
		{"pushed, then the current candle", func(prev, cur venueapi.Candle) [][]venueapi.Candle {
			return [][]venueapi.Candle{{prev}, {cur}}
		}},
		{"a poll of the newest two", func(prev, cur venueapi.Candle) [][]venueapi.Candle { return [][]venueapi.Candle{{prev, cur}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := drawnChart("BTC-USDT", m, run(m, start, 10, "100"))
			prev := candleAt(k.candles[8].ID, "105") // its last trades came after the current candle began
			for _, fresh := range tc.fresh(prev, k.candles[9]) {
				k.takeLive(app.Context{}, fresh)
			}
			if len(k.candles) != 10 {
				t.Fatalf("the chart holds %d candles, want 10", len(k.candles))
			}
			if got := k.candles[8].Close.String(); got != "105" {
				t.Errorf("the candle before the current one closes at %s, want its revision's 105", got)
			}
		})
	}
}

// A poll brings the candle before the current one every time: the same
// figures, however written, are no revision, and a candle the chart does
// not hold is not put in.
func TestOnlyAChangedCandleIsARevision(t *testing.T) {
	m := venueapi.Period1Min
	start := int64(1_764_000_000)
	held := run(m, start, 3, "100")
	same := held[1]
	same.Close = decimal.RequireFromString("100.00")
	for _, tc := range []struct {
		name string
		c    venueapi.Candle
		want bool
	}{
		{"the same figures", held[1], false},
		{"the same figures written with more digits", same, false},
		{"a new close", candleAt(held[1].ID, "101"), true},
		{"a candle not held", candleAt(m.Next(held[2].ID), "101"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := run(m, start, 3, "100")
			if got := revise(cs, tc.c); got != tc.want {
				t.Errorf("revise = %v, want %v", got, tc.want)
			}
			if tc.want && !cs[1].Equal(tc.c) {
				t.Errorf("the held candle is %v, want %v", cs[1], tc.c)
			}
			if len(cs) != 3 {
				t.Errorf("%d candles held, want 3", len(cs))
			}
		})
	}
}
