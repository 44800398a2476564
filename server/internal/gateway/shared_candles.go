package gateway

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/candles"
	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// The candle cache's part of the state replicas share (docs/architecture.md,
// "Shared state (Redis)"). Each replica keeps its own candles.Store; Redis
// holds what one replica fetched for all:
//
//   - kline:block:<code>|<period>|<b>: the closed candles of history block b
//     (docs/decisions.md#history-blocks), fetched by the replica that won the
//     block's lease, read by the others instead of the venue;
//   - kline:latest:<code>|<period>: the last refresh of a series' newest
//     candles, made by the one replica that won kline:lease:<code>|<period>
//     for the refresh interval (docs/decisions.md#shared-refresh), merged by
//     every replica into its own series when told of it, so that a cache hit
//     costs no Redis call.
const (
	// blockLen is the candles of a history block: one venue call fetches one.
	blockLen = venueapi.KLineMaxSize
	// blockTTL keeps a block in Redis; a closed candle never changes.
	blockTTL = time.Hour
	// blockPoll is how often a replica waiting for another's block looks
	// again, should the news of it be lost or its fetcher die.
	blockPoll = 250 * time.Millisecond
	// latestMin is the fewest candles a refresh for the cluster asks for:
	// enough that the others' held runs join it, though they may have held
	// less than the refresher.
	latestMin = 30
	// latestTTL keeps a refresh in Redis; a newer one replaces it each
	// interval while the series is watched.
	latestTTL = time.Minute
	// watchFor is how long a replica keeps merging the refreshes of a series
	// after it last needed one; a cache hit does not renew it, so a series
	// watched this long costs one refresh's wait, then is watched again.
	watchFor = 10 * time.Minute
)

// sharedFetch is a fetch as one replica puts it in Redis for the others:
// candles.Fetch, and the venue's refusal of the series.
type sharedFetch struct {
	At      time.Time         `json:"at"`
	Lo      int64             `json:"lo"`
	Hi      int64             `json:"hi"`
	Floor   int64             `json:"floor,omitempty"`
	Candles []venueapi.Candle `json:"data,omitempty"`
	Refused *sharedRefusal    `json:"refused,omitempty"`
}

func sharedFetchOf(f candles.Fetch) sharedFetch {
	return sharedFetch{At: f.At, Lo: f.Asked.Lo, Hi: f.Asked.Hi, Floor: f.Floor, Candles: f.Candles}
}

func (f sharedFetch) fetch(latest bool) candles.Fetch {
	return candles.Fetch{Candles: f.Candles, Asked: candles.Span{Lo: f.Lo, Hi: f.Hi}, At: f.At, Latest: latest, Floor: f.Floor}
}

// sharedRefusal is the venue refusing a query for good (an unknown
// contract, an invalid input), as shared: asking again would cost a call
// for the same answer.
type sharedRefusal struct {
	NotFound   bool   `json:"not_found,omitempty"`
	Code       int    `json:"code"`
	Message    string `json:"message"`
	HTTPStatus int    `json:"http_status,omitempty"`
}

// refusalOf is err as shared, or nil when it is not a refusal: the one
// test of a refusal, which the private caches keep like an answer.
func refusalOf(err error) *sharedRefusal {
	var nf *venue.NotFoundError
	var rj *venue.RejectedError
	switch {
	case errors.As(err, &nf):
		return &sharedRefusal{NotFound: true, Code: nf.Code, Message: nf.Message}
	case errors.As(err, &rj) && rj.Code == venueapi.CodeInvalidInput:
		return &sharedRefusal{Code: rj.Code, Message: rj.Message, HTTPStatus: rj.HTTPStatus}
	}
	return nil
}

func (r *sharedRefusal) err() error {
	if r.NotFound {
		return &venue.NotFoundError{Code: r.Code, Message: r.Message}
	}
	status := r.HTTPStatus
	if status == 0 {
		status = http.StatusOK
	}
	return &venue.RejectedError{Code: r.Code, Message: r.Message, HTTPStatus: status}
}

// seriesName names a series in Redis keys (appendSeries).
func seriesName(k candles.Key) string { return string(appendSeries(nil, k)) }

