package gateway

import (
	"container/list"
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// candleCache keeps candles per series. Closed candles never change, so they
// are fetched once; only the current candle is refreshed, at most once per
// refresh interval per series however many browsers ask. Identical
// concurrent misses share one venue call; a range partly held fetches only
// its gap. Least recently used series go first when memory runs over.
type candleCache struct {
	venue   *venue.Client
	refresh time.Duration
	timeout time.Duration // of a shared venue call
	bound   int64
	now     func() time.Time
	metrics *metrics
	hits    prometheus.Counter // resolved once: the hit path is hot
	misses  prometheus.Counter

	mu     sync.Mutex
	series map[seriesKey]*series
	lru    *list.List // of *series, most recent first
	size   int64
}

// seriesKey names a series: a contract code as requested (a -CQ code is its
// own series) and a canonical period (60min and 1hour are one series).
type seriesKey struct {
	code   string
	period venueapi.Period
}

// seriesOverhead is what a series costs before it holds a candle, so that
// many empty series (unknown codes, say) still count against the bound.
const seriesOverhead = 1024

// maxAnswers bounds the encoded answers kept per series: a client walking
// through every size must not multiply a series' memory by 2000.
const maxAnswers = 16

// series holds candles for one key, sorted by id. spans are the id ranges
// the venue was asked for and answered in full (sorted, disjoint): only they
// vouch that no candle is missing.
type series struct {
	key    seriesKey
	elem   *list.Element // nil once evicted; guarded by candleCache.mu
	flight singleflight.Group

	mu        sync.RWMutex
	recs      map[int64][]byte // by candle id: each candle's JSON, as AppendJSON writes it
	spans     []span           // ids asked for and held
	floor     int64            // ids below it have no candles (before the venue's history); 0: unknown
	open      int64            // id of a candle held while it was open: not final once it closes; 0: none
	refreshed time.Time        // when the current candle was last asked for
	version   uint64           // bumped by every merge: encoded answers are of one version
	bytes     int64            // records, answers and overhead, as counted in candleCache.size
	answers   map[answerKey]*answer
	unknown   error     // the venue's "no such contract", remembered for a refresh interval
	unknownAt time.Time // when it said so
	pins      []span    // ranges requests in flight are about to read: trim leaves them
}

// pin keeps [from, to] from being trimmed until unpin: a range fetched for a
// request stays until the request has read it, whatever others fetch.
func (s *series) pin(from, to int64) span {
	p := s.key.period
	sp := span{p.Start(from), p.Start(to)} // candle ids, as spans hold
	if sp.lo < from {
		sp.lo = p.Next(sp.lo)
	}
	s.mu.Lock()
	s.pins = append(s.pins, sp)
	s.mu.Unlock()
	return sp
}

func (s *series) unpin(sp span) {
	s.mu.Lock()
	if i := slices.Index(s.pins, sp); i >= 0 {
		s.pins = slices.Delete(s.pins, i, i+1)
	}
	s.mu.Unlock()
}

type span struct{ lo, hi int64 }

// covered reports whether one span holds [lo, hi].
func (s *series) covered(lo, hi int64) bool {
	for _, sp := range s.spans {
		if sp.lo <= lo && hi <= sp.hi {
			return true
		}
	}
	return false
}

// gaps returns the parts of [lo, hi] no span holds, as candle-id ranges of p.
func (s *series) gaps(p venueapi.Period, lo, hi int64) []span {
	var out []span
	at := lo
	for _, sp := range s.spans {
		if sp.hi < at || sp.lo > hi {
			continue
		}
		if sp.lo > at {
			out = append(out, span{at, p.Prev(sp.lo)})
		}
		at = p.Next(sp.hi)
	}
	if at <= hi {
		out = append(out, span{at, hi})
	}
	return out
}

// addSpan records [lo, hi] as held, joining spans that overlap or touch.
func (s *series) addSpan(p venueapi.Period, n span) {
	out := make([]span, 0, len(s.spans)+1)
	for _, sp := range s.spans {
		switch {
		case p.Next(sp.hi) < n.lo: // wholly before
			out = append(out, sp)
		case p.Next(n.hi) < sp.lo: // wholly after
			out = append(out, n)
			n = sp
		default:
			n = span{min(n.lo, sp.lo), max(n.hi, sp.hi)}
		}
	}
	s.spans = append(out, n)
}

// dropSpan records the one candle id as no longer held, splitting its span.
func (s *series) dropSpan(p venueapi.Period, id int64) {
	out := make([]span, 0, len(s.spans)+1)
	for _, sp := range s.spans {
		if id < sp.lo || id > sp.hi {
			out = append(out, sp)
			continue
		}
		if sp.lo < id {
			out = append(out, span{sp.lo, p.Prev(id)})
		}
		if id < sp.hi {
			out = append(out, span{p.Next(id), sp.hi})
		}
	}
	s.spans = out
}

// settle forgets the candle held while it was open once it has closed: what
// is held of it is a snapshot, and a range ending there must fetch it again
// rather than call a partial candle final (and immutable).
func (s *series) settle(current int64) {
	s.mu.RLock()
	due := s.open != 0 && s.open < current
	s.mu.RUnlock()
	if !due {
		return
	}
	s.mu.Lock()
	if s.open != 0 && s.open < current {
		s.dropSpan(s.key.period, s.open)
		s.open = 0
	}
	s.mu.Unlock()
}

// lastSpan is the span holding the newest candles, if any.
func (s *series) lastSpan() (span, bool) {
	if len(s.spans) == 0 {
		return span{}, false
	}
	return s.spans[len(s.spans)-1], true
}

func newCandleCache(v *venue.Client, refresh, timeout time.Duration, bound int64, now func() time.Time, m *metrics) *candleCache {
	return &candleCache{venue: v, refresh: refresh, timeout: timeout, bound: bound, now: now, metrics: m,
		hits:   m.cache.WithLabelValues("candles", "hit"),
		misses: m.cache.WithLabelValues("candles", "miss"),
		series: map[seriesKey]*series{}, lru: list.New()}
}

// get returns the series of k, creating it, and marks it recently used.
func (c *candleCache) get(k seriesKey) *series {
	c.mu.Lock()
	s := c.series[k]
	if s != nil {
		c.lru.MoveToFront(s.elem)
		c.mu.Unlock()
		return s
	}
	s = &series{key: k, recs: map[int64][]byte{}, answers: map[answerKey]*answer{}, bytes: seriesOverhead}
	s.elem = c.lru.PushFront(s)
	c.series[k] = s
	c.mu.Unlock()
	c.grew(s, seriesOverhead, none())
	return s
}

// grew accounts for a series' new size and keeps the cache within its
// bound: a series grown past half of it (a long back-scroll) loses its
// oldest candles, then the least recently used series go. The candles of
// protect (just fetched for a request) and the newest run stay, so the bound
// may be passed by at most those. A series evicted meanwhile no longer
// counts: its sharers finish with it and let it go.
func (c *candleCache) grew(s *series, delta int64, protect span) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.elem == nil {
		return
	}
	c.size += delta
	c.size -= s.trim(c.bound/2, c.bound/4, protect)
	for c.size > c.bound && c.lru.Len() > 1 {
		old := c.lru.Back().Value.(*series)
		if old == s {
			break
		}
		c.lru.Remove(old.elem)
		old.elem = nil
		delete(c.series, old.key)
		old.mu.RLock()
		c.size -= old.bytes
		old.mu.RUnlock()
	}
	if c.size > c.bound { // s alone is over
		c.size -= s.trim(0, c.bound/2, protect)
	}
}

