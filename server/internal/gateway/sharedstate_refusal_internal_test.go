package gateway

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
)

// A replica whose Redis was out of reach, and which answers again refusing
// its login (restarted with a password the replica's URL lacks), says so on
// /healthz: the reason is Redis's latest answer, not its first failure
// (README, GET /healthz).
func TestHealthSaysRedisRefusesOnceItAnswersAgainRefusing(t *testing.T) {
	locked := redistest.Start(t, "--requirepass", "the-right-one")
	locked.Kill() // out of reach; restarted, it refuses the URL without a password
	c, err := cluster.Open(locked.URL(), cluster.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := NewSharedState(c)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = s.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran })

	s.fail(t.Context(), c.Ping(t.Context()))
	if h := s.health(); !strings.HasPrefix(h, "out of reach") {
		t.Fatalf("health with Redis out of reach: %q", h)
	}
	locked.Restart()
	servertest.WaitFor(t, 10*time.Second, "health saying so once Redis answered again, refusing the login", func() bool {
		return strings.Contains(s.health(), "refused this replica's login")
	})
}