// appendSeries appends the name of series k: code|period, a contract-type
// code's as code@delivery|period.
func appendSeries(b []byte, k candles.Key) []byte {
	b = append(b, k.Code...)
	if k.Since != 0 {
		b = append(b, '@')
		b = strconv.AppendInt(b, k.Since, 10)
	}
	b = append(b, '|')
	return append(b, k.Period...)
}

// latestShared makes s hold its latest n candles, fresh, with one venue call
// per series per refresh interval for the whole cluster: the replica that
// wins the series' lease calls the venue and puts what it got; the others
// merge that, then fill any gap between their held run and it from the
// history blocks. Without Redis it calls the venue itself, as a lone
// server does.
func (c *candleCache) latestShared(ctx context.Context, s *candles.Series, size, n int) error {
	k := s.Key()
	name := seriesName(k)
	key := "kline:latest:" + name
	c.watched.add(name, k, c.now(), c.store.Holds)
	w := c.cluster.notice.watch(key)
	defer w.stop()
	for !c.fresh(s) {
		if !c.cluster.shared() {
			return c.latestAlone(ctx, s, size)
		}
		news := w.next()
		l, err := c.cluster.lease(ctx, key, c.refresh)
		if err != nil {
			return c.latestAlone(ctx, s, size)
		}
		if l.Won {
			f, err := c.latestFromVenue(ctx, s, max(size, latestMin))
			if r := refusalOf(err); r != nil {
				c.cluster.put(ctx, key, sharedFetch{At: c.now(), Refused: r}, latestTTL)
			}
			if err != nil {
				c.cluster.release(ctx, l, err)
				return err
			}
			c.cluster.count("kline_latest", "fetched")
			c.cluster.put(ctx, key, sharedFetchOf(f), latestTTL)
			break
		}
		// Another replica refreshes the series: its refresh may be in Redis
		// already (its news came before this replica watched the series).
		var f sharedFetch
		found, err := c.cluster.get(ctx, key, &f)
		if err != nil {
			return c.latestAlone(ctx, s, size)
		}
		if found {
			if err := c.mergeLatest(s, f); err != nil {
				return err
			}
		}
		if !c.fresh(s) {
			// A refresh comes within a refresh interval, when the lease
			// lapses, unless its news is lost: look again now and then.
			if err := await(ctx, news, c.refresh/4); err != nil {
				return err
			}
			if at, err := s.Refused(); err != nil && c.now().Sub(at) < c.refresh {
				return err
			}
		}
		if c.fresh(s) {
			c.cluster.count("kline_latest", "shared")
		}
	}
	return c.fillTail(ctx, s, n)
}

// latestAlone is latestFromVenue for this replica only: without shared
// state, or while Redis is out of reach.
func (c *candleCache) latestAlone(ctx context.Context, s *candles.Series, size int) error {
	_, err := c.latestFromVenue(ctx, s, size)
	c.cluster.countAlone("kline_latest", err)
	return err
}

// fresh reports whether s's latest candles were refreshed, by any replica,
// within the refresh interval, and reach the current candle: a refresh
// made before a candle opened does not hold it, and the replica waits for
// the series' lease rather than ask the venue for it alone.
func (c *candleCache) fresh(s *candles.Series) bool {
	now := c.now()
	t := s.Tail(1, now)
	return t.Held && now.Sub(t.Refreshed) < c.refresh
}

func (c *candleCache) refreshed(s *candles.Series) time.Time {
	return s.Tail(1, c.now()).Refreshed
}

// mergeLatest merges another replica's refresh of s, unless s holds a
// newer one; a refusal within the refresh interval is returned.
func (c *candleCache) mergeLatest(s *candles.Series, f sharedFetch) error {
	if f.Refused != nil {
		err := f.Refused.err()
		s.Refuse(err, f.At)
		if c.now().Sub(f.At) < c.refresh {
			return err
		}
		return nil
	}
	if f.At.After(c.refreshed(s)) {
		s.Merge(f.fetch(true))
	}
	return nil
}

