package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/venueapi"
)

// BenchmarkTake is one shared turn: a round trip to a loopback redis-server
// and the reserve script. The limit is never reached, so every turn is granted
// and the log holds about a second of them.
func BenchmarkTake(b *testing.B) {
	srv := redistest.Start(b)
	budget, err := cluster.NewBudget(open(b, srv.URL(), cluster.Options{}), "bench", venueapi.Limit{Requests: 1 << 20, Per: time.Second}, 2)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := budget.Kept(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, _, err := budget.Take(ctx, 1); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if ok, _, err := budget.Take(ctx, 1); err != nil || !ok {
					b.Error(ok, err)
					return
				}
			}
		})
	})
	if s := budget.Stats(); s.State != cluster.Shared || s.LocalGranted != 0 {
		b.Fatalf("the benchmark left the shared log: %+v", s)
	}
}
