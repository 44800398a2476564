package candles

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func TestTrimDropsTheOldestCandlesButKeepsTheAskedThePinnedAndTheNewest(t *testing.T) {
	p := venueapi.Period1Min
	const rec = 100 + recordOverhead // each record below is 100 bytes of JSON
	build := func(spans ...Span) *Series {
		s := newSeries(NewStore(1<<30), Key{Code: "BTC-USDT", Period: p})
		s.bytes = 0
		for _, sp := range spans {
			for id := sp.Lo; id <= sp.Hi; id += m {
				s.recs[id] = bytes.Repeat([]byte{'x'}, 100)
				s.bytes += rec
			}
			s.held.Add(sp)
		}
		return s
	}
	newest := Span{10_000 * m, 12_500 * m} // 2501 candles: the newest 2000 stay
	for _, tc := range []struct {
		name      string
		held      []Span
		pins      [][2]int64
		over      int64
		keep      int64
		protect   Span
		wantSpans []Span
	}{
		{"under the limit: nothing goes", []Span{{0, 99 * m}, newest}, nil, 3000 * rec, 0, none(), []Span{{0, 99 * m}, newest}},
		{"the oldest go first, down to keep", []Span{{0, 99 * m}, newest}, nil, 0, (2501 + 40) * rec, none(), []Span{{60 * m, 99 * m}, newest}},
		{"the asked span stays though oldest", []Span{{0, 99 * m}, {200 * m, 299 * m}, newest}, nil, 0, 0, Span{0, 99 * m}, []Span{{0, 99 * m}, {10_501 * m, 12_500 * m}}},
		{"the newest 2000 stay", []Span{{0, 99 * m}, newest}, nil, 0, 0, none(), []Span{{10_501 * m, 12_500 * m}}},
		{"both stay, the rest goes", []Span{{0, 99 * m}, {200 * m, 299 * m}, newest}, nil, 0, 0, Span{200 * m, 299 * m}, []Span{{200 * m, 299 * m}, {10_501 * m, 12_500 * m}}},
		{"ranges requests are reading stay, pinned unaligned", []Span{{0, 99 * m}, {200 * m, 299 * m}, newest}, [][2]int64{{10*m + 1, 20*m - 1}, {250 * m, 400 * m}}, 0, 0, none(),
			[]Span{{11 * m, 19 * m}, {250 * m, 299 * m}, {10_501 * m, 12_500 * m}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := build(tc.held...)
			for _, pin := range tc.pins {
				s.Pin(pin[0], pin[1])
			}
			before := s.bytes
			freed := s.trim(tc.over, tc.keep, tc.protect)
			if !slices.Equal(s.held.Spans(), tc.wantSpans) {
				t.Fatalf("spans %v, want %v", s.held.Spans(), tc.wantSpans)
			}
			held := int64(0)
			for id := range s.recs {
				if !s.held.Covers(id, id) {
					t.Fatalf("candle %d is held outside the spans", id)
				}
				held += rec
			}
			for _, sp := range s.held.Spans() {
				for id := sp.Lo; id <= sp.Hi; id += m {
					if _, ok := s.recs[id]; !ok {
						t.Fatalf("the spans vouch for candle %d, which is gone", id)
					}
				}
			}
			if s.bytes != held || before-freed != s.bytes {
				t.Fatalf("bytes %d, held %d, freed %d of %d", s.bytes, held, freed, before)
			}
		})
	}
}