// fillTail fetches what s lacks of its latest n candles, its newest ones
// being fresh: the gap between its held run and a refresh it merged.
func (c *candleCache) fillTail(ctx context.Context, s *candles.Series, n int) error {
	p := s.Key().Period
	now := c.now()
	current := p.Start(now.Unix())
	for _, g := range s.Missing(p.Back(current, n-1), current, now) {
		if err := c.gapShared(ctx, s, g, now); err != nil {
			return err
		}
	}
	return nil
}

// gapShared fetches the candles of g block by block: a block's final
// candles from Redis when another replica fetched them, else from the
// venue for every replica; the open candle and those not yet final
// (candles.Unsettled), and everything while Redis is out of reach, from the
// venue for this replica only.
func (c *candleCache) gapShared(ctx context.Context, s *candles.Series, g candles.Span, now time.Time) error {
	p := s.Key().Period
	for id := g.Lo; id <= g.Hi; {
		b := blockOf(p, id)
		piece := candles.Span{Lo: id, Hi: min(g.Hi, b.hi)}
		var err error
		switch {
		case !c.cluster.shared():
			err = c.gapAlone(ctx, s, piece, now)
		case piece.Hi >= candles.Unsettled(p, now):
			err = c.gap(ctx, s, piece, now)
		default:
			err = c.blockShared(ctx, s, b, piece, now)
		}
		if err != nil {
			return err
		}
		id = p.Next(piece.Hi)
	}
	return nil
}

// blockShared makes s hold piece, final candles of block b, once for all
// concurrent askers of this replica.
func (c *candleCache) blockShared(ctx context.Context, s *candles.Series, b block, piece candles.Span, now time.Time) error {
	held := func() (any, bool, error) { return nil, len(s.Missing(piece.Lo, piece.Hi, now)) == 0, nil }
	_, err := c.calls.do(ctx, flightKey(s.Key(), "block", b.n, piece.Hi), c.timeout, 0, held, func(ctx context.Context) (any, error) {
		return nil, c.loadBlock(ctx, s, b, piece, now)
	})
	return err
}

// loadBlock reads block b from Redis when it holds piece; else the replica
// that wins the block's lease fetches its final candles from the venue and
// puts them, and the others wait for them.
func (c *candleCache) loadBlock(ctx context.Context, s *candles.Series, b block, piece candles.Span, now time.Time) error {
	k := s.Key()
	key := "kline:block:" + seriesName(k) + "|" + strconv.FormatInt(b.n, 10)
	w := c.cluster.notice.watch(key)
	defer w.stop()
	for {
		if !c.cluster.shared() {
			return c.gapAlone(ctx, s, piece, now)
		}
		news := w.next()
		var f sharedFetch
		found, err := c.cluster.get(ctx, key, &f)
		if err != nil {
			return c.gapAlone(ctx, s, piece, now)
		}
		if found && f.Lo <= piece.Lo && f.Hi >= piece.Hi {
			s.Merge(f.fetch(false))
			c.cluster.count("kline_history", "shared")
			return nil
		}
		// Every final candle of the block, so that one fetch serves
		// whatever part of it the next replica lacks; a candle the venue
		// may still count is no replica's to share. The lease names the
		// last of them: a replica that needs a candle final since the
		// block was last fetched need not wait for that fetch's lease.
		at := c.now()
		upto := min(b.hi, k.Period.Prev(candles.Unsettled(k.Period, at)))
		lease := key + "|" + strconv.FormatInt(upto, 10)
		l, err := c.cluster.lease(ctx, lease, c.timeout)
		if err != nil {
			return c.gapAlone(ctx, s, piece, now)
		}
		if l.Won {
			recs, stamps, err := c.venue.KLineRangeStamped(ctx, k.Code, k.Period, b.lo, upto)
			c.metrics.countVenueCall(venue.EndpointKLine, err)
			if err == nil {
				err = sameFuture(k, stamps...)
			}
			if err != nil {
				c.remember(s, err, at)
				c.cluster.release(ctx, l, err)
				return err
			}
			f := sharedFetch{At: at, Lo: b.lo, Hi: upto, Candles: recs}
			s.Merge(f.fetch(false))
			c.cluster.count("kline_history", "fetched")
			if c.cluster.putPooled(ctx, key, f, blockTTL, "kline:blocks", c.blockPool) {
				// The blocks put this hour have filled their room in Redis
				// (docs/decisions.md#history-blocks): a replica waiting for
				// the block takes the lease at its next look (blockPoll) and
				// fetches for itself, rather than wait out the lease.
				c.cluster.count("kline_history", "pool_full")
				c.cluster.releaseNow(ctx, l)
			}
			return nil
		}
		if err := await(ctx, news, blockPoll); err != nil {
			return err
		}
	}
}