// none is the empty span: nothing to protect.
func none() span { return span{lo: 1, hi: 0} }

// trim drops s's encoded answers and its oldest candles, except those of
// protect, of the pinned ranges and the newest 2000 (what a size query can
// ask for), down to keep bytes when it holds more than over; the spans then
// vouch only for what is left. It returns the bytes freed.
func (s *series) trim(over, keep int64, protect span) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes <= over {
		return 0
	}
	before := s.bytes
	for _, a := range s.answers {
		s.bytes -= a.cost()
	}
	clear(s.answers)
	s.version++
	newest, ok := s.lastSpan()
	if ok {
		newest.lo = max(newest.lo, back(s.key.period, newest.hi, venueapi.KLineMaxSize-1))
	} else {
		newest = none()
	}
	kept := append([]span{protect, newest}, s.pins...)
	cut := int64(math.MinInt64)
	for _, id := range slices.Sorted(maps.Keys(s.recs)) {
		if s.bytes <= keep {
			break
		}
		if slices.ContainsFunc(kept, func(sp span) bool { return sp.lo <= id && id <= sp.hi }) {
			continue
		}
		s.bytes -= int64(len(s.recs[id])) + recordOverhead
		delete(s.recs, id)
		cut = id
	}
	if cut == math.MinInt64 {
		return before - s.bytes
	}
	// Held now: what is above the cut, and what of the kept ranges is below it.
	p, old := s.key.period, s.spans
	s.spans = nil
	for _, sp := range old {
		if above := (span{max(sp.lo, p.Next(cut)), sp.hi}); above.lo <= above.hi {
			s.addSpan(p, above)
		}
		for _, k := range kept {
			if below := (span{max(sp.lo, k.lo), min(sp.hi, k.hi, cut)}); below.lo <= below.hi {
				s.addSpan(p, below)
			}
		}
	}
	return before - s.bytes
}

