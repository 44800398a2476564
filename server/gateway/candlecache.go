package gateway

import (
	"container/list"
	"context"
	"fmt"
	"sort"
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

// series is a run of candles held for one key. cov is the span of ids the
// venue was asked for and answered in full; held candles are sorted by id.
type series struct {
	key  seriesKey
	elem *list.Element

	mu        sync.RWMutex
	ids       []int64
	recs      [][]byte // each candle's JSON, as AppendJSON writes it
	cov       span     // ids asked for and held
	floor     int64    // ids below it have no candles (before the venue's horizon); 0: unknown
	refreshed time.Time
	version   uint64
	bytes     int64
	answers   map[answerKey]*answer
}

type span struct {
	lo, hi int64
	ok     bool
}

func (s span) contains(lo, hi int64) bool { return s.ok && s.lo <= lo && hi <= s.hi }

func newCandleCache(v *venue.Client, refresh time.Duration, bound int64, now func() time.Time, m *metrics) *candleCache {
	return &candleCache{venue: v, refresh: refresh, bound: bound, now: now, metrics: m, series: map[seriesKey]*series{}, lru: list.New()}
}

func (c *candleCache) get(k seriesKey) *series {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.series[k]
	if s == nil {
		s = &series{key: k, answers: map[answerKey]*answer{}}
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

// merge stores candles (ascending) and extends the coverage by asked.
func (c *candleCache) merge(s *series, candles []venueapi.Candle, asked span, at time.Time) {
	s.mu.Lock()
	before := s.bytes
	for _, k := range candles {
		rec := k.AppendJSON(nil)
		i := sort.Search(len(s.ids), func(i int) bool { return s.ids[i] >= k.ID })
		if i < len(s.ids) && s.ids[i] == k.ID {
			s.bytes += int64(len(rec) - len(s.recs[i]))
			s.recs[i] = rec
			continue
		}
		s.ids = append(s.ids, 0)
		s.recs = append(s.recs, nil)
		copy(s.ids[i+1:], s.ids[i:])
		copy(s.recs[i+1:], s.recs[i:])
		s.ids[i], s.recs[i] = k.ID, rec
		s.bytes += int64(len(rec)) + 8
	}
	switch {
	case !asked.ok:
	case !s.cov.ok:
		s.cov = asked
	case asked.lo <= s.cov.hi && asked.hi >= s.cov.lo: // overlapping or adjacent (callers ask adjacent spans)
		s.cov = span{lo: min(s.cov.lo, asked.lo), hi: max(s.cov.hi, asked.hi), ok: true}
	default: // a span apart from what is held: keep the newer one
		s.cov = asked
	}
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
		cov, fresh := s.cov, now.Sub(s.refreshed) < c.refresh
		s.mu.RUnlock()
		want = max(want, s.floor)
		if cov.contains(want, current) && fresh {
			c.metrics.cache.WithLabelValues("candles", "hit").Inc()
			return nil
		}
		c.metrics.cache.WithLabelValues("candles", "miss").Inc()
		size := n
		if cov.contains(want, cov.hi) && cov.hi >= want {
			// Held but stale: fetch only what closed since, and the current candle.
			size = int(min(p.Count(cov.hi, current), venueapi.KLineMaxSize))
			size = max(size, 2)
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
			c.merge(s, env.Data, span{lo: lo, hi: cur, ok: true}, at)
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
// only the part it lacks.
func (c *candleCache) rangeOf(ctx context.Context, s *series, p venueapi.Period, from, to int64) error {
	now := c.now()
	current := p.Start(now.Unix())
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
	if first > to {
		return nil
	}
	s.mu.RLock()
	cov, floor := s.cov, s.floor
	s.mu.RUnlock()
	if floor != 0 && to < floor {
		c.metrics.cache.WithLabelValues("candles", "hit").Inc()
		return nil
	}
	first = max(first, floor)
	if cov.contains(first, to) {
		c.metrics.cache.WithLabelValues("candles", "hit").Inc()
		return nil
	}
	c.metrics.cache.WithLabelValues("candles", "miss").Inc()
	// Fetch the gap next to what is held when it is close; otherwise the range.
	lo, hi := first, to
	if cov.ok && to >= p.Prev(cov.lo) && first < cov.lo && p.Count(first, cov.lo) <= 4*venueapi.KLineMaxSize {
		hi = p.Prev(cov.lo)
	} else if cov.ok && first <= p.Next(cov.hi) && to > cov.hi && p.Count(cov.hi, to) <= 4*venueapi.KLineMaxSize {
		lo = p.Next(cov.hi)
	}
	key := fmt.Sprintf("range|%s|%s|%d|%d", s.key.code, s.key.period, lo, hi)
	_, err, _ := c.flight.Do(key, func() (any, error) {
		ctx, cancel := upstream(ctx)
		defer cancel()
		candles, err := c.venue.KLineRange(ctx, s.key.code, p, lo, hi)
		c.metrics.venueCalls.WithLabelValues("kline", outcome(err)).Inc()
		if err != nil {
			return nil, err
		}
		if len(candles) == 0 || candles[0].ID > lo {
			s.mu.Lock()
			if len(candles) == 0 {
				s.floor = max(s.floor, p.Next(hi))
			} else {
				s.floor = max(s.floor, candles[0].ID)
			}
			s.mu.Unlock()
		}
		c.merge(s, candles, span{lo: lo, hi: hi, ok: true}, time.Time{})
		return nil, nil
	})
	return err
}

// upstreamTimeout bounds a shared venue call, the wait for budget included:
// past it the browser gets a 429 or a 504 rather than a hung request.
const upstreamTimeout = 4 * time.Second

// upstream detaches a shared call from the request that started it (its
// sharers must not fail because that one browser left) and bounds it.
func upstream(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), upstreamTimeout)
}

// window returns the held records with ids in [from, to], and whether any of
// them is the current (still open) candle.
func (s *series) window(from, to, current int64) (recs [][]byte, open bool) {
	i := sort.Search(len(s.ids), func(i int) bool { return s.ids[i] >= from })
	j := sort.Search(len(s.ids), func(i int) bool { return s.ids[i] > to })
	return s.recs[i:j], j > i && s.ids[j-1] >= current
}

// last returns the latest n held records up to current.
func (s *series) last(n int, current int64) [][]byte {
	j := sort.Search(len(s.ids), func(i int) bool { return s.ids[i] > current })
	i := max(0, j-n)
	if s.cov.ok {
		// Only what the coverage vouches for: no gap between a stale old run and now.
		k := sort.Search(len(s.ids), func(i int) bool { return s.ids[i] >= s.cov.lo })
		i = max(i, k)
	}
	return s.recs[i:j]
}
