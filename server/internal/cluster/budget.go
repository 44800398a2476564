package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// State is where a budget's turns come from.
type State int32

const (
	// Shared: from the log in Redis that every replica shares.
	Shared State = iota
	// Degraded: Redis is out of reach, and this replica spends its own share
	// of the limit, the limit divided by the number of replicas.
	Degraded
)

func (s State) String() string {
	if s == Degraded {
		return "degraded"
	}
	return "shared"
}

// Budget is a venue limit that every replica spends together: no window of
// the limit's length (plus a tenth, as the venue counts arrivals, which lag
// sends: docs/decisions.md#client-quota) ever holds more turns, cluster-wide.
// Its methods are safe for concurrent use; Run must run beside them.
//
// The turns are a sliding-window log in Redis, one member per turn, which a
// Lua script trims, counts and adds to in one atomic step on Redis's clock,
// so the replicas' clocks never matter. A rate-limiting library would not
// do: go-redis's redis_rate is GCRA, a token bucket whose burst is the rate,
// so a window that opens with a full burst also takes the refill and holds
// nearly twice the limit, which a venue counting a sliding window refuses.
//
// No turn, shared or local, is granted more than a margin (Ahead) ahead, so
// the turns any log can hide end a margin after it is lost. Beside the
// shared log Redis keeps a marker, a key of its own; a log found without it
// (new, or lost to a restart without persistence or a flush) may have
// granted the whole limit a margin ahead, so the budget is paused, on every
// replica, for a window and a margin, until whatever was granted from it
// before can no longer count. A fresh deployment's first turns wait for that
// too. The
// marker is a key apart so that replicas running the scripts of a release
// before it, as in a rolling deployment, which trim the log, leave it be.
//
// When Redis fails or is slow the budget turns Degraded and takes turns from
// a local log of its share, the limit divided by the replicas. The shared
// log leaves room for that: each replica's presence is a heartbeat with an
// expiry, a replica not present may be spending its share alone so the
// others' limit is lowered by it, and no shared turn is granted later than
// a present replica's presence ends. A replica that leaves therefore waits
// until its presence has surely ended, and one more window, before its first
// turn alone; and it rejoins by adding its own turns to the shared log and
// its presence in one step. A pause the venue asks for holds every replica,
// and a turn taken before it was learnt is given back and taken again after
// it. So the cluster stays within the limit whichever replicas lose Redis,
// and when, provided RISKCHART_REPLICAS is at least the number of replicas,
// Redis's clock never steps back, and Redis never gives back a log that
// lacks turns it granted (restored from a snapshot, or a replica promoted:
// docs/deploy.md#redis-for-the-budgets). One case escapes: a replica
// restarted while it was spending its share alone forgets those turns, and
// the cluster may exceed the limit by that share in one window.
// See docs/architecture.md, "Shared state (Redis)".
type Budget struct {
	c        *Client
	name     string
	limit    venueapi.Limit
	window   time.Duration // the limit's Per and the margin
	ahead    time.Duration // the margin: no turn is granted further ahead
	replicas int
	share    int
	keys     []string // the log, the present replicas, the pause, the log's marker
	log      *slog.Logger

	mu         sync.Mutex
	state      State
	refused    bool          // Redis's latest failure was a refusal of this replica (IsRefusal)
	joining    chan struct{} // while a join is under way; closed when it ends
	local      localLog
	presence   time.Time // no presence this replica asked for lasts longer
	lastShared time.Time // the latest send of a turn from the shared log
	paused     time.Time // the venue said its window is spent until then

	left    int                 // turns the shared log had left after the last reserve
	leftAt  time.Time           // when; a window later the log has emptied of them
	present int                 // replicas the last heartbeat found present; 0: none yet
	turns   [2][2]atomic.Uint64 // by State, then granted (0) or refused (1)
	late    atomic.Uint64       // turns given back because they came too late to be sent
	crowded atomic.Bool         // more replicas present than configured: said once

	degradedDesc, turnsDesc, lateDesc *prometheus.Desc
}

