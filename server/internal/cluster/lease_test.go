package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
)

func TestALeaseIsWonByExactlyOneContenderPerTTL(t *testing.T) {
	srv := redistest.Start(t)
	var clients []*cluster.Client
	for range 3 {
		clients = append(clients, open(t, srv.URL(), fast(t)))
	}
	const ttl = 300 * time.Millisecond
	for round := range 3 {
		var won atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, c := range clients {
			for range 10 {
				wg.Go(func() {
					<-start
					l, err := c.Lease(context.Background(), "BTC-USDT/1min", ttl)
					if err != nil {
						t.Error(err)
					}
					if l.Won {
						won.Add(1)
					}
				})
			}
		}
		close(start)
		wg.Wait()
		if n := won.Load(); n != 1 {
			t.Fatalf("round %d: %d of 30 contenders won the lease, want exactly 1", round, n)
		}
		// Still held: nobody wins before it ends.
		if l, err := clients[0].Lease(context.Background(), "BTC-USDT/1min", ttl); err != nil || l.Won {
			t.Fatalf("round %d: a lease still held was won again: %v, %v", round, l.Won, err)
		}
		time.Sleep(ttl + 50*time.Millisecond)
	}
}

// Nothing listens at the client's address, so every call that reaches for
// Redis fails too: a refusal must say which rule it breaks, and the client
// must count no Redis error, or the checks are not what refused.
func TestLeaseChecksItsArguments(t *testing.T) {
	c := open(t, "redis://127.0.0.1:1/0", fast(t)) // never reached: the checks come first
	for _, tt := range []struct {
		name      string
		ttl       time.Duration
		complaint string
	}{
		{"", time.Second, "1 to 512 bytes"},
		{"has space", time.Second, "without spaces"},
		{"job", 0, "ttl 0s: must be at least 1ms"},
		{"job", time.Microsecond, "ttl 1µs: must be at least 1ms"},
	} {
		if _, err := c.Lease(context.Background(), tt.name, tt.ttl); err == nil || !strings.Contains(err.Error(), tt.complaint) {
			t.Errorf("Lease(%q, %s) = %v, want an error saying %q", tt.name, tt.ttl, err, tt.complaint)
		}
	}
	if s := c.Stats(); s.Errors+s.Timeouts != 0 {
		t.Errorf("a refused Lease reached Redis: %+v", s)
	}
}

// A release ends only the lease it was given: not a later lease on the same
// name, whether this replica or another took it after the first ran out.
func TestAReleaseEndsOnlyItsOwnLease(t *testing.T) {
	srv := redistest.Start(t)
	const short = 100 * time.Millisecond
	tests := []struct {
		name string
		// run takes and releases leases on name, and returns the lease that
		// must still be held.
		run func(t *testing.T, a, b *cluster.Client, name string) cluster.Lease
	}{
		{"a late release leaves the lease its replica took again", func(t *testing.T, a, _ *cluster.Client, name string) cluster.Lease {
			first := mustWin(t, a, name, short)
			time.Sleep(2 * short) // the first lease runs out while its job goes on
			second := mustWin(t, a, name, time.Minute)
			mustRelease(t, first)
			return second
		}},
		{"a late release leaves the lease another replica took", func(t *testing.T, a, b *cluster.Client, name string) cluster.Lease {
			first := mustWin(t, a, name, short)
			time.Sleep(2 * short)
			other := mustWin(t, b, name, time.Minute)
			mustRelease(t, first)
			return other
		}},
		{"releasing twice is harmless", func(t *testing.T, a, b *cluster.Client, name string) cluster.Lease {
			first := mustWin(t, a, name, time.Minute)
			mustRelease(t, first)
			mustRelease(t, first)
			other := mustWin(t, b, name, time.Minute)
			mustRelease(t, first)
			return other
		}},
		{"a lease not won releases nothing", func(t *testing.T, a, b *cluster.Client, name string) cluster.Lease {
			held := mustWin(t, a, name, time.Minute)
			lost, err := b.Lease(context.Background(), name, time.Minute)
			if err != nil || lost.Won {
				t.Fatalf("a lease held was won again: %v, %v", lost.Won, err)
			}
			mustRelease(t, lost)
			mustRelease(t, cluster.Lease{})
			return held
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, c := open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t))
			name := fmt.Sprintf("job%d", i)
			held := tt.run(t, a, b, name)
			if l, err := c.Lease(context.Background(), name, time.Minute); err != nil || l.Won {
				t.Fatalf("another replica won the lease while it was held: %v, %v", l.Won, err)
			}
			// Its own release still ends it, and the name is free at once.
			mustRelease(t, held)
			mustWin(t, c, name, time.Minute)
		})
	}
}

func mustWin(t *testing.T, c *cluster.Client, name string, ttl time.Duration) cluster.Lease {
	t.Helper()
	l, err := c.Lease(context.Background(), name, ttl)
	if err != nil || !l.Won {
		t.Fatalf("lease %s: won %v, %v; want it won", name, l.Won, err)
	}
	return l
}

func mustRelease(t *testing.T, l cluster.Lease) {
	t.Helper()
	if err := l.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
}
