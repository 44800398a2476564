package cluster_test

import (
	"context"
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
					ok, err := c.Lease(context.Background(), "BTC-USDT/1min", ttl)
					if err != nil {
						t.Error(err)
					}
					if ok {
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
		if ok, err := clients[0].Lease(context.Background(), "BTC-USDT/1min", ttl); err != nil || ok {
			t.Fatalf("round %d: a lease still held was won again: %v, %v", round, ok, err)
		}
		time.Sleep(ttl + 50*time.Millisecond)
	}
}

func TestLeaseChecksItsArguments(t *testing.T) {
	c := open(t, "redis://127.0.0.1:1/0", fast(t))
	for _, tt := range []struct {
		name string
		ttl  time.Duration
	}{{"", time.Second}, {"has space", time.Second}, {"job", 0}, {"job", time.Microsecond}} {
		if _, err := c.Lease(context.Background(), tt.name, tt.ttl); err == nil {
			t.Errorf("Lease(%q, %s) was accepted", tt.name, tt.ttl)
		}
	}
}

func TestOnlyALeasesHolderCanReleaseIt(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t))
	ctx := context.Background()
	if ok, err := a.Lease(ctx, "job", time.Minute); err != nil || !ok {
		t.Fatalf("the first lease: %v, %v", ok, err)
	}
	if err := b.Release(ctx, "job"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Lease(ctx, "job", time.Minute); err != nil || ok {
		t.Fatalf("another replica's release ended the lease: %v, %v", ok, err)
	}
	if err := a.Release(ctx, "job"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Lease(ctx, "job", time.Minute); err != nil || !ok {
		t.Fatalf("after its holder released it, the lease was not free: %v, %v", ok, err)
	}
}
