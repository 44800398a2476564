package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestBudgetNeverGrantsMoreThanTheLimitInAnyWindow(t *testing.T) {
	limit := venueapi.Limit{Requests: 40, Per: 500 * time.Millisecond}
	tests := []struct {
		name              string
		replicas, workers int
		longest           time.Duration
	}{
		{"three replicas taking turns now or never", 3, 8, 0},
		{"three replicas reserving turns ahead", 3, 8, 300 * time.Millisecond},
		{"one replica", 1, 16, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t)
			var bs []*cluster.Budget
			for range tt.replicas {
				bs = append(bs, replica(t, srv.URL(), fast(t), limit, tt.replicas))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			var g grants
			hammer(ctx, bs, tt.workers, tt.longest, &g)
			// The log keeps a tenth of a window as margin: counted over the
			// limit's own window the slack absorbs the answers' varying delay.
			if n, at := most(g.all, limit.Per); n > limit.Requests {
				t.Errorf("%d turns in the window from %s: limit %d", n, at.Format(time.StampMilli), limit.Requests)
			}
			// The budget was spent, not merely unused: 2 s hold nearly four windows.
			if len(g.all) < 3*limit.Requests {
				t.Errorf("%d turns in 2 s: the replicas should have spent the budget about 3.6 times", len(g.all))
			}
			for i, b := range bs {
				if s := b.Stats(); s.LocalGranted != 0 || s.State != cluster.Shared {
					t.Errorf("replica %d: %+v: Redis was up, every turn should be shared", i, s)
				}
			}
		})
	}
}

func TestTheReserveScriptIsAtomicUnderConcurrency(t *testing.T) {
	srv := redistest.Start(t)
	// A window far longer than the test: exactly the limit can be granted.
	limit := venueapi.Limit{Requests: 60, Per: time.Minute}
	for _, n := range []int{1, 3} {
		var bs []*cluster.Budget
		for range 4 {
			b, err := cluster.NewBudget(open(t, srv.URL(), fast(t)), fmt.Sprint("atomic-", n), limit, 1)
			if err != nil {
				t.Fatal(err)
			}
			bs = append(bs, b)
		}
		if err := bs[0].Kept(context.Background()); err != nil {
			t.Fatal(err)
		}
		var granted atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, b := range bs {
			for range 25 {
				wg.Go(func() {
					<-start
					for range 4 {
						ok, _, err := b.Take(context.Background(), n)
						if err != nil {
							t.Error(err)
							return
						}
						if ok {
							granted.Add(int64(n))
						}
					}
				})
			}
		}
		close(start)
		wg.Wait()
		if got := granted.Load(); got != int64(limit.Requests) {
			t.Errorf("n=%d: 400 concurrent asks on 4 clients granted %d turns, want exactly the limit %d", n, got, limit.Requests)
		}
	}
}

func TestAReplicaThatLosesRedisSpendsOnlyItsShareAndRejoins(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 30, Per: 600 * time.Millisecond}
	const n = 3
	share := limit.Requests / n
	var bs []*cluster.Budget
	for range n {
		bs = append(bs, replica(t, srv.URL(), fast(t), limit, n))
	}
	g, stop := hammering(t, bs, 4, 100*time.Millisecond)

	time.Sleep(time.Second)
	srv.Kill()
	servertest.WaitFor(t, 2*time.Second, "every replica degraded", func() bool {
		for _, b := range bs {
			if b.State() != cluster.Degraded {
				return false
			}
		}
		return true
	})
	time.Sleep(2500 * time.Millisecond)
	srv.Restart()
	servertest.WaitFor(t, 5*time.Second, "every replica back on the shared log", func() bool {
		for _, b := range bs {
			if b.State() != cluster.Shared {
				return false
			}
		}
		return true
	})
	before := make([]uint64, n)
	for i, b := range bs {
		before[i] = b.Stats().SharedGranted
	}
	time.Sleep(time.Second)
	stop()

	if m, at := most(g.all, limit.Per); m > limit.Requests {
		t.Errorf("the cluster took %d turns in the window from %s: limit %d", m, at.Format(time.StampMilli), limit.Requests)
	}
	for i, b := range bs {
		local := g.local[i]
		if len(local) == 0 {
			t.Errorf("replica %d took no turn alone while Redis was down", i)
		}
		if m, at := most(local, limit.Per); m > share {
			t.Errorf("replica %d took %d turns alone in the window from %s: its share is %d", i, m, at.Format(time.StampMilli), share)
		}
		if s := b.Stats(); s.SharedGranted == before[i] {
			t.Errorf("replica %d took no shared turn after Redis came back: %+v", i, s)
		}
	}
}

