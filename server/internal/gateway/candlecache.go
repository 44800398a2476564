package gateway

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/candles"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// candleCache answers KLine queries from a candles.Store and decides when
// to call the venue. Closed candles never change, so they are fetched once;
// only the current candle is refreshed, at most once per refresh interval
// per series however many browsers ask. Identical concurrent misses share
// one venue call; a range partly held fetches only its gap. A refresh of
// the latest candles slower than staleAfter answers the held ones, stale.
type candleCache struct {
	store      *candles.Store
	venue      *venue.Client
	refresh    time.Duration
	timeout    time.Duration // of a shared venue call
	staleAfter time.Duration // the longest a browser waits for a refresh of candles held
	now        func() time.Time
	metrics    *metrics
	hits       prometheus.Counter // resolved once: the hit path is hot
	misses     prometheus.Counter
	calls      sharedCalls  // keyed by series and what is asked of it
	cluster    *SharedState // nil: this process alone (shared_candles.go)
	blockPool  int64        // the bytes of history blocks the replicas may put in Redis an hour (Config.SharedBlockBytes)
	watched    watchList    // the series whose refreshes by other replicas are merged here
}

func newCandleCache(v *venue.Client, refresh, timeout, staleAfter time.Duration, bound int64, now func() time.Time, m *metrics, d *Detached) *candleCache {
	return &candleCache{store: candles.NewStore(bound), venue: v, refresh: refresh, timeout: timeout, staleAfter: staleAfter, now: now, metrics: m, calls: sharedCalls{life: d},
		hits:   m.cache.WithLabelValues("candles", "hit"),
		misses: m.cache.WithLabelValues("candles", "miss")}
}

// klineReply is a KLine answer with how browsers may keep it.
type klineReply struct {
	answer    *answer
	immutable bool  // every candle in it is closed: browsers may keep it forever
	stale     error // non-nil: the venue failed so, and held candles stand in
}

// errRangeTrimmed is a range the store could not keep long enough to
// answer: others' fetches trimmed it each time.
var errRangeTrimmed = errors.New("the candle cache is too small for this range now")

// answer answers a validated, effective KLine query, calling the venue when
// what is held does not do. When the venue fails and candles are held, they
// answer, marked stale.
func (c *candleCache) answer(ctx context.Context, q venueapi.KLineQuery) (klineReply, error) {
	s := c.store.Series(c.seriesKey(q))
	if q.Range {
		return c.answerRange(ctx, s, q)
	}
	err := c.latest(ctx, s, q.Size)
	current := q.Period.Start(c.now().Unix())
	if err != nil {
		return c.stale(q, s, err, func() [][]byte { return s.Last(q.Size, current) })
	}
	v := candles.View{Period: q.Period, Size: q.Size}
	kept, recs, version := s.Latest(v, current)
	if kept != nil {
		return klineReply{answer: kept.(*answer)}, nil
	}
	a := encode(q, recs, false, s.Key().Since, c.now())
	s.Keep(v, a, version)
	return klineReply{answer: a}, nil
}

// seriesKey is the series q reads: the code as asked and the canonical
// period, and for a contract-type code the delivery since which it names the
// future it names now (docs/decisions.md#contract-type-codes): its candles,
// closed ones included, are not the previous future's.
func (c *candleCache) seriesKey(q venueapi.KLineQuery) candles.Key {
	k := candles.Key{Code: q.ContractCode, Period: q.Period.Canonical()}
	if venueapi.IsTypeCode(k.Code) {
		k.Since = venueapi.LastDelivery(c.now()).Unix()
	}
	return k
}

// answerRange answers a from/to query: immutable when every candle is closed.
func (c *candleCache) answerRange(ctx context.Context, s *candles.Series, q venueapi.KLineQuery) (klineReply, error) {
	defer s.Unpin(s.Pin(q.From, q.To))
	for range 3 { // a trim may have taken what was held before Pin
		err := c.rangeOf(ctx, s, q.From, q.To)
		now := c.now()
		if err != nil {
			return c.stale(q, s, err, func() [][]byte { recs, _, _ := s.Range(q.From, q.To, now); return recs })
		}
		if recs, final, complete := s.Range(q.From, q.To, now); complete {
			// A contract-type code's closed candles are another future's
			// after its next delivery: not immutable.
			return klineReply{answer: encode(q, recs, false, s.Key().Since, now), immutable: final && s.Key().Since == 0}, nil
		}
	}
	return klineReply{}, errRangeTrimmed
}

