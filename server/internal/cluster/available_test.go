package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// riskchart_venue_budget_*_available is "the venue's request budget left to
// this replica" (docs/deploy.md#metrics), and a configured replica not
// running costs the others its share (README.md, RISKCHART_REPLICAS;
// TestAConfiguredReplicaNotRunningCostsItsShare): so Available says the
// turns a replica could take at once, the shares of replicas not running
// left out, when idle as after a turn, never the whole limit.
func TestAvailableLeavesOutTheSharesOfReplicasNotRunning(t *testing.T) {
	limit := venueapi.Limit{Requests: 72, Per: 300 * time.Millisecond}
	window := venue.TurnWindow(limit)
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
			b := bs[0]
			servertest.WaitFor(t, 2*time.Second, fmt.Sprintf("idle, Available %d (want %d)", b.Available(time.Now()), tc.want),
				func() bool { return b.Available(time.Now()) == tc.want })
			ok, _, err := b.Take(context.Background(), 1)
			if err != nil || !ok {
				t.Fatalf("a first turn: granted %v, %v", ok, err)
			}
			if got := b.Available(time.Now()); got != tc.want-1 {
				t.Errorf("after a turn, Available %d, want %d", got, tc.want-1)
			}
			time.Sleep(window)
			if got := b.Available(time.Now()); got != tc.want {
				t.Errorf("a window after the turn, Available %d, want %d", got, tc.want)
			}
		})
	}
}
