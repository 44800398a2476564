package candles

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// fetched is what a venue answers for every 1min candle of [lo, hi], as of at.
func fetched(lo, hi int64, at time.Time) Fetch {
	f := Fetch{Asked: Span{lo, hi}, At: at}
	for id := lo; id <= hi; id += m {
		f.Candles = append(f.Candles, venueapi.Candle{ID: id})
	}
	return f
}

// costly is an encoded view of a given cost.
type costly int64

func (c costly) Cost() int64 { return int64(c) }

// costOf100 is what a store holding one series of 100 candles, fetched at
// at, counts.
func costOf100(at time.Time) int64 {
	st := NewStore(1 << 30)
	st.Series(Key{Code: "X-USDT", Period: venueapi.Period1Min}).Merge(fetched(0, 99*m, at))
	return st.Bytes()
}

func TestTheLeastRecentlyUsedSeriesGoesFirstAndTheStoreKeepsItsBound(t *testing.T) {
	at := time.Unix(1_000_000*m, 0)
	one := costOf100(at)
	st := NewStore(3*one + one/2)
	codes := []string{"A-USDT", "B-USDT", "C-USDT", "D-USDT"}
	held := map[string]*Series{}
	for _, c := range codes[:3] {
		held[c] = st.Series(Key{Code: c, Period: venueapi.Period1Min})
		held[c].Merge(fetched(0, 99*m, at))
	}
	if got := st.Bytes(); got != 3*one {
		t.Fatalf("three series hold %d bytes, want %d", got, 3*one)
	}
	st.Series(Key{Code: "A-USDT", Period: venueapi.Period1Min}) // A is used again: B is now the least recent
	st.Series(Key{Code: "D-USDT", Period: venueapi.Period1Min}).Merge(fetched(0, 99*m, at))
	if got := st.Bytes(); got > st.bound {
		t.Fatalf("the store holds %d bytes, bound %d", got, st.bound)
	}
	for c, want := range map[string]bool{"A-USDT": true, "B-USDT": false, "C-USDT": true} {
		if got := st.Series(Key{Code: c, Period: venueapi.Period1Min}) == held[c]; got != want {
			t.Errorf("%s still held: %v, want %v", c, got, want)
		}
	}
}

func TestAPinnedRangeStaysWhileOthersFetch(t *testing.T) {
	at := time.Unix(1_000_000*m, 0)
	st := NewStore(1 << 30)
	s := st.Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	s.Merge(fetched(0, 99*m, at))
	sp := s.Pin(0, 99*m)
	st.bound = 4 << 10 // every merge from now on is over the bound
	s.Merge(fetched(10_000*m, 10_099*m, at))
	if _, _, complete := s.Range(0, 99*m, at); !complete {
		t.Fatal("a pinned range was trimmed")
	}
	s.Unpin(sp)
	s.Merge(fetched(20_000*m, 20_099*m, at))
	if _, _, complete := s.Range(0, 99*m, at); complete {
		t.Fatal("an unpinned range over the bound was kept")
	}
}

// A candle held while open is a snapshot: once it is final (SettleAfter
// past its close, for a venue whose clock is behind ours) it is fetched
// again, not vouched for.
func TestACandleMergedWhileOpenIsMissingOnceItIsFinal(t *testing.T) {
	open := int64(1_000_000 * m)
	s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	f := fetched(open-9*m, open, time.Unix(open+30, 0))
	f.Latest = true
	s.Merge(f)
	at := func(sec int64) time.Time { return time.Unix(open+sec, 0) }
	if tail := s.Tail(10, at(40)); !tail.Held || !tail.Joins || tail.Newest != open || !tail.Refreshed.Equal(f.At) {
		t.Fatalf("while open: %+v, want the latest 10 held, joined up to %d", tail, open)
	}
	if gaps := s.Missing(open-9*m, open, at(40)); len(gaps) != 0 {
		t.Fatalf("while open: missing %v", gaps)
	}
	if gaps := s.Missing(open-9*m, open, at(m+5)); len(gaps) != 0 {
		t.Fatalf("closed %s ago, within SettleAfter: missing %v, want it held as the venue may still count it", 5*time.Second, gaps)
	}
	if gaps := s.Missing(open-9*m, open, at(m).Add(SettleAfter)); len(gaps) != 1 || gaps[0] != (Span{open, open}) {
		t.Fatalf("once final: missing %v, want the candle held while open", gaps)
	}
	if tail := s.Tail(10, at(m).Add(SettleAfter)); tail.Held || !tail.Joins || tail.Newest != open-m {
		t.Fatalf("once final: %+v, want not held, joined up to %d", tail, open-m)
	}
}

func TestMissingStartsAtTheVenuesFirstCandle(t *testing.T) {
	s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	f := fetched(100*m, 109*m, time.Unix(1_000_000*m, 0))
	f.Floor = 100 * m
	s.Merge(f)
	if gaps := s.Missing(0, 109*m+1, time.Unix(1_000_000*m, 0)); len(gaps) != 0 {
		t.Fatalf("missing %v before the venue's history", gaps)
	}
}

