package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// A log Redis lost forgets the turns granted in the current window: granted
// against it again, the cluster would send up to twice the limit in one of
// the venue's windows. Replicas may not even notice the loss: go-redis
// reconnects, and runs a script Redis forgot by its body.
func TestALogRedisLostHoldsEveryReplicaUntilItsTurnsCanNoLongerCount(t *testing.T) {
	limit := venueapi.Limit{Requests: 10, Per: 500 * time.Millisecond}
	for _, tt := range []struct {
		name string
		lose func(*cluster.Budget, context.Context) error
	}{
		{"Redis emptied, as by a restart without persistence or FLUSHALL", (*cluster.Budget).Flush},
		{"the log's marker alone lost", (*cluster.Budget).Unmark},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t)
			bs := []*cluster.Budget{replica(t, srv.URL(), fast(t), limit, 2), replica(t, srv.URL(), fast(t), limit, 2)}
			waitPresent(t, bs[0], 2)
			g, stop := hammering(t, bs, 4, 0)
			servertest.WaitFor(t, 2*time.Second, "the limit spent", func() bool {
				g.mu.Lock()
				defer g.mu.Unlock()
				return len(g.all) >= limit.Requests
			})
			if err := tt.lose(bs[0], context.Background()); err != nil {
				t.Fatal(err)
			}
			lost := time.Now()
			time.Sleep(3 * venue.TurnWindow(limit)) // the hold, a window and a margin, and turns again
			stop()

			if n, at := most(g.all, limit.Per); n > limit.Requests {
				t.Errorf("%d turns in the %s from %s, %s before the log was lost: limit %d",
					n, limit.Per, at.Format(time.StampMilli), lost.Sub(at).Round(time.Millisecond), limit.Requests)
			}
			after := 0
			for _, at := range g.all {
				if at.After(lost) {
					after++
				}
			}
			if after == 0 {
				t.Error("no turn was granted after the hold: it never ended")
			}
		})
	}
}

// A replica still running the release before the marker trims the whole
// log up to the window's start, as its reserve script did. The marker, a key
// apart, stays, and the replicas that run this release hold nothing for it:
// a rolling deployment does not stop the venue calls.
func TestATrimByAReplicaNotYetRolledOverHoldsNothing(t *testing.T) {
	srv := redistest.Start(t)
	b := replica(t, srv.URL(), fast(t), venueapi.Limit{Requests: 10, Per: time.Second}, 1)
	ctx := context.Background()
	for i := range 5 {
		if err := b.OldTrim(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, retry, err := b.Take(ctx, 1); err != nil || !ok {
			t.Fatalf("take %d after an old replica's trim = %v, retry in %s, %v; want granted at once", i, ok, retry, err)
		}
	}
}

// A new Redis cannot be told from one that lost its keys (a deployment
// restarted whole, its Redis without persistence, may follow turns its
// replicas sent a moment before): a new log holds its first turns for a
// window and a margin too. A Wait whose deadline allows it, as the gateway's
// 4 s do, waits for its turn rather than failing.
func TestANewLogHoldsItsFirstTurnsAndAWaitWithinItsDeadlineGetsOne(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 10, Per: time.Second} // the hold: 1.1 s and 100 ms
	start := time.Now()
	b := fresh(t, srv.URL(), fast(t), limit, 1)
	hold := venue.TurnWindow(limit) + b.Ahead()
	ctx := context.Background()
	ok, retry, err := b.Take(ctx, 1)
	if err != nil || ok || retry > hold || retry < hold/2 {
		t.Fatalf("the first Take on a new log = %v, retry in %s, %v; want refused for about %s", ok, retry, err, hold)
	}
	wait, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	if err := b.Wait(wait); err != nil {
		t.Fatalf("a Wait with 4 s to go: %v", err)
	}
	if since := time.Since(start); since < hold {
		t.Errorf("a turn %s after the log was new: the hold is %s", since, hold)
	}
	if s := b.Stats(); s.State != cluster.Shared || s.LocalGranted != 0 {
		t.Errorf("%+v: the hold is the shared log's, no reason to spend alone", s)
	}
}

// With no replica present (none has sent a heartbeat yet, or each lost its
// presence), no turn is granted further ahead than the margin either: the
// turns a lost log hid end by then, and its hold is that long.
func TestNoTurnIsGrantedFurtherAheadThanTheMargin(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 2, Per: 2 * time.Second}                  // margin 200 ms
	b, err := cluster.NewBudget(open(t, srv.URL(), fast(t)), "ahead", limit, 1) // not run: never present
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := b.Kept(ctx); err != nil {
		t.Fatal(err)
	}
	// The log is full until 1.5 s from now.
	window := venue.TurnWindow(limit)
	if err := b.Spent(ctx, window-1500*time.Millisecond, window-1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Present(ctx); n != 0 {
		t.Fatalf("%d replicas present, want none", n)
	}
	r, err := b.Reserve(ctx, 1, 5*time.Second)
	if err != nil || r.OK || r.Delay <= b.Ahead() {
		t.Fatalf("a turn 1.5 s ahead, the margin %s: granted %v, delay %s, %v; want it refused, saying when one could be had", b.Ahead(), r.OK, r.Delay, err)
	}
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := b.Wait(wait); err != nil {
		t.Fatalf("a Wait with 5 s to go, for the turn 1.5 s ahead: %v", err)
	}
}