// The case a replica counting only its own turns gets wrong: one replica
// loses Redis while the others keep it and keep spending the whole budget.
func TestAPartitionedReplicaAndTheRestStayWithinTheLimitTogether(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 30, Per: 600 * time.Millisecond}
	const n = 3
	p := newProxy(t, srv.Addr())
	bs := []*cluster.Budget{
		replica(t, srv.URL(), fast(t), limit, n),
		replica(t, srv.URL(), fast(t), limit, n),
		replica(t, p.URL(), fast(t), limit, n),
	}
	g, stop := hammering(t, bs, 4, 100*time.Millisecond)

	time.Sleep(time.Second)
	p.setCut(true)
	servertest.WaitFor(t, 2*time.Second, "the partitioned replica degraded", func() bool { return bs[2].State() == cluster.Degraded })
	time.Sleep(2500 * time.Millisecond)
	if bs[0].State() != cluster.Shared || bs[1].State() != cluster.Shared {
		t.Fatalf("replicas 0 and 1 left the shared log: %v, %v", bs[0].State(), bs[1].State())
	}
	p.setCut(false)
	servertest.WaitFor(t, 5*time.Second, "the partitioned replica back", func() bool { return bs[2].State() == cluster.Shared })
	time.Sleep(time.Second)
	stop()

	if m, at := most(g.all, limit.Per); m > limit.Requests {
		t.Errorf("the cluster took %d turns in the window from %s: limit %d", m, at.Format(time.StampMilli), limit.Requests)
	}
	if len(g.local[2]) == 0 {
		t.Error("the partitioned replica took no turn alone")
	}
	if m, _ := most(g.local[2], limit.Per); m > limit.Requests/n {
		t.Errorf("the partitioned replica took %d turns alone in a window: its share is %d", m, limit.Requests/n)
	}
}

func TestPauseStopsEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 10, Per: time.Second}
	a := replica(t, srv.URL(), fast(t), limit, 2)
	b := replica(t, srv.URL(), fast(t), limit, 2)
	ctx := context.Background()
	a.Pause(ctx, 400*time.Millisecond)
	ok, retry, err := b.Take(ctx, 1)
	if err != nil || ok {
		t.Fatalf("another replica's Take during a pause = %v, %v", ok, err)
	}
	if retry <= 0 || retry > 400*time.Millisecond {
		t.Errorf("retryAfter = %s, want the rest of the 400ms pause", retry)
	}
	time.Sleep(retry)
	if ok, _, err := b.Take(ctx, 1); err != nil || !ok {
		t.Fatalf("Take after the pause = %v, %v", ok, err)
	}
}

func TestWaitFailsAtOnceWhenTheTurnComesAfterTheDeadline(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 2, Per: time.Second}
	b := replica(t, srv.URL(), fast(t), limit, 1)
	ctx := context.Background()
	for range 2 {
		if err := b.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var spent *cluster.SpentError
	if err := b.Wait(short); !errors.As(err, &spent) || spent.RetryAfter < 500*time.Millisecond {
		t.Fatalf("Wait with the next turn a window away = %v, want *SpentError with RetryAfter near 1.1s", err)
	}
	if short.Err() != nil {
		t.Error("Wait waited for a turn it could not have")
	}
}

