// Package candles holds a venue's candles in memory: per series (a contract
// and a period) the candle records fetched, the id spans they vouch for and
// the answers encoded from them, within a byte bound, least recently used
// series first to go. It never calls the venue: when to do so is the
// caller's policy, told here through Tail, Missing and Merge.
package candles

import (
	"container/list"
	"sync"

	"github.com/riskchart/riskchart/venueapi"
)

// Key names a series: a contract code as requested (a -CQ code is its own
// series) and a canonical period (60min and 1hour are one series); for a
// contract-type code, the future it names.
type Key struct {
	Code   string
	Period venueapi.Period
	// Since is, for a contract-type code, the delivery (Unix seconds) since
	// which the code names the future these candles are of: a delivery
	// starts another series (docs/decisions.md#contract-type-codes). 0 for
	// a code that names one contract for good.
	Since int64
}

// Store keeps series within a byte bound. A series grown past half of it
// (a long back-scroll) loses its oldest candles, then the least recently
// used series go; what was just merged, what requests have pinned and the
// newest 2000 candles of a series stay, so the bound may be passed by those.
type Store struct {
	bound int64

	mu     sync.Mutex
	series map[Key]*Series
	lru    *list.List // of *Series, most recent first
	size   int64
}

// NewStore returns an empty store bounded to about bound bytes.
func NewStore(bound int64) *Store {
	return &Store{bound: bound, series: map[Key]*Series{}, lru: list.New()}
}

// seriesOverhead is what a series costs before it holds a candle, so that
// many empty series (unknown codes, say) still count against the bound.
const seriesOverhead = 1024

// recordOverhead is a held candle's cost beyond its JSON: its map entry.
const recordOverhead = 48

// Series returns the series of k, creating it, and marks it recently used.
// A series evicted later stays usable by those holding it, but no longer
// counts against the bound or is found again.
func (st *Store) Series(k Key) *Series {
	st.mu.Lock()
	s := st.series[k]
	if s != nil {
		st.lru.MoveToFront(s.elem)
		st.mu.Unlock()
		return s
	}
	s = newSeries(st, k)
	s.elem = st.lru.PushFront(s)
	st.series[k] = s
	st.mu.Unlock()
	st.grew(s, seriesOverhead, none())
	return s
}

// Holds reports whether st holds the series of k, without creating it or
// marking it used.
func (st *Store) Holds(k Key) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.series[k] != nil
}

// Bytes is what the store holds now: candles, encoded views and overheads.
func (st *Store) Bytes() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.size
}

// grew accounts for a series' new size and keeps the store within its
// bound; protect (just merged for a request) stays. A series evicted
// meanwhile no longer counts.
func (st *Store) grew(s *Series, delta int64, protect Span) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s.elem == nil {
		return
	}
	s.counted += delta
	st.size += delta
	// s was just used (merged into, or a view kept): the series to go are
	// the others, least recently used first, not only those older than s.
	st.lru.MoveToFront(s.elem)
	st.shrink(s, s.trim(st.bound/2, st.bound/4, protect))
	for st.size > st.bound && st.lru.Len() > 1 {
		old := st.lru.Back().Value.(*Series)
		if old == s {
			break
		}
		st.lru.Remove(old.elem)
		old.elem = nil
		delete(st.series, old.key)
		st.size -= old.counted
	}
	if st.size > st.bound { // s alone is over
		st.shrink(s, s.trim(0, st.bound/2, protect))
	}
}

// shrink accounts for freed bytes of s; st.mu is held.
func (st *Store) shrink(s *Series, freed int64) {
	s.counted -= freed
	st.size -= freed
}
