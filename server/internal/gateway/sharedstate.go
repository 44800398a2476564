package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/venue"
)

// SharedState is what this replica shares with the others through Redis
// (docs/architecture.md, "Shared state (Redis)"): the candles' history in
// blocks and the refreshes of their newest candles, the private answers'
// short caches, and the venue budgets the venue client spends. Each replica
// keeps local copies, which Run keeps current, so a cache hit costs no
// Redis call. When Redis is out of reach the caches work alone, each
// replica within its share of the budgets, until it answers again.
//
// Make one per gateway, hand it to New in Config.Shared, and run Run beside
// the gateway, as each budget's own Run.
type SharedState struct {
	c       *cluster.Client
	budgets []*cluster.Budget

	down    atomic.Bool // a Redis call failed: the caches work alone until a probe answers
	refused atomic.Bool // the failure was Redis refusing this replica (cluster.IsRefusal)
	notice  noticeBoard // woken by each change, once its handlers have run

	mu       sync.Mutex
	log      *slog.Logger
	handlers []changeHandler     // by key prefix; set by New
	pending  map[string]struct{} // changed keys the dispatcher has yet to hand over
	wake     chan struct{}       // a change is pending
	counts   *prometheus.CounterVec
	attached bool
}

// changeHandler is a cache told of the changed keys under its prefix, with
// the key after the prefix, and of cluster.Everything.
type changeHandler struct {
	prefix  string
	changed func(ctx context.Context, rest string)
}

// sharedProbeEvery is how often a replica working alone asks Redis again.
const sharedProbeEvery = time.Second

// NewSharedState shares state through c. The budgets are those the venue
// client spends (cluster.VenueBudget): /healthz and /metrics report them.
func NewSharedState(c *cluster.Client, budgets ...*cluster.Budget) *SharedState {
	return &SharedState{c: c, budgets: budgets, pending: map[string]struct{}{}, wake: make(chan struct{}, 1),
		log: slog.New(slog.DiscardHandler)}
}

// attach ties s to one gateway: its log and metrics, and the caches' handlers.
func (s *SharedState) attach(log *slog.Logger, reg prometheus.Registerer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attached {
		return fmt.Errorf("gateway: a SharedState serves one gateway")
	}
	s.attached = true
	s.log = log.With("component", "shared state")
	s.counts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_shared_cache_total",
		Help: "Shared cache fills, by cache (kline_latest, kline_history, tiers, limits) and how (fetched: this replica called the venue for the cluster; " +
			"shared: another replica's fetch served; alone: Redis out of reach, fetched for this replica only; " +
			"pool_full: a history block fetched and not put, the hour's room for blocks in Redis being full)."}, []string{"cache", "how"})
	cs := []prometheus.Collector{s.c, s.counts, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_shared_cache_degraded",
		Help: "1 while Redis is out of reach and the caches work alone."}, func() float64 {
		if s.down.Load() {
			return 1
		}
		return 0
	})}
	for _, b := range s.budgets {
		cs = append(cs, b)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("gateway: registering the shared state's metrics: %w", err)
		}
	}
	return nil
}

// on hands the changes of keys under prefix to changed.
func (s *SharedState) on(prefix string, changed func(ctx context.Context, rest string)) {
	s.mu.Lock()
	s.handlers = append(s.handlers, changeHandler{prefix, changed})
	s.mu.Unlock()
}

// Run keeps the local copies current until ctx ends: it watches the values
// every replica puts, hands each to the cache it belongs to, and while Redis
// is out of reach asks it again every second. Run it once, after New.
func (s *SharedState) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { s.dispatch(ctx) })
	wg.Go(func() { s.probe(ctx) })
	err := s.c.Watch(ctx, s.changed)
	wg.Wait()
	return err
}

// changed runs on Watch's goroutine: it only queues the key.
func (s *SharedState) changed(key string) {
	s.mu.Lock()
	s.pending[key] = struct{}{}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// dispatch hands the queued changes to the caches, then wakes whoever waits
// for them: a waiter that wakes finds the value in its local copy.
func (s *SharedState) dispatch(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		s.mu.Lock()
		keys, handlers := s.pending, s.handlers
		s.pending = map[string]struct{}{}
		s.mu.Unlock()
		if _, all := keys[cluster.Everything]; all {
			// The subscription began or was lost: some changes may have
			// gone unseen. Each cache reads again what it keeps.
			for _, h := range handlers {
				h.changed(ctx, cluster.Everything)
			}
			s.notice.all()
			continue
		}
		for key := range keys {
			for _, h := range handlers {
				if rest, ok := strings.CutPrefix(key, h.prefix); ok {
					h.changed(ctx, rest)
				}
			}
			s.notice.wake(key)
		}
	}
}