// NewBudget returns the budget called name (one per venue limit: each has
// its own log), spending limit across replicas replicas. It starts shared;
// Run makes it present.
func NewBudget(c *Client, name string, limit venueapi.Limit, replicas int) (*Budget, error) {
	if err := validName("budget", name, 64); err != nil {
		return nil, err
	}
	if limit.Requests < 1 || limit.Per <= 0 {
		return nil, fmt.Errorf("budget %s: limit %d per %s: must allow at least 1 request per positive interval", name, limit.Requests, limit.Per)
	}
	if replicas < 1 || replicas > limit.Requests {
		return nil, fmt.Errorf("budget %s: RISKCHART_REPLICAS %d: must be 1 to %d, so that each replica has a share of %d per %s",
			name, replicas, limit.Requests, limit.Requests, limit.Per)
	}
	window := venue.TurnWindow(limit)
	now := time.Now()
	key := prefix + "budget:{" + name + "}"
	b := &Budget{
		c: c, name: name, limit: limit, window: window, ahead: window - limit.Per, replicas: replicas, share: limit.Requests / replicas,
		keys: []string{key + ":log", key + ":present", key + ":pause", key + ":kept"},
		log:  c.log.With("budget", name),
		// An earlier run of this replica may still be present.
		presence: now.Add(c.opt.MemberTTL),
		degradedDesc: prometheus.NewDesc("riskchart_shared_budget_degraded",
			"1 while the budget spends this replica's own share, Redis being out of reach.", nil, prometheus.Labels{"budget": name}),
		turnsDesc: prometheus.NewDesc("riskchart_shared_budget_turns_total",
			"Turns asked of the budget, by where they came from (shared, local) and result (granted, refused).",
			[]string{"from", "result"}, prometheus.Labels{"budget": name}),
		lateDesc: prometheus.NewDesc("riskchart_shared_budget_late_turns_total",
			"Turns granted and given back because the sender reached them too late to send them within the margin.",
			nil, prometheus.Labels{"budget": name}),
	}
	b.local = localLog{limit: b.share, window: window}
	return b, nil
}

// Reservation is a turn asked for.
type Reservation struct {
	OK    bool          // the turn is taken
	Delay time.Duration // until the turn may be sent; when refused, until one could be had
	Local bool          // answered from this replica's share, Redis being out of reach

	b     *Budget
	n     int
	token string // names the turns in the shared log; "" for a local turn
	// When the turn may be sent, by this replica's clock: a shared turn's
	// time is known within the reserve's round trip, at its earliest and
	// latest; a local turn's exactly. redisAt is a shared turn's, by Redis's.
	at, latest time.Time
	redisAt    int64
}

// Cancel gives back a turn that will not be used. A shared turn's return
// costs a Redis call, bounded as any other, even when ctx is done.
func (r Reservation) Cancel(ctx context.Context) {
	if !r.OK || r.b == nil {
		return
	}
	b := r.b
	if r.token == "" {
		b.mu.Lock()
		b.local.cancel(r.at, r.n)
		b.mu.Unlock()
		return
	}
	members := make([]any, r.n)
	for i := range members {
		members[i] = fmt.Sprintf("%s:%d", r.token, i+1)
	}
	ctx, cancel := b.c.bound(context.WithoutCancel(ctx))
	defer cancel()
	_ = b.c.note(b.c.rdb.ZRem(ctx, b.keys[0], members...).Err(), "cancel turn")
}

// SpentError is a turn refused because it would come too late.
type SpentError struct {
	Budget     string
	RetryAfter time.Duration
}

func (e *SpentError) Error() string {
	return fmt.Sprintf("shared budget %s spent: retry in %s", e.Budget, e.RetryAfter.Round(time.Millisecond))
}

// longestWait bounds a wait so that microseconds cannot overflow.
const longestWait = time.Hour

// Reserve takes n turns at the first time that keeps the budget, when that
// time is at most longest from now and at most Ahead; either way it says how
// far off that time is. n is 1 to a replica's share. Redis failing is not
// an error: the turn then comes from the local share. It fails only on bad
// n or a done ctx.
func (b *Budget) Reserve(ctx context.Context, n int, longest time.Duration) (Reservation, error) {
	if n < 1 || n > b.share {
		return Reservation{}, fmt.Errorf("budget %s: n = %d: must be 1 to %d, a replica's share", b.name, n, b.share)
	}
	longest = min(max(longest, 0), longestWait)
	for {
		if err := ctx.Err(); err != nil {
			return Reservation{}, err
		}
		b.mu.Lock()
		if j := b.joining; j != nil {
			// A join adds the local turns to the shared log: none may be
			// taken meanwhile. It lasts one bounded Redis call.
			b.mu.Unlock()
			select {
			case <-j:
				continue
			case <-ctx.Done():
				return Reservation{}, ctx.Err()
			}
		}
		if b.state == Degraded {
			r := b.reserveLocal(time.Now(), n, longest)
			b.mu.Unlock()
			return r, nil
		}
		b.mu.Unlock()
		r, err := b.reserveShared(ctx, n, longest)
		if err == nil {
			return r, nil
		}
		if err := ended(ctx); err != nil {
			return Reservation{}, err
		}
		b.degrade(err)
	}
}