// The venue answers "the latest N" by its own clock when it handles the
// request; what it answers is held, not what was asked for, so that no
// candle the venue has is vouched for without its record.
func TestALatestAnswerVouchesOnlyForWhatItCovers(t *testing.T) {
	p := venueapi.Period1Min
	at := time.Unix(1_000_000*m+59, 0) // the last second of a candle
	cur := p.Start(at.Unix())
	ids := func(ids ...int64) []venueapi.Candle {
		out := make([]venueapi.Candle, len(ids))
		for i, id := range ids {
			out[i] = venueapi.Candle{ID: cur + id*m}
		}
		return out
	}
	every := func(int64) bool { return true }
	for _, tc := range []struct {
		name      string
		recs      []venueapi.Candle
		has       func(id int64) bool // which candles, in candles from the current one, the venue has
		wantLo    int64               // the first held, likewise
		wantFloor int64               // 0: none, else likewise
		wantHi    int64               // the last held, likewise
	}{
		{"as asked", ids(-4, -3, -2, -1, 0), every, -4, 0, 0},
		{"counted a candle later: the first asked for is in no answer", ids(-3, -2, -1, 0, 1), every, -3, 0, 0},
		{"counted a candle earlier: the venue's open candle is the one before ours", ids(-5, -4, -3, -2, -1), every, -5, 0, -1},
		{"a contract with gaps: its latest five reach further back", ids(-20, -15, -9, -1, 0),
			func(id int64) bool { return id < -20 || slices.Contains([]int64{-20, -15, -9, -1, 0}, id) }, -20, 0, 0},
		{"fewer: the venue's history starts later", ids(-2, -1, 0), func(id int64) bool { return id >= -2 }, -4, -2, 0},
		{"fewer, counted a candle later", ids(-1, 0, 1), func(id int64) bool { return id >= -1 }, -4, -1, 0},
		{"fewer, counted a candle earlier", ids(-2, -1), func(id int64) bool { return id >= -2 }, -4, -2, -1},
		{"none: the venue has no candle", nil, func(int64) bool { return false }, -4, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := LatestFetch(p, 5, tc.recs, at)
			want := Span{cur + tc.wantLo*m, cur + tc.wantHi*m}
			wantFloor := int64(0)
			if tc.wantFloor != 0 {
				wantFloor = cur + tc.wantFloor*m
			}
			if f.Asked != want || f.Floor != wantFloor || !f.Latest || !f.At.Equal(at) {
				t.Errorf("held %v floor %d (latest %v at %s), want %v floor %d", f.Asked, f.Floor, f.Latest, f.At, want, wantFloor)
			}
			// Once the candle open at at is final, every candle the
			// series vouches for is one it holds, or one the venue lacks.
			s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: p})
			s.Merge(f)
			gaps := s.Missing(cur-30*m, cur, time.Unix(p.Next(cur), 0).Add(SettleAfter))
			for id := cur - 30*m; id <= cur; id += m {
				vouched := !slices.ContainsFunc(gaps, func(g Span) bool { return g.contains(id) })
				if _, ok := s.recs[id]; vouched && !ok && tc.has((id-cur)/m) {
					t.Fatalf("candle %d (%d from the current one) is vouched for without its record: missing %v", id, (id-cur)/m, gaps)
				}
				// The venue's open candle, the last it answered, was a
				// snapshot: once closed it is not vouched for as final.
				if n := len(tc.recs); vouched && n > 0 && id == tc.recs[n-1].ID {
					t.Fatalf("candle %d (%d from the current one), open at the venue when answered, is vouched for as final: missing %v", id, (id-cur)/m, gaps)
				}
			}
		})
	}
}