// probe asks Redis again, once a second, while the caches work alone.
func (s *SharedState) probe(ctx context.Context) {
	t := time.NewTicker(sharedProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.down.Load() {
			continue
		}
		if err := s.c.Ping(ctx); err != nil {
			s.fail(ctx, err) // why, as Redis answers now: out of reach, or refusing
			continue
		}
		if s.down.CompareAndSwap(true, false) {
			s.log.Info("Redis answers again: the caches are shared again")
			s.changed(cluster.Everything) // what was put meanwhile went unseen
		}
	}
}

// shared reports whether Redis is in use: it is configured and answered its
// last call. A replica working alone asks Redis nothing until a probe
// answers, so no request waits on a Redis known to be out of reach.
func (s *SharedState) shared() bool { return s != nil && !s.down.Load() }

// fail notes a failed Redis call: the caches work alone from now, and the
// outage is logged once, not per request, and again only when its reason
// changes (cluster.IsRefusal). A call ended by its caller's
// context is not Redis failing: that context's deadline may have passed a
// moment before its timer marks it done (Err still nil), and the call cut by
// it counts as the caller's all the same.
func (s *SharedState) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return
	}
	refused := cluster.IsRefusal(err)
	wasRefused, wasDown := s.refused.Swap(refused), s.down.Swap(true)
	if !wasDown || wasRefused != refused {
		s.log.Warn("Redis "+cluster.Reason(refused)+": the caches work alone, each replica within its share of the venue budget, until Redis is shared again", "err", err)
	}
}

// health says whether this replica shares its state as configured: "" when
// it does, else why not.
func (s *SharedState) health() string {
	if s.down.Load() {
		return cluster.Reason(s.refused.Load()) + ": the caches work alone"
	}
	for _, b := range s.budgets {
		if b.State() == cluster.Degraded {
			return cluster.Reason(b.Refused()) + ": the venue budgets are spent from this replica's share"
		}
	}
	return ""
}

// count counts a cache fill.
func (s *SharedState) count(cache, how string) {
	if s.counts != nil {
		s.counts.WithLabelValues(cache, how).Inc()
	}
}

// countAlone counts a cache fill made for this replica only, Redis being
// out of reach; s may be nil (no shared state), which counts nothing.
func (s *SharedState) countAlone(cache string, err error) {
	if s != nil && err == nil {
		s.count(cache, "alone")
	}
}

// lease takes the lease called name for ttl; its Won says whether this
// call took it. An error means Redis failed, and has been noted.
func (s *SharedState) lease(ctx context.Context, name string, ttl time.Duration) (cluster.Lease, error) {
	l, err := s.c.Lease(ctx, name, ttl)
	if err != nil {
		s.fail(ctx, err)
	}
	return l, err
}

// release ends l, won for a venue call this replica did not make or did not
// finish for a reason of its own: its budget or its client's share spent,
// or the gateway closing under the call (a replica stopping). Another
// replica may then make the call at once rather than wait out the lease. A
// call the venue failed, or that ran out of time, keeps its lease for the
// term, so that a failing venue gets one call per term from the cluster.
// Should l have run out meanwhile, a lease taken on its name since is left
// alone.
func (s *SharedState) release(ctx context.Context, l cluster.Lease, err error) {
	var rl *venue.RateLimitedError
	if errors.As(err, &rl) && !rl.Venue || errors.As(err, new(*shareSpentError)) || closing(ctx) {
		s.releaseNow(ctx, l)
	}
}

// releaseNow ends l now. It runs within the detached call that won l,
// which Detached.Close waits for, and keeps none of ctx's cancellation: the
// gateway closing is one reason to release. The cluster client bounds it.
// A release that fails as the gateway closes is no outage to report: the
// Redis client may be closing too.
func (s *SharedState) releaseNow(ctx context.Context, l cluster.Lease) {
	rctx := context.WithoutCancel(ctx)
	if err := l.Release(rctx); err != nil && !closing(ctx) {
		s.fail(rctx, err)
	}
}

