//go:build !js

package components

import (
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func TestTheCandlesAChartMissedAreTheOnesBetweenItsNewestAndTheLive(t *testing.T) {
	minute := int64(1_764_000_000) // a minute's start
	month := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	monthAt := func(m time.Month) int64 { return time.Date(2026, m, 1, 0, 0, 0, 0, time.UTC).Unix() }
	candles := func(ids ...int64) []venueapi.Candle {
		var cs []venueapi.Candle
		for _, id := range ids {
			cs = append(cs, venueapi.Candle{ID: id})
		}
		return cs
	}
	for _, tc := range []struct {
		name     string
		p        venueapi.Period
		newest   int64
		fresh    []venueapi.Candle
		from, to int64
		ok       bool
	}{
		{"the newest candle again", venueapi.Period1Min, minute, candles(minute), 0, 0, false},
		{"the next candle", venueapi.Period1Min, minute, candles(minute + 60), 0, 0, false},
		{"a poll's two: the newest and the next", venueapi.Period1Min, minute, candles(minute, minute+60), 0, 0, false},
		{"older candles only", venueapi.Period1Min, minute, candles(minute-120, minute-60), 0, 0, false},
		{"nothing", venueapi.Period1Min, minute, nil, 0, 0, false},
		{"one candle missed", venueapi.Period1Min, minute, candles(minute + 120), minute + 60, minute + 60, true},
		{"a stream's first two after five minutes", venueapi.Period1Min, minute, candles(minute+240, minute+300), minute + 60, minute + 180, true},
		{"the newest candle again, then past a gap", venueapi.Period1Min, minute, candles(minute, minute+180), minute + 60, minute + 120, true},
		{"an older candle first, then past a gap", venueapi.Period1Min, minute, candles(minute-60, minute+180), minute + 60, minute + 120, true},
		{"hours", venueapi.Period4Hour, minute - minute%14400, candles(minute - minute%14400 + 3*14400), minute - minute%14400 + 14400, minute - minute%14400 + 2*14400, true},
		{"months, by the calendar", venueapi.Period1Mon, month, candles(monthAt(4)), monthAt(2), monthAt(3), true},
		{"the next month", venueapi.Period1Mon, month, candles(monthAt(2)), 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to, ok := missed(tc.p, tc.newest, tc.fresh)
			if from != tc.from || to != tc.to || ok != tc.ok {
				t.Errorf("missed = %d, %d, %v; want %d, %d, %v", from, to, ok, tc.from, tc.to, tc.ok)
			}
		})
	}
}

// holdLive keeps one version of each candle, the latest, and at most the
// newest most of them; lost says that older ones went.
func TestHeldLiveCandlesKeepTheLatestVersionOfEachAndTheNewestMost(t *testing.T) {
	const m = 60
	c := func(id int64, close int64) venueapi.Candle {
		return venueapi.Candle{ID: id, Close: decimal.NewFromInt(close)}
	}
	ids := func(cs []venueapi.Candle) []int64 {
		out := []int64{}
		for _, k := range cs {
			out = append(out, k.ID)
		}
		return out
	}
	held, lost := holdLive(nil, []venueapi.Candle{c(m, 1), c(2*m, 1), c(2*m, 2), c(3*m, 1)}, 3)
	if !slices.Equal(ids(held), []int64{m, 2 * m, 3 * m}) || lost || !held[1].Close.Equal(decimal.NewFromInt(2)) {
		t.Fatalf("held %v (lost %v), the second closing at %s; want three candles, the second's latest version, none lost", ids(held), lost, held[1].Close)
	}
	held, lost = holdLive(held, []venueapi.Candle{c(3*m, 2), c(4*m, 1)}, 3)
	if !slices.Equal(ids(held), []int64{2 * m, 3 * m, 4 * m}) || !lost || !held[1].Close.Equal(decimal.NewFromInt(2)) {
		t.Fatalf("held %v (lost %v); want the newest three, the oldest lost", ids(held), lost)
	}
}