// A present replica's presence ends within MemberTTL unless renewed, and no
// shared turn is granted for later than that: a replica that loses Redis
// then starts spending its share alone, and a turn still to come in the
// shared log would add to it.
func TestNoSharedTurnIsGrantedPastAPresentReplicasPresence(t *testing.T) {
	srv := redistest.Start(t)
	opt := fast(t) // presence: 400 ms
	// A margin (1 s) longer than the presence: turns may be granted that far
	// ahead, but for the presence.
	limit := venueapi.Limit{Requests: 2, Per: 10 * time.Second}
	b := replica(t, srv.URL(), opt, limit, 1)
	waitPresent(t, b, 1)
	ctx := context.Background()
	// The log is full until 700 ms from now: past the presence, within the margin.
	window := venue.TurnWindow(limit)
	if err := b.Spent(ctx, window-700*time.Millisecond, window-700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r, err := b.Reserve(ctx, 1, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Local || r.Delay < 500*time.Millisecond || r.Delay > b.Ahead() {
		t.Fatalf("a turn %s ahead, past the presence of %s: %+v; want it refused, saying when one could be had", r.Delay, opt.MemberTTL, r)
	}
}

func TestNewBudgetChecksItsArguments(t *testing.T) {
	c := open(t, "redis://127.0.0.1:1/0", fast(t))
	tests := []struct {
		name     string
		budget   string
		limit    venueapi.Limit
		replicas int
	}{
		{"no name", "", venueapi.PrivateLimit(), 2},
		{"a brace in the name", "a{b}", venueapi.PrivateLimit(), 2},
		{"no requests", "p", venueapi.Limit{Per: time.Second}, 2},
		{"no interval", "p", venueapi.Limit{Requests: 10}, 2},
		{"no replicas", "p", venueapi.PrivateLimit(), 0},
		{"more replicas than requests", "p", venueapi.Limit{Requests: 2, Per: time.Second}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cluster.NewBudget(c, tt.budget, tt.limit, tt.replicas); err == nil {
				t.Error("NewBudget accepted it")
			}
		})
	}
	b, err := cluster.NewBudget(c, "private", venueapi.PrivateLimit(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reserve(context.Background(), b.Share()+1, 0); err == nil {
		t.Error("Reserve accepted more turns than a replica's share")
	}
}

// A turn is late when its sender reaches it more than half the margin (a
// twentieth of the window) after its time: sent then, it could arrive in
// the venue's next window.
func TestATurnReachedLateIsTooLateToSend(t *testing.T) {
	limit := venueapi.Limit{Requests: 4, Per: time.Second} // margin 100 ms: late after 50 ms
	srv := redistest.Start(t)
	tests := []struct {
		name   string
		budget func(t *testing.T) *cluster.Budget
	}{
		{"shared", func(t *testing.T) *cluster.Budget { return replica(t, srv.URL(), fast(t), limit, 1) }},
		{"local, Redis out of reach", func(t *testing.T) *cluster.Budget {
			b, err := cluster.NewBudget(open(t, "redis://127.0.0.1:1/0", fast(t)), "late-local", limit, 1)
			if err != nil {
				t.Fatal(err)
			}
			// The local share's first turn waits a window and a presence:
			// come back when it is within reach.
			r, err := b.Reserve(context.Background(), 1, 0)
			if err != nil || r.OK {
				t.Fatalf("the first local turn, at once: %+v, %v", r, err)
			}
			time.Sleep(r.Delay - b.Ahead()/2)
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.budget(t)
			before := time.Now()
			r, err := b.Reserve(context.Background(), 1, 5*time.Second)
			after := time.Now()
			if err != nil || !r.OK {
				t.Fatalf("Reserve = %+v, %v", r, err)
			}
			for _, c := range []struct {
				now  time.Time
				late bool
			}{
				{before.Add(r.Delay), false},                       // on time, or early
				{before.Add(r.Delay + 45*time.Millisecond), false}, // within half the margin
				{after.Add(r.Delay + 55*time.Millisecond), true},   // beyond it
				{after.Add(r.Delay + limit.Per), true},             // a window late
			} {
				if got := b.Late(r, c.now); got != c.late {
					t.Errorf("Late at %s after the turn's earliest time = %v, want %v", c.now.Sub(before.Add(r.Delay)), got, c.late)
				}
			}
			if b.Late(cluster.Reservation{}, after.Add(time.Hour)) {
				t.Error("a refused reservation is late: there is no turn to be late for")
			}
		})
	}
}

// A pause the venue asks for while Redis is out of reach holds the replica
// alone; once it rejoins, the pause must still hold it, and the others.
func TestAPauseLearntWhileDegradedOutlastsTheRejoin(t *testing.T) {
	a, b, p := partitioned(t)
	ctx := context.Background()
	const pause = 20 * time.Second // longer than the waits below: what is left of it is asked for
	a.Pause(ctx, pause)
	paused := time.Now()
	p.setCut(false)
	servertest.WaitFor(t, 2*time.Second, "the partitioned replica back", func() bool { return a.State() == cluster.Shared })
	wantPaused(t, pause, paused, map[string]*cluster.Budget{"the replica that learnt it": a, "another replica": b})
}

// docs/decisions.md#client-quota: nothing is sent on a quota until the
// venue's reset, not even a turn granted before the venue said so, whichever
// replica heard it; a caller whose deadline comes first is refused as for a
// spent budget.
func TestATurnGrantedBeforeAPauseIsNotSentUntilThePauseEnds(t *testing.T) {
	limit := venueapi.Limit{Requests: 1, Per: 5 * time.Second} // margin 500 ms: a turn is granted that far ahead
	const pause = time.Second
	tests := []struct {
		name     string
		learnt   int           // the replica that learns the pause: 0 is the one waiting
		deadline time.Duration // the waiting replica's
		wantErr  bool
	}{
		{"learnt by the replica waiting", 0, 5 * time.Second, false},
		{"learnt by another replica", 1, 5 * time.Second, false},
		{"a deadline before the pause ends", 1, 800 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t)
			opt := fast(t)
			opt.MemberTTL = 5 * time.Second // not this test's subject: a late heartbeat must not refuse the turn
			bs := []*cluster.Budget{replica(t, srv.URL(), opt, limit, 1), replica(t, srv.URL(), opt, limit, 1)}
			ctx := context.Background()
			// The log is full until 400 ms from now: the next turn is
			// granted at once, and waited for.
			if err := bs[0].Spent(ctx, venue.TurnWindow(limit)-400*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				wait, cancel := context.WithTimeout(ctx, tt.deadline)
				defer cancel()
				done <- bs[0].Wait(wait)
			}()
			servertest.WaitFor(t, time.Second, "the turn granted", func() bool { return bs[0].Stats().SharedGranted == 1 })
			paused := time.Now()
			bs[tt.learnt].Pause(ctx, pause)
			err := <-done
			if tt.wantErr {
				var spent *cluster.SpentError
				if !errors.As(err, &spent) {
					t.Fatalf("Wait = %v %s after the pause of %s, want *SpentError", err, time.Since(paused), pause)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if since := time.Since(paused); since < pause {
				t.Fatalf("the turn came %s after a pause of %s", since, pause)
			}
		})
	}
}

// A pause the venue asks for while a replica rejoins the shared log, its
// state still Degraded, must hold every replica once it is back.
func TestAPauseLearntDuringTheRejoinHoldsEveryReplica(t *testing.T) {
	a, b, p := partitioned(t)
	ctx := context.Background()
	p.setDelay(300 * time.Millisecond) // each call of the rejoin takes that long
	p.setCut(false)
	servertest.WaitFor(t, 5*time.Second, "the partitioned replica rejoining", a.Joining)
	const pause = 20 * time.Second
	a.Pause(ctx, pause)
	paused := time.Now()
	if !a.Joining() {
		t.Fatal("the rejoin ended before the pause: this test shows nothing")
	}
	servertest.WaitFor(t, 5*time.Second, "the partitioned replica back", func() bool { return a.State() == cluster.Shared })
	p.setDelay(0)
	wantPaused(t, pause, paused, map[string]*cluster.Budget{"the replica that learnt it": a, "another replica": b})
}

// Redis's answer can come back late (a slow return leg, a collection, a
// starved CPU). The turn's time is Redis's, sometime during the call: judged
// from before it, a turn whose answer came back more than half the margin
// late is late, and given back.
func TestATurnWhoseAnswerCameBackLateIsLate(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 2, Per: time.Second} // margin 100 ms: late after 50 ms
	p := newProxy(t, srv.Addr())
	b := replica(t, p.URL(), fast(t), limit, 1)
	p.setDelay(80 * time.Millisecond)
	wait, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var spent *cluster.SpentError
	if err := b.Wait(wait); !errors.As(err, &spent) {
		t.Fatalf("Wait with every answer 80 ms late = %v, want *SpentError: each turn came too late to send", err)
	}
	if s := b.Stats(); s.Late != 3 {
		t.Errorf("%d turns given back as late, want 3", s.Late)
	}
}

// wantPaused checks that each budget refuses a turn during a pause of
// length pause learnt at paused, and says to retry once the rest has passed.
func wantPaused(t *testing.T, pause time.Duration, paused time.Time, budgets map[string]*cluster.Budget) {
	t.Helper()
	for name, r := range budgets {
		ok, retry, err := r.Take(context.Background(), 1)
		if err != nil || ok {
			t.Errorf("%s: Take %s into a %s pause = %v, %v; want refused", name, time.Since(paused).Round(time.Millisecond), pause, ok, err)
		} else if retry < pause-time.Since(paused)-100*time.Millisecond {
			t.Errorf("%s: retry after %s, want the rest of the pause", name, retry)
		}
	}
}

// partitioned is two replicas sharing a Redis, both present, then a cut off
// from it by its proxy and degraded; b still reaches it. The limit is 10 per
// 500 ms, shared by two.
func partitioned(t *testing.T) (a, b *cluster.Budget, p *proxy) {
	t.Helper()
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 10, Per: 500 * time.Millisecond}
	p = newProxy(t, srv.Addr())
	a = replica(t, p.URL(), fast(t), limit, 2)
	b = replica(t, srv.URL(), fast(t), limit, 2)
	waitPresent(t, b, 2)
	p.setCut(true)
	servertest.WaitFor(t, 2*time.Second, "the partitioned replica degraded", func() bool { return a.State() == cluster.Degraded })
	return a, b, p
}

// A configured replica that is not present may be spending its share alone
// (docs/architecture.md, "Shared state (Redis)"), so the shared log keeps it
// free: RISKCHART_REPLICAS above the replicas running costs the cluster
// their shares (README.md, docs/deploy.md).
func TestAConfiguredReplicaNotRunningCostsItsShare(t *testing.T) {
	limit := venueapi.Limit{Requests: 72, Per: 3 * time.Second}
	for _, tc := range []struct{ configured, running, want int }{
		{1, 1, 72},
		{2, 1, 36},
		{3, 2, 48},
	} {
		t.Run(fmt.Sprintf("%d of %d", tc.running, tc.configured), func(t *testing.T) {
			srv := redistest.Start(t)
			var bs []*cluster.Budget
			for range tc.running {
				bs = append(bs, replica(t, srv.URL(), fast(t), limit, tc.configured))
			}
			waitPresent(t, bs[0], int64(tc.running))
			granted := 0
			for i := range limit.Requests {
				ok, _, err := bs[i%len(bs)].Take(context.Background(), 1)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					granted++
				}
			}
			if granted != tc.want {
				t.Errorf("%d replicas running of %d configured took %d turns at once, want %d", tc.running, tc.configured, granted, tc.want)
			}
		})
	}
}

// A replica counts itself among the present from its first turn, before its
// first heartbeat has made it present: one started beside a replica already
// running, with replicas = 1, is told of the crowding by that turn. It was
// not, when the script counted only the replicas present before the call.
func TestAReplicaCountsItselfPresentFromItsFirstTurn(t *testing.T) {
	srv := redistest.Start(t)
	running := replica(t, srv.URL(), fast(t), venueapi.PublicLimit(), 1)
	waitPresent(t, running, 1)
	var log servertest.Buffer
	opt := fast(t)
	opt.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	b, err := cluster.NewBudget(open(t, srv.URL(), opt), "test", venueapi.PublicLimit(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// Not run: no heartbeat makes it present; its turn is its first call.
	if _, _, err := b.Take(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "more replicas present than RISKCHART_REPLICAS") {
		t.Errorf("a second replica's first turn beside a running one logged no crowding; log:\n%s", log.String())
	}
}