// stale answers a failed refresh of s with the held candles when the venue
// failed and some are held, else with the error.
func (c *candleCache) stale(q venueapi.KLineQuery, s *candles.Series, err error, held func() [][]byte) (klineReply, error) {
	if !staleable(err) {
		return klineReply{}, err
	}
	recs := held()
	if len(recs) == 0 {
		return klineReply{}, err
	}
	return klineReply{answer: encode(q, recs, true, s.Key().Since, c.now()), stale: err}, nil
}

// latest makes sure s holds its latest n candles, fresh within the refresh
// interval, calling the venue only when it must.
func (c *candleCache) latest(ctx context.Context, s *candles.Series, n int) error {
	if err := c.known(s); err != nil {
		return err
	}
	size := c.need(s, n)
	if size == 0 {
		c.hits.Inc()
		return nil
	}
	c.misses.Inc()
	if size < n || n <= 2 && c.joins(s, n) {
		noteLookup(ctx, lookupRefresh) // the held candles joined by the open one: a live poll
	} else {
		noteLookup(ctx, lookupMiss)
	}
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
func (c *candleCache) known(s *candles.Series) error {
	at, err := s.Refused()
	if err != nil && c.now().Sub(at) < c.refresh {
		c.hits.Inc()
		return err
	}
	return nil
}

// remember keeps the venue's "no such contract" for s.
func (c *candleCache) remember(s *candles.Series, err error, at time.Time) {
	var nf *venue.NotFoundError
	if errors.As(err, &nf) {
		s.Refuse(err, at)
	}
}

// need returns how many of the latest candles to ask the venue for so that
// s holds its latest n fresh: 0 when it does; only the candles since the
// held run when that run reaches back far enough.
func (c *candleCache) need(s *candles.Series, n int) int {
	p := s.Key().Period
	now := c.now()
	current := p.Start(now.Unix())
	t := s.Tail(n, now)
	if t.Held && now.Sub(t.Refreshed) < c.refresh {
		return 0
	}
	if t.Joins {
		if k := p.Count(t.Newest, current); k <= venueapi.KLineMaxSize {
			return max(int(k), 2) // the last held candle (it may have been open) and what came since
		}
	}
	return n
}

// joins reports whether s holds a run of candles that the open one extends:
// asking for it is a refresh, not a miss.
func (c *candleCache) joins(s *candles.Series, n int) bool {
	return s.Tail(n, c.now()).Joins
}

// fetchLatest asks the venue for the latest size candles of s, once for all
// concurrent askers, unless s already holds its latest n when the call starts.
// When s holds candles to answer instead, it waits at most staleAfter
// (docs/decisions.md#stale-answers); the call goes on for the next asker.
func (c *candleCache) fetchLatest(ctx context.Context, s *candles.Series, size, n int) error {
	k := s.Key()
	held := func() (any, bool, error) { return nil, c.need(s, n) == 0, nil }
	var patience time.Duration
	if len(s.Last(1, k.Period.Start(c.now().Unix()))) > 0 {
		patience = c.staleAfter
	}
	_, err := c.calls.do(ctx, flightKey(k, "latest", int64(size)), c.timeout, patience, held, func(ctx context.Context) (any, error) {
		if c.cluster.shared() {
			return nil, c.latestShared(ctx, s, size, n)
		}
		return nil, c.latestAlone(ctx, s, size)
	})
	return err
}

// latestFromVenue asks the venue for the latest size candles of s and
// merges them.
func (c *candleCache) latestFromVenue(ctx context.Context, s *candles.Series, size int) (candles.Fetch, error) {
	k := s.Key()
	at := c.now()
	env, err := c.venue.KLine(ctx, venueapi.KLineQuery{ContractCode: k.Code, Period: k.Period, Size: size})
	c.metrics.countVenueCall(venue.EndpointKLine, err)
	if err != nil {
		c.remember(s, err, at)
		return candles.Fetch{}, err
	}
	if err := sameFuture(k, env.Ts); err != nil {
		return candles.Fetch{}, err
	}
	f := candles.LatestFetch(k.Period, size, env.Data, at) // held: what the answer covers, not what was asked
	s.Merge(f)
	return f, nil
}

// rangeOf makes sure s holds every candle with an id in [from, to], fetching
// only the parts it lacks. A range that the venue answered empty (before its
// history) is held as such.
func (c *candleCache) rangeOf(ctx context.Context, s *candles.Series, from, to int64) error {
	if err := c.known(s); err != nil {
		return err
	}
	now := c.now()
	if to >= s.Key().Period.Start(now.Unix()) {
		if err := c.latest(ctx, s, 2); err != nil {
			return err
		}
	}
	gaps := s.Missing(from, to, now)
	if len(gaps) == 0 {
		c.hits.Inc()
		return nil
	}
	c.misses.Inc()
	noteLookup(ctx, lookupMiss)
	for _, g := range gaps {
		var err error
		if c.cluster.shared() {
			err = c.gapShared(ctx, s, g, now)
		} else {
			err = c.gapAlone(ctx, s, g, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// gap fetches the candles of g from the venue, once for all concurrent
// askers; held, as of now, ends the wait for a call already made.
func (c *candleCache) gap(ctx context.Context, s *candles.Series, g candles.Span, now time.Time) error {
	k := s.Key()
	held := func() (any, bool, error) { return nil, len(s.Missing(g.Lo, g.Hi, now)) == 0, nil }
	_, err := c.calls.do(ctx, flightKey(k, "range", g.Lo, g.Hi), c.timeout, 0, held, func(ctx context.Context) (any, error) {
		at := c.now()
		recs, stamps, err := c.venue.KLineRangeStamped(ctx, k.Code, k.Period, g.Lo, g.Hi)
		c.metrics.countVenueCall(venue.EndpointKLine, err)
		if err != nil {
			c.remember(s, err, at)
			return nil, err
		}
		if err := sameFuture(k, stamps...); err != nil {
			return nil, err
		}
		s.Merge(candles.Fetch{Candles: recs, Asked: g, At: at})
		return nil, nil
	})
	return err
}

// sameFuture checks that the venue answered series k's contract-type code
// (stamps: the ts, Unix ms, of its answers) when the code named the future
// k holds: the venue names the future by its own clock, the series by the
// gateway's (docs/decisions.md#contract-type-codes). Another future's
// candles, closed ones included, would be held as this one's until the next
// delivery; refused, they are the venue busy for a moment (1004), answered
// stale when candles are held.
func sameFuture(k candles.Key, stamps ...int64) error {
	if k.Since == 0 {
		return nil
	}
	for _, ts := range stamps {
		if ts == 0 {
			continue // no clock given: nothing to go by
		}
		if d := venueapi.LastDelivery(time.UnixMilli(ts)).Unix(); d != k.Since {
			return &venue.RejectedError{Code: venueapi.CodeBusy, Message: fmt.Sprintf(
				"by the venue's clock (%s) %s names the future since the delivery of %s, by this server's the one since %s; try again in a moment",
				time.UnixMilli(ts).UTC().Format(time.RFC3339Nano), k.Code,
				time.Unix(d, 0).UTC().Format(time.DateTime), time.Unix(k.Since, 0).UTC().Format(time.DateTime))}
		}
	}
	return nil
}

// flightKey names a shared venue call: the series and what is asked of it.
func flightKey(k candles.Key, what string, nums ...int64) string {
	b := appendSeries(make([]byte, 0, 64), k)
	b = append(b, '|')
	b = append(b, what...)
	for _, n := range nums {
		b = append(b, '|')
		b = strconv.AppendInt(b, n, 10)
	}
	return string(b)
}

// bytesHeld is the store's size now, for the metric.
func (c *candleCache) bytesHeld() float64 { return float64(c.store.Bytes()) }
