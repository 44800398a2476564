package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// streamHub pushes each series' changed candles to the browsers that
// subscribed to it (GET /api/v1/stream/kline, stream.go). One pump per
// series with subscribers asks the candle cache, never the venue, for the
// latest candles; the cache calls the venue at most once per refresh
// interval, so a thousand subscribers cost what one poll does, and a series
// nobody subscribes to has no pump. Each pump encodes what changed once and
// hands the same bytes to every subscriber's bounded buffer; a subscriber
// whose buffer is full is dropped rather than waited for
// (docs/decisions.md#stream-drop-policy).
type streamHub struct {
	candles      *candleCache
	look         time.Duration // how often a pump asks the cache
	refresh      time.Duration // the cache's refresh interval: a pump's pace while the venue fails
	now          func() time.Time
	log          *slog.Logger
	maxTotal     int
	maxPerClient int
	life         *Streams
	detached     *Detached // the pumps' lifetime: a pump outlives every request

	mu        sync.Mutex
	pumps     map[streamKey]*pump
	total     int
	perClient map[netip.Addr]int

	events  prometheus.Counter // candle events handed to subscribers' buffers
	dropped prometheus.Counter // subscribers dropped for a full buffer
}

// streamKey names a pump: a contract and the period as asked, since the
// channel name of 60min and 1hour differ though their candles do not.
type streamKey struct {
	code   string
	period venueapi.Period
}

const (
	// streamBuffer is how many pushes a subscriber may fall behind before it
	// is dropped: half a minute of a 1 s refresh.
	streamBuffer = 32
	// streamRecent is how many of the latest candles a pump keeps to compare
	// the next answer with, and gives a new subscriber first: the one before
	// the current candle may have changed as it closed.
	streamRecent = 2
	// streamLooksPerRefresh is how many times per refresh interval a pump
	// asks the cache. The cache calls the venue only once the interval has
	// passed since its last refresh, so looking once per interval would
	// often come a moment early and wait a second interval; a tenth keeps
	// pushes within a tenth of an interval of each refresh, including one a
	// KLine request or another replica made.
	streamLooksPerRefresh = 10
)

func newStreamHub(c *candleCache, cfg Config, reg prometheus.Registerer) *streamHub {
	h := &streamHub{candles: c, look: max(cfg.RefreshInterval/streamLooksPerRefresh, 10*time.Millisecond), refresh: cfg.RefreshInterval, now: cfg.Now, log: cfg.Logger,
		maxTotal: cfg.MaxStreams, maxPerClient: cfg.ClientStreams, life: cfg.Streams, detached: cfg.Detached,
		pumps: map[streamKey]*pump{}, perClient: map[netip.Addr]int{},
		events: prometheus.NewCounter(prometheus.CounterOpts{Name: "riskchart_stream_events_total",
			Help: "Candle events handed to stream subscribers."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "riskchart_streams_dropped_total",
			Help: "Streams ended because their subscriber fell a whole buffer behind."}),
	}
	reg.MustRegister(h.events, h.dropped,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_streams_open", Help: "Candle streams open."},
			func() float64 { h.mu.Lock(); defer h.mu.Unlock(); return float64(h.total) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_stream_series", Help: "Series with stream subscribers, each refreshed by one pump."},
			func() float64 { h.mu.Lock(); defer h.mu.Unlock(); return float64(len(h.pumps)) }),
	)
	return h
}

// errStreamsClosed is a stream asked for while the server shuts down.
var errStreamsClosed = errors.New("the server is shutting down")

// errStreamsFull is a stream refused by a cap on open streams.
type errStreamsFull struct{ perClient bool }

func (e *errStreamsFull) Error() string {
	if e.perClient {
		return "too many streams open from this client"
	}
	return "this server has as many streams open as it takes"
}

// subscriber is one open stream.
type subscriber struct {
	pump    *pump
	client  netip.Addr
	ch      chan []byte   // encoded events, shared with the other subscribers: never written to
	dropped chan struct{} // closed when the pump drops this subscriber
}