// gapAlone is gap for this replica only: without shared state, or while
// Redis is out of reach.
func (c *candleCache) gapAlone(ctx context.Context, s *candles.Series, piece candles.Span, now time.Time) error {
	err := c.gap(ctx, s, piece, now)
	c.cluster.countAlone("kline_history", err)
	return err
}

// block is history block n of a period: blockLen candles, lo to hi (candle
// ids), the nth such run since the epoch (docs/decisions.md#history-blocks).
type block struct{ n, lo, hi int64 }

// blockOf is the block holding the candle id (id ≥ 0). Every replica
// computes the same blocks, so they ask Redis for the same keys.
func blockOf(p venueapi.Period, id int64) block {
	if sec := p.Seconds(); sec > 0 {
		n := id / (blockLen * sec)
		lo := n * blockLen * sec
		return block{n: n, lo: lo, hi: lo + (blockLen-1)*sec}
	}
	// 1mon: months differ in length, so count them through the calendar.
	i := p.Count(0, id) - 1 // the candle's index since the epoch
	b := block{n: i / blockLen, lo: p.Back(id, int(i%blockLen))}
	b.hi = b.lo
	for range blockLen - 1 {
		b.hi = p.Next(b.hi)
	}
	return b
}

// changed merges another replica's refresh of the series name into this
// replica's, if it watches that series; on cluster.Everything, of every
// series it watches.
func (c *candleCache) changed(ctx context.Context, name string) {
	now := c.now()
	if name != cluster.Everything {
		if k, ok := c.watched.lookup(name, now); ok {
			c.readLatest(ctx, name, k)
		}
		return
	}
	for name, k := range c.watched.all(now) {
		if !c.cluster.shared() {
			return
		}
		c.readLatest(ctx, name, k)
	}
}

func (c *candleCache) readLatest(ctx context.Context, name string, k candles.Key) {
	var f sharedFetch
	if found, err := c.cluster.get(ctx, "kline:latest:"+name, &f); err == nil && found {
		_ = c.mergeLatest(c.store.Series(k), f)
	}
}

// watchList is the series a replica has needed a refresh of lately: it
// merges other replicas' refreshes of those only.
type watchList struct {
	mu    sync.Mutex
	m     map[string]watch
	swept time.Time
	kept  int // series watched after the last sweep
}

// watchSweepMin is the fewest series watched that add sweeps.
const watchSweepMin = 16

type watch struct {
	key candles.Key
	at  time.Time // when last needed
}

// add watches the series k, named name, as needed at now. Past twice the
// series kept at the last sweep, it forgets those needed too long ago and
// those the store no longer holds (holds): a series the cache dropped has
// nothing to keep current, and codes a client sprays stay within the
// cache's bound rather than piling up for watchFor.
func (w *watchList) add(name string, k candles.Key, now time.Time, holds func(candles.Key) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]watch{}
	}
	w.m[name] = watch{k, now}
	if now.Sub(w.swept) >= watchFor || len(w.m) > max(2*w.kept, watchSweepMin) {
		w.swept = now
		for n, e := range w.m {
			if now.Sub(e.at) >= watchFor || !holds(e.key) {
				delete(w.m, n)
			}
		}
		w.kept = len(w.m)
	}
}

func (w *watchList) lookup(name string, now time.Time) (candles.Key, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[name]
	return e.key, ok && now.Sub(e.at) < watchFor
}

func (w *watchList) all(now time.Time) map[string]candles.Key {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]candles.Key, len(w.m))
	for n, e := range w.m {
		if now.Sub(e.at) < watchFor {
			out[n] = e.key
		}
	}
	return out
}
