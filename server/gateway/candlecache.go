package gateway

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/riskchart/riskchart/server/venue"
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
	bound   int64
	now     func() time.Time
	metrics *metrics
	flight  singleflight.Group

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

// series holds candles for one key, sorted by id. spans are the id ranges
// the venue was asked for and answered in full (sorted, disjoint): only they
// vouch that no candle is missing.
type series struct {
	key  seriesKey
	elem *list.Element

	mu        sync.RWMutex
	recs      map[int64][]byte // by candle id: each candle's JSON, as AppendJSON writes it
	spans     []span           // ids asked for and held
	floor     int64            // ids below it have no candles (before the venue's horizon); 0: unknown
	refreshed time.Time
	version   uint64
	bytes     int64
	answers   map[answerKey]*answer
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

// lastSpan is the span holding the newest candles, if any.
func (s *series) lastSpan() (span, bool) {
	if len(s.spans) == 0 {
		return span{}, false
	}
	return s.spans[len(s.spans)-1], true
}

func newCandleCache(v *venue.Client, refresh time.Duration, bound int64, now func() time.Time, m *metrics) *candleCache {
	return &candleCache{venue: v, refresh: refresh, bound: bound, now: now, metrics: m, series: map[seriesKey]*series{}, lru: list.New()}
}

func (c *candleCache) get(k seriesKey) *series {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.series[k]
	if s == nil {
		s = &series{key: k, recs: map[int64][]byte{}, answers: map[answerKey]*answer{}}
		s.elem = c.lru.PushFront(s)
		c.series[k] = s
		return s
	}
	c.lru.MoveToFront(s.elem)
	return s
}

// grew accounts for a series' new size and evicts the least recently used
// series while the cache is over its bound.
func (c *candleCache) grew(s *series, delta int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.size += delta
	for c.size > c.bound && c.lru.Len() > 1 {
		old := c.lru.Back().Value.(*series)
		if old == s {
			break
		}
		c.lru.Remove(old.elem)
		delete(c.series, old.key)
		old.mu.RLock()
		c.size -= old.bytes
		old.mu.RUnlock()
	}
}

// merge stores candles and records asked as held.
func (c *candleCache) merge(s *series, p venueapi.Period, candles []venueapi.Candle, asked span, at time.Time) {
	recs := make([][]byte, len(candles))
	for i, k := range candles {
		recs[i] = k.AppendJSON(nil) // outside the lock: encoding is the costly part
	}
	s.mu.Lock()
	before := s.bytes
	for i, k := range candles {
		if old, ok := s.recs[k.ID]; ok {
			s.bytes -= int64(len(old)) + 48
		}
		s.recs[k.ID] = recs[i]
		s.bytes += int64(len(recs[i])) + 48 // the record and its map entry
	}
	s.addSpan(p, asked)
	if !at.IsZero() {
		s.refreshed = at
	}
	s.version++
	s.answers = map[answerKey]*answer{}
	delta := s.bytes - before
	s.mu.Unlock()
	c.grew(s, delta)
}

// latest makes sure s holds its latest n candles, fresh within the refresh
// interval, calling the venue only when it must.
func (c *candleCache) latest(ctx context.Context, s *series, p venueapi.Period, n int) error {
	for range 2 { // a shared refresh may have asked for fewer than n: then once more
		now := c.now()
		current := p.Start(now.Unix())
		want := current
		for i := 1; i < n; i++ {
			want = p.Prev(want)
		}
		s.mu.RLock()
		want = max(want, s.floor)
		held := s.covered(want, current)
		fresh := now.Sub(s.refreshed) < c.refresh
		last, ok := s.lastSpan()
		s.mu.RUnlock()
		if held && fresh {
			c.metrics.cache.WithLabelValues("candles", "hit").Inc()
			return nil
		}
		c.metrics.cache.WithLabelValues("candles", "miss").Inc()
		size := n
		if ok && last.lo <= want && last.hi >= want && p.Count(last.hi, current) <= venueapi.KLineMaxSize {
			// Held but stale: fetch only what closed since, and the current candle.
			size = max(int(p.Count(last.hi, current)), 2)
		}
		key := fmt.Sprintf("latest|%s|%s|%d", s.key.code, s.key.period, size)
		_, err, _ := c.flight.Do(key, func() (any, error) {
			ctx, cancel := upstream(ctx)
			defer cancel()
			at := c.now()
			env, err := c.venue.KLine(ctx, venueapi.KLineQuery{ContractCode: s.key.code, Period: p, Size: size})
			c.metrics.venueCalls.WithLabelValues("kline", outcome(err)).Inc()
			if err != nil {
				return nil, err
			}
			cur := p.Start(at.Unix())
			lo := cur
			for i := 1; i < size; i++ {
				lo = p.Prev(lo)
			}
			if len(env.Data) > 0 && env.Data[0].ID > lo && len(env.Data) < size {
				s.mu.Lock()
				s.floor = env.Data[0].ID // fewer than asked: the venue's history starts here
				s.mu.Unlock()
			}
			c.merge(s, p, env.Data, span{lo: lo, hi: cur}, at)
			return nil, nil
		})
		if err != nil {
			return err
		}
		if size == n {
			return nil
		}
	}
	return nil
}

// rangeOf makes sure s holds every candle with an id in [from, to], fetching
// only the parts it lacks.
func (c *candleCache) rangeOf(ctx context.Context, s *series, p venueapi.Period, from, to int64) error {
	current := p.Start(c.now().Unix())
	if to >= current {
		if err := c.latest(ctx, s, p, 2); err != nil {
			return err
		}
		to = current
	}
	first := p.Start(from)
	if first < from {
		first = p.Next(first)
	}
	s.mu.RLock()
	first = max(first, s.floor)
	var gaps []span
	if first <= to {
		gaps = s.gaps(p, first, to)
	}
	s.mu.RUnlock()
	if len(gaps) == 0 {
		c.metrics.cache.WithLabelValues("candles", "hit").Inc()
		return nil
	}
	c.metrics.cache.WithLabelValues("candles", "miss").Inc()
	for _, g := range gaps {
		key := fmt.Sprintf("range|%s|%s|%d|%d", s.key.code, s.key.period, g.lo, g.hi)
		_, err, _ := c.flight.Do(key, func() (any, error) {
			ctx, cancel := upstream(ctx)
			defer cancel()
			candles, err := c.venue.KLineRange(ctx, s.key.code, p, g.lo, g.hi)
			c.metrics.venueCalls.WithLabelValues("kline", outcome(err)).Inc()
			if err != nil {
				return nil, err
			}
			if len(candles) == 0 || candles[0].ID > g.lo {
				// Nothing before the first candle: the venue's history starts there.
				s.mu.Lock()
				if len(candles) == 0 {
					if !s.heldBefore(g.hi) {
						s.floor = max(s.floor, p.Next(g.hi))
					}
				} else {
					s.floor = max(s.floor, candles[0].ID)
				}
				s.mu.Unlock()
			}
			c.merge(s, p, candles, g, time.Time{})
			return nil, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// upstreamTimeout bounds a shared venue call, the wait for budget included:
// past it the browser gets a 429 or a 504 rather than a hung request.
const upstreamTimeout = 4 * time.Second

// upstream detaches a shared call from the request that started it (its
// sharers must not fail because that one browser left) and bounds it.
func upstream(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), upstreamTimeout)
}

// window returns the held records with ids in [from, to] (at most 2000:
// the query was validated), and whether one of them is the current candle.
func (s *series) window(p venueapi.Period, from, to, current int64) (recs [][]byte, open bool) {
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
func (s *series) last(p venueapi.Period, n int, current int64) [][]byte {
	sp, ok := s.lastSpan()
	if !ok {
		return nil
	}
	out := make([][]byte, 0, n)
	for id := min(current, sp.hi); id >= sp.lo && len(out) < n; id = p.Prev(id) {
		if rec, ok := s.recs[id]; ok {
			out = append(out, rec)
		}
	}
	slices.Reverse(out)
	return out
}

// heldBefore reports whether any candle up to id is held.
func (s *series) heldBefore(id int64) bool {
	for k := range s.recs {
		if k <= id {
			return true
		}
	}
	return false
}