// Take takes n turns now or not at all; when not, retryAfter says when they
// could be had.
func (b *Budget) Take(ctx context.Context, n int) (granted bool, retryAfter time.Duration, err error) {
	r, err := b.Reserve(ctx, n, 0)
	if err != nil || r.OK {
		return r.OK, 0, err
	}
	return false, r.Delay, nil
}

// Wait takes one turn and waits for it within ctx's deadline, as the venue
// client's own quota does. When the turn would come after the deadline it
// fails at once with *SpentError and takes nothing; when ctx ends first it
// gives the turn back. A turn reached too late, or inside a pause learnt
// while it waited, is given back and another taken (venue.WaitTurn); when a
// late turn comes too often, Wait fails with *SpentError.
func (b *Budget) Wait(ctx context.Context) error {
	late, err := venue.WaitTurn(ctx, b.limit, b.take)
	b.late.Add(uint64(late))
	if rl := (*venue.RateLimitedError)(nil); errors.As(err, &rl) {
		return &SpentError{Budget: b.name, RetryAfter: rl.RetryAfter}
	}
	return err
}

// take takes one turn for Wait, within ctx's deadline. A turn in time but
// further ahead than turns are granted (Ahead, or a present replica's
// presence) is asked for again once it is within reach.
func (b *Budget) take(ctx context.Context) (venue.Turn, error) {
	for {
		longest := longestWait
		if dl, ok := ctx.Deadline(); ok {
			longest = time.Until(dl)
		}
		r, err := b.Reserve(ctx, 1, longest)
		if err != nil {
			return venue.Turn{}, err
		}
		if r.OK {
			return venue.Turn{At: r.at, NotBefore: r.latest, GiveBack: func() { r.Cancel(ctx) },
				Held: func(ctx context.Context) bool { return b.held(ctx, r) }}, nil
		}
		if r.Delay > longest {
			return venue.Turn{}, &SpentError{Budget: b.name, RetryAfter: r.Delay}
		}
		if err := venue.WaitUntil(ctx, time.Now().Add(b.askAgainIn(r.Delay))); err != nil {
			return venue.Turn{}, err
		}
	}
}

// askAgainIn is when to ask again for a turn refused although it is delay
// away, within the caller's wait: once it is within Ahead; or, when it was
// within Ahead already and a present replica's presence ended before it,
// once that presence has been renewed.
func (b *Budget) askAgainIn(delay time.Duration) time.Duration {
	if d := delay - b.ahead; d > 0 {
		return d
	}
	return max(min(delay, b.c.opt.MemberTTL/4), time.Millisecond)
}

// held reports, once r's time has come, whether a pause learnt since r was
// granted covers it: one this replica learnt, or, for a shared turn that
// waited, one any replica put in Redis meanwhile. A pause that cannot be
// read holds the turn: Redis failing degrades the budget, and Wait takes
// another turn, from the local share.
func (b *Budget) held(ctx context.Context, r Reservation) bool {
	b.mu.Lock()
	paused := b.paused
	b.mu.Unlock()
	if paused.After(r.latest) {
		return true
	}
	if r.token == "" || r.Delay <= 0 {
		// A local turn knows every pause it can; a turn for now was
		// granted after the shared pause was read.
		return false
	}
	ends, err := b.runPause(ctx, 0)
	if err != nil {
		if ended(ctx) == nil {
			b.degrade(err)
		}
		return true
	}
	return ends > r.redisAt
}

// Pause sends nothing for d, cluster-wide: the venue said its window is spent.
func (b *Budget) Pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	d = min(d, longestWait)
	b.mu.Lock()
	b.paused = later(b.paused, time.Now().Add(d))
	state := b.state
	b.mu.Unlock()
	if state == Degraded {
		return
	}
	if err := b.sharePause(ctx, d); err != nil && ended(ctx) == nil {
		b.degrade(err)
	}
}

// sharePause puts a pause of d from now into Redis, for every replica.
func (b *Budget) sharePause(ctx context.Context, d time.Duration) error {
	_, err := b.runPause(ctx, d)
	return err
}