// Two latest answers of different sizes, not shared, may end in either
// order: the older one, merged last, does not put back its older snapshot
// of the open candle, nor move the refresh back; its final candles, more
// than the newer answer holds, are kept.
func TestAnOlderLatestAnswerMergedLastAddsOnlyItsFinalCandles(t *testing.T) {
	p := venueapi.Period1Min
	cur := int64(1_000_000 * m)
	older, newer := time.Unix(cur+20, 0), time.Unix(cur+20, 8e8)
	answer := func(size int, vol int64, at time.Time) Fetch {
		recs := make([]venueapi.Candle, size)
		for i := range recs {
			recs[i] = venueapi.Candle{ID: cur - int64(size-1-i)*m, Vol: decimal.NewFromInt(vol)}
		}
		return LatestFetch(p, size, recs, at)
	}
	s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: p})
	s.Merge(answer(2, 20, newer))
	s.Merge(answer(300, 10, older))
	if tail := s.Tail(300, newer); !tail.Held || !tail.Refreshed.Equal(newer) {
		t.Fatalf("%+v, want the latest 300 held, refreshed at the newer answer's %s", tail, newer)
	}
	if got, want := s.Last(1, cur)[0], (venueapi.Candle{ID: cur, Vol: decimal.NewFromInt(20)}).AppendJSON(nil); !bytes.Equal(got, want) {
		t.Errorf("the open candle is %s, want the newer answer's %s", got, want)
	}
	if gaps := s.Missing(cur-299*m, cur, newer); len(gaps) != 0 {
		t.Errorf("missing %v of the older answer's final candles", gaps)
	}
}

// So does a range that reaches the open candle, asked for before a refresh
// and answered after it: the open candle keeps the refresh's newer record.
func TestARangeAnsweredAfterANewerRefreshKeepsItsNewerOpenCandle(t *testing.T) {
	p := venueapi.Period1Min
	cur := int64(1_000_000 * m)
	older, newer := time.Unix(cur+20, 0), time.Unix(cur+20, 8e8)
	candles := func(lo int64, n int, vol int64) []venueapi.Candle {
		recs := make([]venueapi.Candle, n)
		for i := range recs {
			recs[i] = venueapi.Candle{ID: lo + int64(i)*m, Vol: decimal.NewFromInt(vol)}
		}
		return recs
	}
	s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: p})
	s.Merge(LatestFetch(p, 2, candles(cur-m, 2, 20), newer))
	s.Merge(Fetch{Candles: candles(cur-9*m, 10, 10), Asked: Span{Lo: cur - 9*m, Hi: cur}, At: older})
	if got, want := s.Last(1, cur)[0], (venueapi.Candle{ID: cur, Vol: decimal.NewFromInt(20)}).AppendJSON(nil); !bytes.Equal(got, want) {
		t.Errorf("the open candle is %s, want the refresh's %s", got, want)
	}
	if gaps := s.Missing(cur-9*m, cur, newer); len(gaps) != 0 {
		t.Errorf("missing %v of the range's final candles", gaps)
	}
	if tail := s.Tail(2, newer); !tail.Held || !tail.Refreshed.Equal(newer) {
		t.Fatalf("%+v, want the latest 2 held, refreshed at %s", tail, newer)
	}
}

// A venue whose clock is behind ours answers the latest candles up to the
// one before ours for a few seconds after ours opens: a refresh made since
// it opened holds the latest candles, so that the next request within the
// refresh interval does not ask again; one made before it opened does not.
func TestTheTailEndsAtTheVenuesOpenCandleWhenItsClockIsBehind(t *testing.T) {
	p := venueapi.Period1Min
	cur := int64(1_000_000 * m)
	behind := func(at time.Time) Fetch { // the venue three seconds behind
		last := p.Start(at.Add(-3 * time.Second).Unix())
		recs := make([]venueapi.Candle, 5)
		for i := range recs {
			recs[i] = venueapi.Candle{ID: last - int64(4-i)*m}
		}
		return LatestFetch(p, 5, recs, at)
	}
	for _, tc := range []struct {
		name      string
		refreshed time.Time
		asked     time.Time
		wantHeld  bool
	}{
		{"refreshed a second into ours", time.Unix(cur+1, 0), time.Unix(cur+1, 5e8), true},
		{"refreshed a second before ours", time.Unix(cur-1, 0), time.Unix(cur+1, 0), false},
		{"refreshed a second into the one before", time.Unix(cur-59, 0), time.Unix(cur+1, 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: p})
			s.Merge(behind(tc.refreshed))
			if tail := s.Tail(5, tc.asked); tail.Held != tc.wantHeld {
				t.Errorf("%+v, want held %v", tail, tc.wantHeld)
			}
		})
	}
}
