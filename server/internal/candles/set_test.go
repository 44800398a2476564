package candles

import (
	"slices"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

const m = 60 // one 1min candle

func TestSpansRecordWhatIsHeldAndFindTheGaps(t *testing.T) {
	p := venueapi.Period1Min
	for _, tc := range []struct {
		name      string
		add       []Span
		drop      []Span
		wantSpans []Span
		ask       Span
		wantGaps  []Span
	}{
		{"nothing held: the whole range", nil, nil, nil, Span{0, 10 * m}, []Span{{0, 10 * m}}},
		{"all held", []Span{{0, 10 * m}}, nil, []Span{{0, 10 * m}}, Span{2 * m, 8 * m}, nil},
		{"touching spans join", []Span{{0, 4 * m}, {5 * m, 9 * m}}, nil, []Span{{0, 9 * m}}, Span{0, 9 * m}, nil},
		{"overlapping spans join", []Span{{3 * m, 8 * m}, {0, 4 * m}}, nil, []Span{{0, 8 * m}}, Span{0, 8 * m}, nil},
		{"a span joining two", []Span{{0, 2 * m}, {6 * m, 9 * m}, {3 * m, 5 * m}}, nil, []Span{{0, 9 * m}}, Span{0, 9 * m}, nil},
		{"a gap between spans", []Span{{0, 2 * m}, {6 * m, 9 * m}}, nil, []Span{{0, 2 * m}, {6 * m, 9 * m}}, Span{0, 9 * m}, []Span{{3 * m, 5 * m}}},
		{"gaps on both sides", []Span{{3 * m, 5 * m}}, nil, []Span{{3 * m, 5 * m}}, Span{0, 9 * m}, []Span{{0, 2 * m}, {6 * m, 9 * m}}},
		{"a dropped candle in the middle splits", []Span{{0, 9 * m}}, []Span{{4 * m, 4 * m}}, []Span{{0, 3 * m}, {5 * m, 9 * m}}, Span{0, 9 * m}, []Span{{4 * m, 4 * m}}},
		{"a dropped last candle", []Span{{0, 9 * m}}, []Span{{9 * m, 9 * m}}, []Span{{0, 8 * m}}, Span{0, 9 * m}, []Span{{9 * m, 9 * m}}},
		{"a dropped single-candle span", []Span{{4 * m, 4 * m}}, []Span{{4 * m, 4 * m}}, []Span{}, Span{4 * m, 4 * m}, []Span{{4 * m, 4 * m}}},
		{"dropping what is not held", []Span{{0, 3 * m}}, []Span{{7 * m, 7 * m}}, []Span{{0, 3 * m}}, Span{0, 3 * m}, nil},
		{"a dropped run to past the end", []Span{{0, 9 * m}}, []Span{{6 * m, 20 * m}}, []Span{{0, 5 * m}}, Span{0, 9 * m}, []Span{{6 * m, 9 * m}}},
		{"a dropped run across two spans", []Span{{0, 3 * m}, {6 * m, 9 * m}}, []Span{{2 * m, 7 * m}}, []Span{{0, 1 * m}, {8 * m, 9 * m}}, Span{0, 9 * m}, []Span{{2 * m, 7 * m}}},
		{"an empty drop takes nothing", []Span{{0, 3 * m}}, []Span{{2 * m, 1 * m}}, []Span{{0, 3 * m}}, Span{0, 3 * m}, nil},
		{"an empty span adds nothing", []Span{{5 * m, 4 * m}}, nil, nil, Span{4 * m, 5 * m}, []Span{{4 * m, 5 * m}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSet(p)
			for _, sp := range tc.add {
				s.Add(sp)
			}
			for _, d := range tc.drop {
				s.Drop(d)
			}
			if got := s.Spans(); len(got) != len(tc.wantSpans) || (len(got) > 0 && !slices.Equal(got, tc.wantSpans)) {
				t.Fatalf("spans %v, want %v", got, tc.wantSpans)
			}
			if got := s.Gaps(tc.ask.Lo, tc.ask.Hi); !slices.Equal(got, tc.wantGaps) {
				t.Fatalf("gaps of %v: %v, want %v", tc.ask, got, tc.wantGaps)
			}
			if got := s.Covers(tc.ask.Lo, tc.ask.Hi); got != (len(tc.wantGaps) == 0) {
				t.Fatalf("covers %v = %v, want %v", tc.ask, got, len(tc.wantGaps) == 0)
			}
		})
	}
}

func TestKeepLeavesWhatIsAboveTheCutAndTheKeptRanges(t *testing.T) {
	s := NewSet(venueapi.Period1Min)
	s.Add(Span{0, 99 * m})
	s.Add(Span{200 * m, 299 * m})
	s.Keep(250*m, []Span{{10 * m, 20 * m}, none(), {95 * m, 210 * m}})
	want := []Span{{10 * m, 20 * m}, {95 * m, 99 * m}, {200 * m, 210 * m}, {251 * m, 299 * m}}
	if got := s.Spans(); !slices.Equal(got, want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
}

// FuzzSet checks a Set against a naive model, a bool per candle, over 64
// candles of a minute or a month period: after every add, drop and keep its
// spans are sorted, aligned, neither overlap nor touch, and they, Gaps and
// Covers say what the model says.
func FuzzSet(f *testing.F) {
	f.Add(false, []byte{0, 0, 63})
	f.Add(true, []byte{0, 3, 8, 0, 10, 20, 1, 5, 0, 2, 0, 4, 9})
	f.Add(false, []byte{0, 0, 10, 0, 20, 30, 0, 11, 19, 1, 15, 0, 2, 25, 12, 0, 63, 0})
	f.Fuzz(func(t *testing.T, monthly bool, ops []byte) {
		p, base := venueapi.Period1Min, int64(1_700_000_040)
		if monthly {
			p, base = venueapi.Period1Mon, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		}
		ids := make([]int64, 64)
		for i := range ids {
			ids[i] = base
			base = p.Next(base)
		}
		index := func(id int64) int { i, _ := slices.BinarySearch(ids, id); return i }
		var model [64]bool
		s := NewSet(p)
		for len(ops) >= 3 {
			op, a, b := ops[0]%3, int(ops[1]%64), int(ops[2]%64)
			ops = ops[3:]
			switch op {
			case 0: // add [a, b]; nothing when a > b
				s.Add(Span{ids[a], ids[b]})
				for i := a; i <= b; i++ {
					model[i] = true
				}
			case 1: // drop [a, b]; nothing when a > b
				s.Drop(Span{ids[a], ids[b]})
				for i := a; i <= b; i++ {
					model[i] = false
				}
			case 2: // keep what is above a and in [b, b+3]
				k := Span{ids[b], ids[min(b+3, 63)]}
				s.Keep(ids[a], []Span{k})
				for i := range model {
					model[i] = model[i] && (i > a || (i >= b && i <= min(b+3, 63)))
				}
			}
			var naive []Span
			for i := 0; i < 64; i++ {
				if !model[i] {
					continue
				}
				j := i
				for j+1 < 64 && model[j+1] {
					j++
				}
				naive = append(naive, Span{ids[i], ids[j]})
				i = j
			}
			if got := s.Spans(); len(got) != len(naive) || (len(got) > 0 && !slices.Equal(got, naive)) {
				t.Fatalf("spans %v, the model holds %v", got, naive)
			}
			for i, sp := range s.Spans() {
				if sp.Lo > sp.Hi || p.Start(sp.Lo) != sp.Lo || p.Start(sp.Hi) != sp.Hi || (i > 0 && p.Next(s.Spans()[i-1].Hi) >= sp.Lo) {
					t.Fatalf("spans %v: empty, unaligned, overlapping or touching", s.Spans())
				}
			}
			lo, hi := ids[a], ids[b]
			if lo > hi {
				continue
			}
			var gaps []Span
			for i := index(lo); i <= index(hi); i++ {
				if model[i] {
					continue
				}
				j := i
				for j+1 <= index(hi) && !model[j+1] {
					j++
				}
				gaps = append(gaps, Span{ids[i], ids[j]})
				i = j
			}
			if got := s.Gaps(lo, hi); !slices.Equal(got, gaps) {
				t.Fatalf("gaps of [%d, %d]: %v, the model lacks %v", lo, hi, got, gaps)
			}
			if got := s.Covers(lo, hi); got != (len(gaps) == 0) {
				t.Fatalf("covers [%d, %d] = %v, the model's gaps are %v", lo, hi, got, gaps)
			}
		}
	})
}