// runPause runs the pause script: a pause of d from now when d > 0. It
// returns when the shared pause ends, in microseconds of Redis's clock.
func (b *Budget) runPause(ctx context.Context, d time.Duration) (int64, error) {
	cctx, cancel := b.c.bound(ctx)
	ends, err := b.c.scripts.pause.Run(cctx, b.c.rdb, b.keys[2:3], max(d, 0).Microseconds()).Int64()
	cancel()
	if err = b.c.note(err, "pause"); err != nil {
		return 0, fmt.Errorf("budget %s: %w", b.name, err)
	}
	return ends, nil
}

// State says where turns come from now.
func (b *Budget) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// Refused says whether the budget is degraded because Redis refused this
// replica's login or commands (IsRefusal), not because it is out of reach.
func (b *Budget) Refused() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state == Degraded && b.refused
}

// Share is a replica's share: what it spends alone while degraded.
func (b *Budget) Share() int { return b.share }

// Limit is the venue limit the budget keeps.
func (b *Budget) Limit() venueapi.Limit { return b.limit }

// Ahead is how far ahead a turn may be granted: the limit's margin, a tenth
// of its interval. A log Redis lost holds turns for a window and this.
func (b *Budget) Ahead() time.Duration { return b.ahead }

// Available is about how many turns could be had at once at now, for
// metrics: from the local share while degraded; else what the shared log had
// left after this replica's last turn, or, a window after it, the limit less
// the share of each configured replica the last heartbeat did not find
// present, as reserve.lua grants (docs/deploy.md#metrics). It asks Redis
// nothing.
func (b *Budget) Available(now time.Time) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Before(b.paused) {
		return 0
	}
	if b.state == Degraded {
		return b.local.free(now)
	}
	if b.leftAt.IsZero() || now.Sub(b.leftAt) >= b.window {
		here := max(b.present, 1) // this replica, present or about to be
		return b.limit.Requests - b.share*max(0, b.replicas-here)
	}
	return b.left
}

// reserveLocal takes turns from this replica's share; b.mu is held.
func (b *Budget) reserveLocal(now time.Time, n int, longest time.Duration) Reservation {
	// Shared turns granted while this replica was present, its own included,
	// end by its presence's end: a window later, none of them counts.
	notBefore := later(later(b.presence, b.lastShared).Add(b.window), b.paused)
	at, ok := b.local.reserve(now, notBefore, n, min(longest, b.ahead))
	r := Reservation{OK: ok, Delay: at.Sub(now), Local: true}
	if ok {
		r.b, r.n, r.at, r.latest = b, n, at, at
	}
	b.count(Degraded, ok)
	return r
}

// reserveShared takes turns from the shared log.
func (b *Budget) reserveShared(ctx context.Context, n int, longest time.Duration) (Reservation, error) {
	token := b.c.token()
	sent := time.Now()
	b.mu.Lock()
	// A pause of this replica's own not yet in Redis (Pause is sharing it):
	// counted from sent, it ends no earlier in Redis than here.
	held := max(b.paused.Sub(sent), 0)
	b.mu.Unlock()
	cctx, cancel := b.c.bound(ctx)
	v, err := b.c.scripts.reserve.Run(cctx, b.c.rdb, b.keys,
		b.limit.Requests, b.window.Microseconds(), b.share, b.replicas, n, longest.Microseconds(), token, b.c.id,
		b.ahead.Microseconds(), held.Microseconds()).Int64Slice()
	cancel()
	got := time.Now()
	if err = b.c.note(err, "reserve"); err != nil {
		return Reservation{}, fmt.Errorf("budget %s: %w", b.name, err)
	}
	if len(v) != 6 {
		return Reservation{}, fmt.Errorf("budget %s: the reserve script answered %d values, not 6", b.name, len(v))
	}
	b.c.learnOffset(v[2], got)
	if v[5] == 1 {
		b.sawLost()
	}
	if int(v[3]) > b.replicas && !b.crowded.Swap(true) {
		b.log.Warn("more replicas present than RISKCHART_REPLICAS: together their shares exceed the limit when Redis fails",
			"present", v[3], "replicas", b.replicas)
	}
	r := Reservation{OK: v[0] == 1, Delay: time.Duration(v[1]) * time.Microsecond}
	b.mu.Lock()
	b.left, b.leftAt = int(v[4]), got
	if r.OK {
		// Redis ran the script between sent and got, so the turn's time is
		// known within them: lateness is judged from the earliest, the
		// turn is sent no earlier than the latest, and the latest is what
		// a local turn waits a window past (reserveLocal).
		r.b, r.n, r.token = b, n, token
		r.at, r.latest, r.redisAt = sent.Add(r.Delay), got.Add(r.Delay), v[2]+v[1]
		b.lastShared = later(b.lastShared, r.latest)
	}
	b.mu.Unlock()
	b.count(Shared, r.OK)
	return r, nil
}

