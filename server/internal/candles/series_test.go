package candles

import (
	"bytes"
	"slices"
	"testing"

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
