package candles

import (
	"container/list"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// Series holds the candles of one Key, safe for concurrent use. Only the
// ids its spans hold are vouched for: no candle of them is missing.
type Series struct {
	key   Key
	store *Store
	elem  *list.Element // nil once evicted; guarded by store.mu
	// counted is what Store.size holds of s, guarded by store.mu: an
	// eviction takes back that, not bytes, which may hold a delta not yet counted.
	counted int64

	mu        sync.RWMutex
	recs      map[int64][]byte // by candle id: each candle's JSON, as AppendJSON writes it
	held      Set              // ids asked for and held
	floor     int64            // ids below it have no candles (before the venue's history); 0: unknown
	open      int64            // the oldest held candle fetched before it was final: it and those after it are snapshots; 0: none
	refreshed time.Time        // when the latest candles were last fetched
	latestHi  int64            // the newest candle the last latest answer covers: a candle before ours when the venue's clock is behind
	version   uint64           // bumped by every merge: encoded views are of one version
	bytes     int64            // records, views and overhead, as counted in Store.size
	views     map[View]Encoded
	refusal   error     // the venue's refusal of the series, as Refuse was told
	refusedAt time.Time // when it refused
	pins      []Span    // ranges requests in flight are about to read: trim leaves them
}

// View names an encoded answer of a series: the latest Size candles, named
// as Period (60min and 1hour answers differ though their candles do not).
type View struct {
	Period venueapi.Period
	Size   int
}

// Encoded is an answer encoded from a series' candles, kept with them until
// they change.
type Encoded interface {
	// Cost is what it counts against the store's bound.
	Cost() int64
}

// maxSpans bounds the runs of candles a series holds apart: a range the
// venue answered empty is held without a record, so the byte bound alone
// would let ranges asked here and there grow the spans, and the cost of
// every merge and lookup with them, without end.
const maxSpans = 64

// forgetOldSpans forgets the oldest runs, with their candles, while s holds
// more than maxSpans, except the newest and those of keep and the pinned
// ranges; they are fetched again when asked for.
func (s *Series) forgetOldSpans(keep Span) {
	for len(s.held.Spans()) > maxSpans {
		spans := s.held.Spans()
		i := slices.IndexFunc(spans[:len(spans)-1], func(sp Span) bool {
			return !overlaps(sp, keep) && !slices.ContainsFunc(s.pins, func(pin Span) bool { return overlaps(sp, pin) })
		})
		if i < 0 {
			return
		}
		old := spans[i]
		for id, rec := range s.recs {
			if old.contains(id) {
				s.bytes -= int64(len(rec)) + recordOverhead
				delete(s.recs, id)
			}
		}
		s.held.Drop(old)
	}
}

// overlaps reports whether a and b share an id.
func overlaps(a, b Span) bool { return a.Lo <= b.Hi && b.Lo <= a.Hi }

// maxViews bounds the encoded views kept per series: a client walking
// through every size must not multiply a series' memory by 2000.
const maxViews = 16

func newSeries(st *Store, k Key) *Series {
	return &Series{key: k, store: st, recs: map[int64][]byte{}, held: NewSet(k.Period), views: map[View]Encoded{}, bytes: seriesOverhead}
}

// Key names the series.
func (s *Series) Key() Key { return s.key }

// Pin keeps the candles of [from, to] (instants, not necessarily candle
// starts) from being trimmed until Unpin: a range fetched for a request
// stays until the request has read it, whatever others fetch.
func (s *Series) Pin(from, to int64) Span {
	sp := Span{s.key.Period.Ceil(from), s.key.Period.Start(to)}
	s.mu.Lock()
	s.pins = append(s.pins, sp)
	s.mu.Unlock()
	return sp
}

// Unpin ends a Pin.
func (s *Series) Unpin(sp Span) {
	s.mu.Lock()
	if i := slices.Index(s.pins, sp); i >= 0 {
		s.pins = slices.Delete(s.pins, i, i+1)
	}
	s.mu.Unlock()
}

// Refuse remembers the venue's refusal of the series (an unknown contract).
func (s *Series) Refuse(err error, at time.Time) {
	s.mu.Lock()
	s.refusal, s.refusedAt = err, at
	s.mu.Unlock()
}

// Refused returns when the last refusal came, and the refusal; nil if none.
func (s *Series) Refused() (time.Time, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.refusedAt, s.refusal
}

// SettleAfter is how long past a candle's close by our clock the venue may
// still answer it as open: a venue whose clock is behind ours by up to this
// much is still counting it. A candle fetched sooner is a snapshot, fetched
// again before it is vouched for as final (docs/decisions.md#closed-candles).
const SettleAfter = 10 * time.Second

// Unsettled returns the oldest candle of p that is not final at now: it
// closed less than SettleAfter ago, or is still open. Every candle before it
// is final, and once fetched never changes.
func Unsettled(p venueapi.Period, now time.Time) int64 {
	return p.Start(now.Add(-SettleAfter).Unix())
}

// settle forgets the snapshots once the oldest of them is final: what is
// held of them may be partial, and a range ending there must fetch them
// again rather than call a partial candle final (and immutable). Those
// after it go too, so that the held run ends before them and a refresh
// asks for the few candles since.
func (s *Series) settle(now time.Time) {
	u := Unsettled(s.key.Period, now)
	s.mu.RLock()
	due := s.open != 0 && s.open < u
	s.mu.RUnlock()
	if !due {
		return
	}
	s.mu.Lock()
	if s.open != 0 && s.open < u {
		if last, ok := s.held.Last(); ok {
			s.held.Drop(Span{s.open, last.Hi})
		}
		s.open = 0
	}
	s.mu.Unlock()
}

// Tail is how a series holds its latest candles.
type Tail struct {
	Held      bool      // every candle from the nth latest (or the venue's first) to the current one
	Refreshed time.Time // when the latest candles were last fetched
	Joins     bool      // the newest held run reaches back to the nth latest candle
	Newest    int64     // when Joins, the newest held candle
}

// Tail reports how s holds its latest n candles at now. They end at the
// candle open now, or at the one before when a latest answer made since it
// opened ended there: the venue, its clock behind, has no newer one yet.
func (s *Series) Tail(n int, now time.Time) Tail {
	s.settle(now)
	p := s.key.Period
	current := p.Start(now.Unix())
	s.mu.RLock()
	defer s.mu.RUnlock()
	newest := current
	if s.latestHi == p.Prev(current) && s.refreshed.Unix() >= current {
		newest = s.latestHi
	}
	want := max(p.Back(newest, n-1), s.floor)
	t := Tail{Held: s.held.Covers(want, newest), Refreshed: s.refreshed}
	if last, ok := s.held.Last(); ok && last.contains(want) {
		t.Joins, t.Newest = true, last.Hi
	}
	return t
}

// Missing returns the runs of candle ids with a start in [from, to], up to
// the candle open at now, that s does not hold; none before the venue's
// history.
func (s *Series) Missing(from, to int64, now time.Time) []Span {
	s.settle(now)
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.missing(from, to, s.key.Period.Start(now.Unix()))
}

func (s *Series) missing(from, to, current int64) []Span {
	first, to := max(s.key.Period.Ceil(from), s.floor), min(to, current)
	if first > to {
		return nil
	}
	return s.held.Gaps(first, to)
}

// Fetch is what the venue answered for a span of candle ids.
type Fetch struct {
	Candles []venueapi.Candle
	Asked   Span      // the ids the answer covers: every candle the venue has of them is in Candles
	At      time.Time // when they were asked for
	Latest  bool      // the latest candles were asked for: the answer counts as a refresh
	Floor   int64     // the venue's first candle, when the answer shows it; 0: not shown
}

// LatestFetch is the venue's answer recs to "the latest size candles" of p,
// asked for at at, holding only what the answer covers: the venue counts them
// by its clock when it handles the request, which may be a candle past at's,
// so the first id asked for may be in no answer. A full answer covers from
// its first candle (earlier if the venue has gaps) to the current one; a
// shorter one is all the venue has, its history starting at the first. A
// venue a candle behind at's clock ends its answer with the candle still
// open by its own: the answer covers up to that one, which is then the open
// candle (Merge), a snapshot to fetch again.
func LatestFetch(p venueapi.Period, size int, recs []venueapi.Candle, at time.Time) Fetch {
	cur := p.Start(at.Unix())
	f := Fetch{Candles: recs, Asked: Span{Lo: p.Back(cur, size-1), Hi: cur}, At: at, Latest: true}
	switch {
	case len(recs) >= size:
		f.Asked.Lo = recs[0].ID
	case len(recs) > 0 && recs[0].ID > f.Asked.Lo:
		f.Floor = recs[0].ID
	}
	if n := len(recs); n > 0 && recs[n-1].ID < cur && recs[n-1].ID >= f.Asked.Lo {
		f.Asked.Hi = recs[n-1].ID
	}
	return f
}

// Merge stores what the venue answered and records f.Asked as held. The
// candles it holds that were not final at f.At (Unsettled) are snapshots,
// to be fetched again once final; so is the last the venue answered of the
// latest candles, when that is older: the venue's clock was further behind.
// An answer made before the last refresh merged (a latest one, or a range
// reaching the open candle that was slower than a refresh) adds only the
// candles that were final when it was made: its snapshots are older than
// those held.
func (s *Series) Merge(f Fetch) {
	p := s.key.Period
	recs := make([][]byte, len(f.Candles))
	for i, k := range f.Candles {
		recs[i] = k.AppendJSON(nil) // outside the lock: encoding is the costly part
	}
	s.mu.Lock()
	if f.At.Before(s.refreshed) { // judged under the lock that writes refreshed
		f = f.finalOnly(p)
		recs = recs[:len(f.Candles)] // finalOnly drops candles from the end only
	}
	before := s.bytes
	for i, k := range f.Candles {
		if old, ok := s.recs[k.ID]; ok {
			s.bytes -= int64(len(old)) + recordOverhead
		}
		s.recs[k.ID] = recs[i]
		s.bytes += int64(len(recs[i])) + recordOverhead
	}
	s.floor = max(s.floor, f.Floor)
	// Asked may end (or start) between two candle starts, as a range's to
	// does: the set holds candle ids, and an unaligned end would vouch for
	// the candle after it, which the venue was not asked for.
	asked := Span{p.Ceil(f.Asked.Lo), p.Start(f.Asked.Hi)}
	s.held.Add(asked)
	s.forgetOldSpans(asked)
	open := Unsettled(p, f.At)
	if n := len(f.Candles); f.Latest && n > 0 && f.Candles[n-1].ID == asked.Hi && asked.Hi < open {
		open = asked.Hi
	}
	switch {
	case asked.Hi < open:
		// Final, all of it: the snapshots it fetched again are final now.
		if s.open != 0 && asked.contains(s.open) {
			s.open = p.Next(asked.Hi)
		}
	case s.open == 0 || open < s.open || asked.Lo <= s.open:
		s.open = open
	}
	if f.Latest {
		s.refreshed, s.latestHi = f.At, asked.Hi
	}
	s.version++
	for _, v := range s.views {
		s.bytes -= v.Cost()
	}
	clear(s.views)
	delta := s.bytes - before
	s.mu.Unlock()
	s.store.grew(s, delta, asked)
}

// finalOnly is f less its candles that were not final at f.At, and not a
// refresh.
func (f Fetch) finalOnly(p venueapi.Period) Fetch {
	u := Unsettled(p, f.At)
	f.Latest = false
	f.Asked.Hi = min(f.Asked.Hi, p.Prev(u))
	i := len(f.Candles)
	for i > 0 && f.Candles[i-1].ID >= u {
		i--
	}
	f.Candles = f.Candles[:i]
	return f
}

// Latest returns the view v of the latest v.Size candles up to current: kept
// encoded if it is, else the records to encode it from (within the newest
// run: no gap between an old run and now) and the version they are of.
func (s *Series) Latest(v View, current int64) (kept Encoded, recs [][]byte, version uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e := s.views[v]; e != nil {
		return e, nil, s.version
	}
	return nil, s.last(v.Size, current), s.version
}

// Last returns the records of the latest n candles held up to current,
// within the newest run.
func (s *Series) Last(n int, current int64) [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.last(n, current)
}

func (s *Series) last(n int, current int64) [][]byte {
	sp, ok := s.held.Last()
	if !ok {
		return nil
	}
	p := s.key.Period
	out := make([][]byte, 0, n)
	for id := min(current, sp.Hi); id >= sp.Lo && len(out) < n; id = p.Prev(id) {
		if rec, ok := s.recs[id]; ok {
			out = append(out, rec)
		}
	}
	slices.Reverse(out)
	return out
}

// Keep stores e, encoded from version, as view v, unless the series has
// moved on or keeps enough views already.
func (s *Series) Keep(v View, e Encoded, version uint64) {
	s.mu.Lock()
	if s.version != version || len(s.views) >= maxViews || s.views[v] != nil {
		s.mu.Unlock()
		return
	}
	s.views[v] = e
	s.bytes += e.Cost()
	s.mu.Unlock()
	s.store.grew(s, e.Cost(), none())
}

// Range returns the held records of candles with a start in [from, to]
// (at most 2000 candles: the query was validated), whether every candle of
// the range is final at now, and whether s holds every candle of the range
// up to the one open at now: a concurrent trim may have taken some since
// they were fetched.
func (s *Series) Range(from, to int64, now time.Time) (recs [][]byte, final, complete bool) {
	s.settle(now)
	p := s.key.Period
	s.mu.RLock()
	defer s.mu.RUnlock()
	for id := p.Ceil(from); id <= to; id = p.Next(id) {
		if rec, ok := s.recs[id]; ok {
			recs = append(recs, rec)
		}
	}
	final = to < Unsettled(p, now) && (s.open == 0 || to < s.open)
	return recs, final, len(s.missing(from, to, p.Start(now.Unix()))) == 0
}

// trim drops s's encoded views and its oldest candles, except those of
// protect, of the pinned ranges and the newest 2000 (what a size query can
// ask for), down to keep bytes when it holds more than over; the spans then
// vouch only for what is left. It returns the bytes freed.
func (s *Series) trim(over, keep int64, protect Span) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes <= over {
		return 0
	}
	before := s.bytes
	for _, v := range s.views {
		s.bytes -= v.Cost()
	}
	clear(s.views)
	s.version++
	newest, ok := s.held.Last()
	if ok {
		newest.Lo = max(newest.Lo, s.key.Period.Back(newest.Hi, venueapi.KLineMaxSize-1))
	} else {
		newest = none()
	}
	kept := append([]Span{protect, newest}, s.pins...)
	cut := int64(math.MinInt64)
	for _, id := range slices.Sorted(maps.Keys(s.recs)) {
		if s.bytes <= keep {
			break
		}
		if slices.ContainsFunc(kept, func(sp Span) bool { return sp.contains(id) }) {
			continue
		}
		s.bytes -= int64(len(s.recs[id])) + recordOverhead
		delete(s.recs, id)
		cut = id
	}
	if cut != math.MinInt64 {
		s.held.Keep(cut, kept)
	}
	return before - s.bytes
}