// subscribe opens a stream of k for client, within the caps. The series is
// asked for once before the stream starts, so that a contract the venue
// does not list, or a venue that cannot answer with nothing held, is an
// answer with a status rather than a stream. It returns the subscriber, and
// what it starts from: the latest candles the pump pushed and their state;
// pushes after them follow on the subscriber's channel.
func (h *streamHub) subscribe(ctx context.Context, client netip.Addr, k streamKey) (*subscriber, []streamRecord, streamState, error) {
	client = clientaddr.Holder(client) // as connlimit counts
	if !h.life.hold() {
		return nil, nil, streamState{}, errStreamsClosed
	}
	h.mu.Lock()
	switch {
	case h.perClient[client] >= h.maxPerClient:
		h.mu.Unlock()
		h.life.release()
		return nil, nil, streamState{}, &errStreamsFull{perClient: true}
	case h.total >= h.maxTotal:
		h.mu.Unlock()
		h.life.release()
		return nil, nil, streamState{}, &errStreamsFull{}
	}
	h.total++
	h.perClient[client]++
	p := h.pumps[k]
	if p == nil {
		p = newPump(h, k)
		h.pumps[k] = p
		go p.run()
	}
	p.users++
	h.mu.Unlock()

	sub := &subscriber{pump: p, client: client, ch: make(chan []byte, streamBuffer), dropped: make(chan struct{})}
	if err := p.prime(ctx); err != nil {
		h.unsubscribe(sub)
		return nil, nil, streamState{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.subs[sub] = struct{}{}
	return sub, p.recent, p.state, nil
}

// unsubscribe closes sub's stream; the last one of a series stops its pump.
func (h *streamHub) unsubscribe(sub *subscriber) {
	defer h.life.release()
	p := sub.pump
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total--
	if h.perClient[sub.client]--; h.perClient[sub.client] <= 0 {
		delete(h.perClient, sub.client)
	}
	p.mu.Lock()
	delete(p.subs, sub)
	p.mu.Unlock()
	if p.users--; p.users == 0 {
		delete(h.pumps, p.key)
		p.stop()
	}
}

// pump refreshes one series for its subscribers.
type pump struct {
	hub   *streamHub
	key   streamKey
	ch    string // the venue's channel name, in every event
	users int    // subscribers and requests about to subscribe; under hub.mu
	ctx   context.Context
	stop  context.CancelFunc
	ended func()        // tells hub.detached that run has returned
	turn  chan struct{} // one refresh at a time

	last *answer // the cache's answer of the last refresh: unchanged, nothing to compare; under turn

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	primed bool           // a refresh has answered candles
	recent []streamRecord // the latest candles pushed, oldest first; never changed in place
	newest int64          // id of the newest candle pushed
	state  streamState    // the candles held stand in for a venue that failed; a type code's future
}

// newPump makes the pump of k, whose run must follow.
func newPump(h *streamHub, k streamKey) *pump {
	ctx, ended := h.detached.detach(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	return &pump{hub: h, key: k, ch: venueapi.Channel(k.code, k.period), ctx: ctx, stop: cancel, ended: ended,
		turn: make(chan struct{}, 1), subs: map[*subscriber]struct{}{}}
}

// run looks at the cache until the last subscriber leaves, the streams
// close (a stream whose browser stopped reading may hold its subscriber
// until the grace period ends, and reads nothing more), or the gateway
// closes its detached work. While the venue fails, it looks once per
// refresh interval, as a poll would: each look at a series not refreshed in
// time is a venue call, or one the venue client's breaker refuses unsent.
func (p *pump) run() {
	defer p.ended()
	t := time.NewTimer(p.hub.look)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-p.hub.life.stop:
			return
		case <-t.C:
		}
		next := p.hub.look
		stale, err := p.refresh(p.ctx)
		if err != nil || stale {
			next = p.hub.refresh
		}
		if err != nil && p.ctx.Err() == nil {
			p.hub.log.Debug("stream refresh failed", "contract_code", p.key.code, "period", string(p.key.period), "err", err)
		}
		t.Reset(next)
	}
}

// prime refreshes the series unless a refresh has answered candles already.
func (p *pump) prime(ctx context.Context) error {
	p.mu.Lock()
	primed := p.primed
	p.mu.Unlock()
	if primed {
		return nil
	}
	_, err := p.refresh(ctx)
	return err
}

// refresh asks the cache for the latest candles and pushes those that
// changed, reporting whether they are stale. Its error is the cache's when
// it answered nothing; the candles pushed so far are then marked stale.
func (p *pump) refresh(ctx context.Context) (stale bool, err error) {
	select {
	case p.turn <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-p.turn }()
	res, err := p.hub.candles.answer(ctx, venueapi.KLineQuery{ContractCode: p.key.code, Period: p.key.period, Size: p.size()})
	if err != nil {
		switch {
		case ctx.Err() != nil:
		case errors.As(err, new(*venue.NotFoundError)):
			p.unlisted()
		default:
			p.publish(nil, true, 0)
		}
		return true, err
	}
	stale = res.stale != nil
	if res.answer == p.last {
		return stale, nil // the answer the cache kept: nothing changed
	}
	recs, err := streamRecords(res.answer.body)
	if err != nil {
		return stale, fmt.Errorf("reading the cache's answer of %s: %w", p.ch, err)
	}
	p.last = res.answer
	p.publish(recs, stale, res.answer.delivery)
	return stale, nil
}

// unlisted ends every stream of the series, which the venue no longer lists
// (a future delivered): each browser, reconnecting, is answered 404 and
// 1013, as the KLine path answers it, rather than kept on a stream that can
// only say stale. The pump forgets what it pushed, so that a stream opened
// meanwhile asks the venue again before it starts.
func (p *pump) unlisted() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for sub := range p.subs {
		delete(p.subs, sub)
		close(sub.dropped)
	}
	p.primed, p.recent, p.newest, p.state = false, nil, 0, streamState{}
	p.last = nil
}