// degrade turns to the local share after err.
func (b *Budget) degrade(err error) {
	refused := IsRefusal(err)
	b.mu.Lock()
	was, wasRefused := b.state, b.refused
	b.state, b.refused = Degraded, refused
	b.mu.Unlock()
	if was != Degraded || wasRefused != refused {
		b.log.Warn("shared budget degraded: Redis "+Reason(refused)+", spending this replica's share alone",
			"share", b.share, "per", b.limit.Per, "err", err)
	}
}

// Run keeps this replica present while Redis answers, and tries Redis again
// at most once per ProbeEvery while it does not, until ctx ends. Run it
// once per Budget.
func (b *Budget) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		t.Reset(b.step(ctx))
	}
}

// Leave ends this replica's presence in Redis now, as it stops, rather than
// once it runs out (MemberTTL after the last heartbeat): a replica started
// in its place at once would otherwise count it present beside itself. The
// others then count it absent, as they would once its presence ended; its
// own turns still wait for the presence it asked for (reserveLocal). Call
// it once Run has returned and no turn is wanted any more.
func (b *Budget) Leave(ctx context.Context) error {
	if b.State() == Degraded {
		return nil // not renewed while Redis is out of reach: it runs out alone
	}
	cctx, cancel := b.c.bound(ctx)
	defer cancel()
	if err := b.c.note(b.c.rdb.ZRem(cctx, b.keys[1], b.c.id).Err(), "leave"); err != nil {
		return fmt.Errorf("budget %s: %w", b.name, err)
	}
	return nil
}

// step heartbeats or probes once and says when to do it again.
func (b *Budget) step(ctx context.Context) time.Duration {
	beat, probe := b.c.opt.MemberTTL/4, b.c.opt.ProbeEvery
	if b.State() == Degraded {
		// A cheap call first: joining stops local turns for its duration.
		err := b.c.redisTime(ctx)
		if err == nil {
			err = b.join(ctx)
		}
		if err != nil {
			if ended(ctx) == nil {
				b.degrade(err) // why, as Redis answers now: out of reach, or refusing
			}
			return probe
		}
		return beat
	}
	err := b.heartbeat(ctx)
	if err != nil && ended(ctx) == nil {
		b.degrade(err)
		return probe
	}
	return beat
}

// heartbeat renews this replica's presence.
func (b *Budget) heartbeat(ctx context.Context) error {
	if b.c.offset.Load() == noOffset {
		if err := b.c.redisTime(ctx); err != nil {
			return err
		}
	}
	b.mu.Lock()
	ends := b.presenceUntil(time.Now())
	b.mu.Unlock()
	return b.runJoin(ctx, ends, nil)
}