// merge stores candles fetched at `at` and records asked as held; a fetch
// that reached the open candle marks it, and one of the latest candles
// counts as a refresh.
func (c *candleCache) merge(s *series, candles []venueapi.Candle, asked span, at time.Time, refresh bool) {
	p := s.key.period
	recs := make([][]byte, len(candles))
	for i, k := range candles {
		recs[i] = k.AppendJSON(nil) // outside the lock: encoding is the costly part
	}
	s.mu.Lock()
	before := s.bytes
	for i, k := range candles {
		if old, ok := s.recs[k.ID]; ok {
			s.bytes -= int64(len(old)) + recordOverhead
		}
		s.recs[k.ID] = recs[i]
		s.bytes += int64(len(recs[i])) + recordOverhead
	}
	s.addSpan(p, asked)
	if cur := p.Start(at.Unix()); asked.hi >= cur {
		s.open = cur
	}
	if refresh {
		s.refreshed = at
	}
	s.version++
	for _, a := range s.answers {
		s.bytes -= a.cost()
	}
	clear(s.answers)
	delta := s.bytes - before
	s.mu.Unlock()
	c.grew(s, delta, asked)
}

// recordOverhead is a held candle's cost beyond its JSON: its map entry.
const recordOverhead = 48

// keep stores an answer encoded from version, unless the series has moved on
// or holds enough answers already.
func (c *candleCache) keep(s *series, k answerKey, a *answer, version uint64) {
	s.mu.Lock()
	if s.version != version || len(s.answers) >= maxAnswers || s.answers[k] != nil {
		s.mu.Unlock()
		return
	}
	s.answers[k] = a
	s.bytes += a.cost()
	s.mu.Unlock()
	c.grew(s, a.cost(), none())
}

// back returns the id k candles of p before id.
func back(p venueapi.Period, id int64, k int) int64 {
	if sec := p.Seconds(); sec > 0 {
		return id - int64(k)*sec
	}
	for range k {
		id = p.Prev(id)
	}
	return id
}