func TestAViewIsKeptOnlyForTheCandlesItWasEncodedFrom(t *testing.T) {
	at := time.Unix(1_000_000*m, 0)
	st := NewStore(1 << 30)
	s := st.Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	s.Merge(fetched(0, 9*m, at))
	v := View{venueapi.Period1Min, 5}
	_, recs, version := s.Latest(v, 9*m)
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	s.Merge(fetched(10*m, 10*m, at)) // the series moves on
	s.Keep(v, costly(100), version)
	if kept, _, _ := s.Latest(v, 10*m); kept != nil {
		t.Fatal("a view of an old version was kept")
	}
	before := st.Bytes()
	_, _, version = s.Latest(v, 10*m)
	s.Keep(v, costly(100), version)
	if kept, _, _ := s.Latest(v, 10*m); kept != costly(100) || st.Bytes() != before+100 {
		t.Fatalf("kept %v, %d bytes; want the view, counted", kept, st.Bytes()-before)
	}
}

func TestARefusalIsRemembered(t *testing.T) {
	s := NewStore(1 << 30).Series(Key{Code: "ZZZ-USDT", Period: venueapi.Period1Min})
	if _, err := s.Refused(); err != nil {
		t.Fatalf("a new series is refused: %v", err)
	}
	no, at := errors.New("no such contract"), time.Unix(1_000_000, 0)
	s.Refuse(no, at)
	if when, err := s.Refused(); err != no || !when.Equal(at) {
		t.Fatalf("refused %v at %s, want %v at %s", err, when, no, at)
	}
}

func TestAnEvictedSeriesTakesBackOnlyWhatTheStoreCounted(t *testing.T) {
	at := time.Unix(1_000_000*m, 0)
	st := NewStore(4 * seriesOverhead)
	old := st.Series(Key{Code: "OLD-USDT", Period: venueapi.Period1Min})
	// A merge into old has grown it but not yet told the store, as between
	// Merge's unlock and its call of grew.
	old.mu.Lock()
	old.bytes += 10_000
	old.mu.Unlock()
	s := st.Series(Key{Code: "NEW-USDT", Period: venueapi.Period1Min})
	s.Merge(fetched(0, 29*m, at)) // over the bound: old goes
	if got, want := st.Bytes(), s.bytes; got != want {
		t.Fatalf("the store counts %d bytes, want %d: those of the series it holds", got, want)
	}
}

func TestARangeEndingBetweenCandlesVouchesForNoCandleAfterIt(t *testing.T) {
	now := int64(1_000_000 * m)
	for _, tc := range []struct {
		name   string
		to     int64 // the first range's end: between two candle starts
		second Span  // the next range asked for
	}{
		{"a second into the candle", 5*m + 1, Span{0, 10 * m}},
		{"a second before the next", 6*m - 1, Span{0, 10 * m}},
		{"a later range from the next candle on", 5*m + 30, Span{6 * m, 10 * m}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
			fetch := func(from, to int64) { // as the cache does: each gap asked of the venue, which answers its candles
				for _, g := range s.Missing(from, to, time.Unix(now, 0)) {
					f := fetched(venueapi.Period1Min.Ceil(g.Lo), g.Hi, time.Unix(now, 0))
					f.Asked = g
					s.Merge(f)
				}
			}
			fetch(0, tc.to)
			fetch(tc.second.Lo, tc.second.Hi)
			recs, _, complete := s.Range(tc.second.Lo, tc.second.Hi, time.Unix(now, 0))
			if want := int(venueapi.Period1Min.Count(tc.second.Lo, tc.second.Hi)); !complete || len(recs) != want {
				t.Fatalf("after the range to %d: %d candles of [%d, %d], complete %v; want %d: spans %v",
					tc.to, len(recs), tc.second.Lo, tc.second.Hi, complete, want, s.held.Spans())
			}
		})
	}
}

func TestASeriesUsedLongAgoThatGrowsStillEvictsTheOthersPastTheBound(t *testing.T) {
	at := time.Unix(1_000_000*m, 0)
	one := costOf100(at)
	st := NewStore(3*one + one/2)
	a := st.Series(Key{Code: "A-USDT", Period: venueapi.Period1Min}) // taken by a request whose fetch is slow
	held := map[string]*Series{}
	for _, c := range []string{"B-USDT", "C-USDT", "D-USDT"} { // meanwhile others are used
		held[c] = st.Series(Key{Code: c, Period: venueapi.Period1Min})
		held[c].Merge(fetched(0, 99*m, at))
	}
	a.Merge(fetched(0, 99*m, at)) // A's fetch arrives: the least recently used series is B, not A
	if got := st.Bytes(); got > st.bound {
		t.Fatalf("the store holds %d bytes, bound %d: spans of A %v, series %d", got, st.bound, a.held.Spans(), st.lru.Len())
	}
	if st.Series(Key{Code: "B-USDT", Period: venueapi.Period1Min}) == held["B-USDT"] {
		t.Error("B, the least recently used, is still held")
	}
	if st.Series(Key{Code: "A-USDT", Period: venueapi.Period1Min}) != a {
		t.Error("A, just merged, was evicted")
	}
}