// get reads the value under key into v (JSON); found is false when there is
// none, or none readable.
func (s *SharedState) get(ctx context.Context, key string, v any) (found bool, err error) {
	b, found, err := s.c.Get(ctx, key)
	if err != nil {
		s.fail(ctx, err)
		return false, err
	}
	if !found {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		// Another version of the server may have put it: treat it as absent.
		s.log.Debug("unreadable shared value", "key", key, "err", err)
		return false, nil
	}
	return true, nil
}

// put stores v (JSON) under key for ttl and tells the other replicas. A
// failure is noted and otherwise ignored: this replica holds the value, and
// the others fetch it themselves.
func (s *SharedState) put(ctx context.Context, key string, v any, ttl time.Duration) {
	b, ok := s.encode(key, v)
	if !ok {
		return
	}
	if err := s.c.Put(ctx, key, b, ttl); err != nil {
		s.fail(ctx, err)
	}
}

// putPooled is put, but only while the pool called pool has room for it
// (cluster.Client.PutPooled); full reports that the pool had none, and v
// was not put. A failure is noted and otherwise ignored, as put's is:
// neither costs more than the others fetching for themselves.
func (s *SharedState) putPooled(ctx context.Context, key string, v any, ttl time.Duration, pool string, poolBytes int64) (full bool) {
	b, ok := s.encode(key, v)
	if !ok {
		return false
	}
	kept, err := s.c.PutPooled(ctx, key, b, ttl, pool, poolBytes)
	if err != nil {
		s.fail(ctx, err)
		return false
	}
	return !kept
}

// encode is v as put stores it (JSON); ok is false, and the failure
// logged, when v cannot be.
func (s *SharedState) encode(key string, v any) (b []byte, ok bool) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encoding a shared value", "key", key, "err", err)
		return nil, false
	}
	return b, true
}

// await waits for the next change of a key (news, from a watcher's next
// taken before the key was read), for poll, or for ctx.
func await(ctx context.Context, news <-chan struct{}, poll time.Duration) error {
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-news:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// noticeBoard wakes those waiting for a key to change. A key has an entry
// only while a watcher counts in it: a read that never waits, or a key never
// put again (an unknown contract's block), leaves nothing behind.
type noticeBoard struct {
	mu sync.Mutex
	ch map[string]*notice
}

// notice is a key's next change: ch is closed at it.
type notice struct {
	ch       chan struct{}
	watchers int
}

// watch returns a watcher of key; stop it when done.
func (n *noticeBoard) watch(key string) *watcher { return &watcher{board: n, key: key} }

// watcher is one caller's interest in a key's changes.
type watcher struct {
	board *noticeBoard
	key   string
	in    *notice // the notice it counts in; nil: none
}

// next returns a channel closed at the key's next change. Take it before
// reading the key, so that a change between the read and the wait is not
// missed.
func (w *watcher) next() <-chan struct{} {
	n := w.board
	n.mu.Lock()
	defer n.mu.Unlock()
	cur := n.ch[w.key]
	if cur != nil && cur == w.in {
		return cur.ch // not woken since the last next
	}
	if cur == nil {
		if n.ch == nil {
			n.ch = map[string]*notice{}
		}
		cur = &notice{ch: make(chan struct{})}
		n.ch[w.key] = cur
	}
	cur.watchers++
	w.in = cur
	return cur.ch
}

// stop ends the watch: the key's entry goes with its last watcher.
func (w *watcher) stop() {
	n := w.board
	n.mu.Lock()
	defer n.mu.Unlock()
	if cur := n.ch[w.key]; cur != nil && cur == w.in {
		if cur.watchers--; cur.watchers == 0 {
			delete(n.ch, w.key)
		}
	}
	w.in = nil
}

// wake wakes the watchers of key.
func (n *noticeBoard) wake(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c := n.ch[key]; c != nil {
		close(c.ch)
		delete(n.ch, key)
	}
}

// all wakes every watcher.
func (n *noticeBoard) all() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for k, c := range n.ch {
		close(c.ch)
		delete(n.ch, k)
	}
}

// keys is how many keys have an entry.
func (n *noticeBoard) keys() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.ch)
}