// latest makes sure s holds its latest n candles, fresh within the refresh
// interval, calling the venue only when it must.
func (c *candleCache) latest(ctx context.Context, s *series, n int) error {
	if err := c.known(s); err != nil {
		return err
	}
	size := c.need(s, n)
	if size == 0 {
		c.hits.Inc()
		return nil
	}
	c.misses.Inc()
	if err := c.fetchLatest(ctx, s, size, n); err != nil {
		return err
	}
	if c.need(s, n) != 0 {
		// The incremental refresh did not join the held run (a shared call
		// of another view, or the run was evicted), or the call this one
		// shared found s fresh enough for the view that started it but not
		// for this one: ask for all n.
		return c.fetchLatest(ctx, s, n, n)
	}
	return nil
}

// known returns the venue's "no such contract" for s if it said so within
// the refresh interval: a page asking for a typo every second costs the
// shared budget one call per interval, like any other series.
func (c *candleCache) known(s *series) error {
	s.mu.RLock()
	err, at := s.unknown, s.unknownAt
	s.mu.RUnlock()
	if err != nil && c.now().Sub(at) < c.refresh {
		c.hits.Inc()
		return err
	}
	return nil
}

// remember keeps the venue's "no such contract" for s.
func (c *candleCache) remember(s *series, err error, at time.Time) {
	var nf *venue.NotFoundError
	if !errors.As(err, &nf) {
		return
	}
	s.mu.Lock()
	s.unknown, s.unknownAt = err, at
	s.mu.Unlock()
}

// need returns how many of the latest candles to ask the venue for so that
// s holds its latest n fresh: 0 when it does; only the candles since the
// held run when that run reaches back far enough.
func (c *candleCache) need(s *series, n int) int {
	p := s.key.period
	now := c.now()
	current := p.Start(now.Unix())
	s.settle(current)
	s.mu.RLock()
	defer s.mu.RUnlock()
	want := max(back(p, current, n-1), s.floor)
	if s.covered(want, current) && now.Sub(s.refreshed) < c.refresh {
		return 0
	}
	if last, ok := s.lastSpan(); ok && last.lo <= want && want <= last.hi {
		if k := p.Count(last.hi, current); k <= venueapi.KLineMaxSize {
			return max(int(k), 2) // the last held candle (it may have been open) and what came since
		}
	}
	return n
}

// fetchLatest asks the venue for the latest size candles of s, once for all
// concurrent askers, unless s already holds its latest n when the call starts.
func (c *candleCache) fetchLatest(ctx context.Context, s *series, size, n int) error {
	needed := func() bool { return c.need(s, n) != 0 }
	return c.shared(ctx, s, "latest|"+strconv.Itoa(size), needed, func(ctx context.Context) error {
		p := s.key.period
		at := c.now()
		env, err := c.venue.KLine(ctx, venueapi.KLineQuery{ContractCode: s.key.code, Period: p, Size: size})
		c.metrics.venueCalls.WithLabelValues("kline", outcome(err)).Inc()
		if err != nil {
			c.remember(s, err, at)
			return err
		}
		cur := p.Start(at.Unix())
		lo := back(p, cur, size-1)
		if len(env.Data) > 0 && len(env.Data) < size && env.Data[0].ID > lo {
			s.mu.Lock()
			s.floor = max(s.floor, env.Data[0].ID) // fewer than asked: the venue's history starts here
			s.mu.Unlock()
		}
		c.merge(s, env.Data, span{lo: lo, hi: cur}, at, true)
		return nil
	})
}

