package cluster_test

import (
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// A budget degraded by a Redis out of reach, which then answers again but
// refuses the replica's login, says so: the reason is Redis's latest
// answer, not its first failure (docs/deploy.md, the table of failures).
// And the other way round: a refusal, then Redis out of reach.
func TestABudgetSaysWhyRedisIsNotSharedAsItChanges(t *testing.T) {
	open := redistest.Start(t)
	locked := redistest.Start(t, "--requirepass", "the-right-one")
	limit := venueapi.Limit{Requests: 30, Per: 600 * time.Millisecond}
	for _, tc := range []struct {
		name          string
		first, then   string // the Redis the proxy forwards to, before and after the cut
		refusedBefore bool
		refusedAfter  bool
	}{
		{"out of reach, then refusing the login", open.Addr(), locked.Addr(), false, true},
		{"refusing the login, then out of reach", locked.Addr(), "127.0.0.1:1", true, false}, // nothing listens at port 1
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProxy(t, tc.first)
			b := fresh(t, p.URL(), fast(t), limit, 2)
			if tc.refusedBefore {
				servertest.WaitFor(t, 5*time.Second, "degraded, Redis refusing", b.Refused)
			} else {
				waitPresent(t, b, 1)
				p.setCut(true)
				servertest.WaitFor(t, 5*time.Second, "degraded, Redis out of reach", func() bool { return b.State() == cluster.Degraded })
				if b.Refused() {
					t.Fatal("Redis out of reach said to refuse the login")
				}
			}
			p.redirect(tc.then)
			servertest.WaitFor(t, 10*time.Second, "the reason Redis gives after the change", func() bool {
				return b.State() == cluster.Degraded && b.Refused() == tc.refusedAfter
			})
		})
	}
}