// join goes back to the shared log: the turns taken alone go into it and the
// replica becomes present in one step, with no local turn taken meanwhile.
func (b *Budget) join(ctx context.Context) error {
	b.mu.Lock()
	if b.state != Degraded || b.joining != nil {
		b.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	b.joining = done
	now := time.Now()
	ages := b.local.ages(now)
	ends := b.presenceUntil(now)
	b.mu.Unlock()

	err := b.runJoin(ctx, ends, ages)
	var shared time.Time // the latest pause this join put in Redis
	for err == nil {
		b.mu.Lock()
		paused := b.paused
		if !paused.After(shared) || !paused.After(time.Now()) {
			// Every pause learnt alone, or during the join, is in Redis.
			// Turning shared under the lock Pause takes leaves any later
			// one to Pause, which shares it once the budget is shared.
			b.state = Shared
			b.local.reset()
			b.joining = nil
			close(done)
			b.mu.Unlock()
			b.log.Info("shared budget rejoined", "turns", len(ages))
			return nil
		}
		b.mu.Unlock()
		// It holds every replica once this one is back.
		err = b.sharePause(ctx, time.Until(paused))
		shared = paused
	}

	b.mu.Lock()
	b.joining = nil
	close(done)
	b.mu.Unlock()
	return err
}

// presenceUntil is the end of a presence asked for at now, in microseconds
// of Redis's clock, and records it; b.mu is held. The offset is a lower
// bound, so the presence ends no later than now plus MemberTTL by our clock,
// less a millisecond for the clocks' drift since it was measured.
func (b *Budget) presenceUntil(now time.Time) int64 {
	ttl := b.c.opt.MemberTTL
	b.presence = later(b.presence, now.Add(ttl))
	return b.c.micros(now) + b.c.offset.Load() + ttl.Microseconds() - 1000
}

// runJoin runs the join script: the turns aged ages, and a presence until
// ends (0: none).
func (b *Budget) runJoin(ctx context.Context, ends int64, ages []time.Duration) error {
	args := make([]any, 0, 5+len(ages))
	args = append(args, b.c.id, ends, b.window.Microseconds(), b.c.token(), b.ahead.Microseconds())
	for _, a := range ages {
		args = append(args, a.Microseconds())
	}
	cctx, cancel := b.c.bound(ctx)
	v, err := b.c.scripts.join.Run(cctx, b.c.rdb, []string{b.keys[0], b.keys[1], b.keys[3], b.keys[2]}, args...).Int64Slice()
	cancel()
	if err = b.c.note(err, "join"); err != nil {
		return fmt.Errorf("budget %s: %w", b.name, err)
	}
	if len(v) != 3 {
		return fmt.Errorf("budget %s: the join script answered %d values, not 3", b.name, len(v))
	}
	b.c.learnOffset(v[0], time.Now())
	if ends > 0 {
		b.mu.Lock()
		b.present = int(v[2])
		b.mu.Unlock()
	}
	if v[1] == 1 {
		b.sawLost()
	}
	return nil
}

// sawLost logs that this replica found the shared log new or lost, and so
// held for a window and a margin (lua/log.lua): once per event, as only
// the call that recreated the log sees it.
func (b *Budget) sawLost() {
	b.log.Warn("shared budget: Redis held no record of the turns granted (a new Redis, or one that lost its keys); "+
		"no turn is granted until any granted before can no longer count",
		"for", b.window+b.ahead)
}

func (b *Budget) count(from State, granted bool) {
	i := 0
	if !granted {
		i = 1
	}
	b.turns[from][i].Add(1)
}

// BudgetStats counts a budget's turns.
type BudgetStats struct {
	State                        State
	SharedGranted, SharedRefused uint64
	LocalGranted, LocalRefused   uint64
	Late                         uint64 // granted, then given back: the sender came too late for them
}

// Stats is the budget's state and counts so far.
func (b *Budget) Stats() BudgetStats {
	return BudgetStats{
		State:         b.State(),
		SharedGranted: b.turns[Shared][0].Load(), SharedRefused: b.turns[Shared][1].Load(),
		LocalGranted: b.turns[Degraded][0].Load(), LocalRefused: b.turns[Degraded][1].Load(),
		Late: b.late.Load(),
	}
}

// Describe is for prometheus.Collector: the budget reports
// riskchart_shared_budget_degraded, riskchart_shared_budget_turns_total and
// riskchart_shared_budget_late_turns_total, labelled with its name.
func (b *Budget) Describe(ch chan<- *prometheus.Desc) {
	ch <- b.degradedDesc
	ch <- b.turnsDesc
	ch <- b.lateDesc
}

// Collect is for prometheus.Collector.
func (b *Budget) Collect(ch chan<- prometheus.Metric) {
	s := b.Stats()
	degraded := 0.0
	if s.State == Degraded {
		degraded = 1
	}
	ch <- prometheus.MustNewConstMetric(b.degradedDesc, prometheus.GaugeValue, degraded)
	for _, m := range []struct {
		from, result string
		v            uint64
	}{{"shared", "granted", s.SharedGranted}, {"shared", "refused", s.SharedRefused},
		{"local", "granted", s.LocalGranted}, {"local", "refused", s.LocalRefused}} {
		ch <- prometheus.MustNewConstMetric(b.turnsDesc, prometheus.CounterValue, float64(m.v), m.from, m.result)
	}
	ch <- prometheus.MustNewConstMetric(b.lateDesc, prometheus.CounterValue, float64(s.Late))
}

// ended is the caller's ctx's error when it, not Redis, ended a call: its
// deadline bounds the call's reads and writes too, and they can fail a
// moment before ctx reports it.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}