// A range asked from a second into a candle was not asked for that candle:
// the venue answers candles whose start is in [from, to], so the candle
// holding from is not in the answer and must not be vouched for.
func TestARangeStartingBetweenCandlesVouchesForNoCandleBeforeIt(t *testing.T) {
	now := int64(1_000_000 * m)
	s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	f := fetched(2*m, 5*m, time.Unix(now, 0))
	f.Asked = Span{m + 30, 5 * m}
	s.Merge(f)
	if gaps := s.Missing(m, 5*m, time.Unix(now, 0)); len(gaps) != 1 || gaps[0] != (Span{m, m}) {
		t.Fatalf("missing %v, want [{%d %d}]: the candle before the asked start; spans %v", gaps, m, m, s.held.Spans())
	}
	if _, _, complete := s.Range(m, 5*m, time.Unix(now, 0)); complete {
		t.Fatal("a range from the candle before the asked start reads as complete")
	}
}

// Range tells whether its answer is final: one with the open candle
// changes as it trades, and so does one with a candle closed less than
// SettleAfter before it was fetched, which a venue whose clock is behind
// ours was still counting. Once that candle is final, the range is not
// complete: the candle is fetched again.
func TestRangeTellsWhetherItsAnswerIsFinal(t *testing.T) {
	open := int64(1_000_000 * m)
	settle := int64(SettleAfter / time.Second)
	for _, tc := range []struct {
		name         string
		fetched      int64 // seconds into the open candle
		asked        int64 // seconds into it
		from, to     int64 // candles from the open one
		wantFinal    bool
		wantComplete bool
	}{
		{"to the open candle", 30, 40, -9, 0, false, true},
		{"the open candle alone", 30, 40, 0, 0, false, true},
		{"closed candles", 30, 40, -9, -1, true, true},
		{"to candles to come", 30, 40, -9, 5, false, true},
		{"to a candle closed 5 s before it was fetched", 5, 8, -9, -1, false, true},
		{"to the candle before it", 5, 8, -9, -2, true, true},
		{"to a candle closed 5 s before it was fetched, asked for once final", 5, settle, -9, -1, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
			s.Merge(fetched(open-9*m, open, time.Unix(open+tc.fetched, 0)))
			recs, final, complete := s.Range(open+tc.from*m, open+tc.to*m, time.Unix(open+tc.asked, 0))
			if final != tc.wantFinal || complete != tc.wantComplete || len(recs) == 0 {
				t.Errorf("final %v, complete %v, %d records; want final %v, complete %v, records", final, complete, len(recs), tc.wantFinal, tc.wantComplete)
			}
		})
	}
}

// A series keeps at most 16 encoded views (maxViews): a client walking
// through every size must not multiply its memory.
func TestASeriesKeepsABoundedNumberOfViews(t *testing.T) {
	st := NewStore(1 << 30)
	s := st.Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	s.Merge(fetched(0, 99*m, time.Unix(1_000_000*m, 0)))
	const want = 16
	kept := 0
	for size := 1; size <= 2*want; size++ {
		v := View{venueapi.Period1Min, size}
		_, _, version := s.Latest(v, 99*m)
		s.Keep(v, costly(10), version)
		if e, _, _ := s.Latest(v, 99*m); e != nil {
			kept++
		}
	}
	if kept != want {
		t.Fatalf("%d views kept, want %d", kept, want)
	}
}

// Ranges the venue answered empty are held without a record: a series
// asked for many of them, here and there, keeps a bounded number of runs
// (maxSpans), the newest and those being read among them, and no record
// outside them.
func TestASeriesHoldsABoundedNumberOfRuns(t *testing.T) {
	at := time.Unix(1_000_000*m, 0)
	s := NewStore(1 << 30).Series(Key{Code: "BTC-USDT", Period: venueapi.Period1Min})
	s.Merge(fetched(0, 9*m, at)) // a run with candles, the oldest
	pinned := s.Pin(20*m, 29*m)
	s.Merge(fetched(20*m, 29*m, at))
	for k := int64(1); k <= 10*maxSpans; k++ {
		s.Merge(Fetch{Asked: Span{(100 + 3*k) * m, (100 + 3*k) * m}, At: at}) // empty, one apart
	}
	newest := Span{(100 + 30*maxSpans) * m, (100 + 30*maxSpans) * m}
	spans := s.held.Spans()
	if len(spans) > maxSpans || !slices.Contains(spans, newest) || !slices.Contains(spans, pinned) || slices.Contains(spans, Span{0, 9 * m}) {
		t.Fatalf("%d runs held, the first %v; want at most %d, with the newest %v and the pinned %v, not the oldest", len(spans), spans[:min(3, len(spans))], maxSpans, newest, pinned)
	}
	for id := range s.recs {
		if !s.held.Covers(id, id) {
			t.Fatalf("candle %d is kept outside the runs held", id)
		}
	}
	if want := seriesOverhead + 10*(int64(len(s.recs[20*m]))+recordOverhead); s.bytes != want {
		t.Fatalf("the series counts %d bytes, want %d: the pinned run's ten candles", s.bytes, want)
	}
}