// rangeOf makes sure s holds every candle with an id in [from, to], fetching
// only the parts it lacks. A range that the venue answered empty (before its
// history) is held as such.
func (c *candleCache) rangeOf(ctx context.Context, s *series, from, to int64) error {
	if err := c.known(s); err != nil {
		return err
	}
	p := s.key.period
	current := p.Start(c.now().Unix())
	if to >= current {
		if err := c.latest(ctx, s, 2); err != nil {
			return err
		}
		to = current
	}
	first := p.Start(from)
	if first < from {
		first = p.Next(first)
	}
	s.settle(current)
	s.mu.RLock()
	first = max(first, s.floor)
	var gaps []span
	if first <= to {
		gaps = s.gaps(p, first, to)
	}
	s.mu.RUnlock()
	if len(gaps) == 0 {
		c.hits.Inc()
		return nil
	}
	c.misses.Inc()
	for _, g := range gaps {
		key := "range|" + strconv.FormatInt(g.lo, 10) + "|" + strconv.FormatInt(g.hi, 10)
		needed := func() bool {
			s.mu.RLock()
			defer s.mu.RUnlock()
			return !s.holds(g.lo, g.hi, current)
		}
		err := c.shared(ctx, s, key, needed, func(ctx context.Context) error {
			at := c.now()
			candles, err := c.venue.KLineRange(ctx, s.key.code, p, g.lo, g.hi)
			c.metrics.venueCalls.WithLabelValues("kline", outcome(err)).Inc()
			if err != nil {
				c.remember(s, err, at)
				return err
			}
			c.merge(s, candles, g, at, false)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// shared runs fetch once for all concurrent callers with the same key on s,
// unless needed says at its start that s holds what they asked for.
func (c *candleCache) shared(ctx context.Context, s *series, key string, needed func() bool, fetch func(context.Context) error) error {
	held := func() (any, bool, error) { return nil, !needed(), nil }
	_, err := shared(ctx, &s.flight, key, c.timeout, held, func(ctx context.Context) (any, error) { return nil, fetch(ctx) })
	return err
}

// shared runs fetch once for all concurrent callers with the same key in g.
// The call first asks held for a fresh answer and returns it if there is
// one: a caller that found none may reach g only after another caller's
// call has kept one and ended, and would otherwise call the venue a second
// time within the interval that answer is good for. The call is detached
// from the request that started it (its sharers must not fail because that
// one browser left) and bounded by timeout, the wait for budget included:
// past it the browser gets a 429 or a 504 rather than a hung request. Each
// caller stops waiting when its own request ends.
func shared(ctx context.Context, g *singleflight.Group, key string, timeout time.Duration, held func() (v any, ok bool, err error), fetch func(context.Context) (any, error)) (any, error) {
	ch := g.DoChan(key, func() (any, error) {
		if v, ok, err := held(); ok {
			return v, err
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		return fetch(ctx)
	})
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// holds reports whether s holds every candle with an id in [from, to], up
// to current: a concurrent trim may have taken some since they were fetched.
func (s *series) holds(from, to, current int64) bool {
	p := s.key.period
	first := p.Start(from)
	if first < from {
		first = p.Next(first)
	}
	first, to = max(first, s.floor), min(to, current)
	return first > to || len(s.gaps(p, first, to)) == 0
}

// bytesHeld is the cache's size now, for the metric.
func (c *candleCache) bytesHeld() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return float64(c.size)
}

// window returns the held records with ids in [from, to] (at most 2000:
// the query was validated), and whether one of them is the current candle.
func (s *series) window(from, to, current int64) (recs [][]byte, open bool) {
	p := s.key.period
	id := p.Start(from)
	if id < from {
		id = p.Next(id)
	}
	for ; id <= to; id = p.Next(id) {
		if rec, ok := s.recs[id]; ok {
			recs = append(recs, rec)
			open = open || id >= current
		}
	}
	return recs, open
}

// last returns the latest n held records up to current, within the newest
// span: no gap between an old run and now.
func (s *series) last(n int, current int64) [][]byte {
	sp, ok := s.lastSpan()
	if !ok {
		return nil
	}
	p := s.key.period
	out := make([][]byte, 0, n)
	for id := min(current, sp.hi); id >= sp.lo && len(out) < n; id = p.Prev(id) {
		if rec, ok := s.recs[id]; ok {
			out = append(out, rec)
		}
	}
	slices.Reverse(out)
	return out
}