// size is how many of the latest candles to ask for: the current one and
// the one before, or, after refreshes failed, every candle since the newest
// pushed, so that none is skipped.
func (p *pump) size() int {
	p.mu.Lock()
	newest := p.newest
	p.mu.Unlock()
	if newest == 0 {
		return streamRecent
	}
	n := p.key.period.Count(newest, p.key.period.Start(p.hub.now().Unix()))
	return int(min(max(n, streamRecent), venueapi.KLineMaxSize))
}

// publish pushes to every subscriber what changed since the last push:
// candles newer than the newest pushed, and recent ones whose record
// differs; and the stale mark when it changes. recs are the latest
// candles, oldest first, of the future delivered at delivery (a type
// code's; 0 for other codes); nil when the cache answered none. When a type
// code names the next future, the state naming it goes first, then every
// candle of recs: they are that future's, not the one's pushed before.
func (p *pump) publish(recs []streamRecord, stale bool, delivery int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(recs) == 0 && !p.primed {
		return // nothing pushed yet, so nothing to mark stale; a venue without candles yet has none to push
	}
	var out []byte
	next := p.primed && len(recs) > 0 && delivery != p.state.delivery
	if next {
		out = appendStateEvent(out, p.ch, streamState{stale: stale, delivery: delivery})
	}
	for _, r := range recs {
		if !p.primed || next || r.id > p.newest || p.changed(r) {
			out = appendCandleEvent(out, p.ch, r)
		}
	}
	if len(recs) > 0 {
		p.recent = recs[max(len(recs)-streamRecent, 0):]
		p.newest = max(p.newest, recs[len(recs)-1].id)
		p.primed = true
		p.state.delivery = delivery
	}
	if stale != p.state.stale && p.primed && !next {
		out = appendStateEvent(out, p.ch, streamState{stale: stale, delivery: p.state.delivery})
	}
	p.state.stale = stale
	if len(out) == 0 {
		return
	}
	n := 0
	for sub := range p.subs {
		select {
		case sub.ch <- out:
			n++
		default: // a whole buffer behind: drop it, never wait (docs/decisions.md#stream-drop-policy)
			delete(p.subs, sub)
			close(sub.dropped)
			p.hub.dropped.Inc()
		}
	}
	p.hub.events.Add(float64(n))
}

// changed reports whether r is a recent candle whose record differs from
// the one pushed.
func (p *pump) changed(r streamRecord) bool {
	for _, o := range p.recent {
		if o.id == r.id {
			return o.version != r.version
		}
	}
	return false // older than the recent ones: pushed already, and closed
}

// streamRecords reads the candle records of a KLine answer the cache
// encoded, byte for byte as it holds them.
func streamRecords(body []byte) ([]streamRecord, error) {
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	recs := make([]streamRecord, 0, len(env.Data))
	for _, raw := range env.Data {
		var c struct {
			ID *int64 `json:"id"`
		}
		if err := json.Unmarshal(raw, &c); err != nil || c.ID == nil || len(raw) < 2 || raw[0] != '{' {
			return nil, errors.New("a candle record without an id")
		}
		recs = append(recs, newStreamRecord(*c.ID, raw))
	}
	return recs, nil
}
