package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// replica is what a server shares with the other replicas under
// RISKCHART_REDIS_URL: the venue budgets its venue client spends, and the
// gateway's shared state (docs/architecture.md, "Shared state (Redis)").
type replica struct {
	shared  *gateway.SharedState
	private venue.Budget // nil without a key: signed calls are refused unsent
	public  venue.Budget
	client  *cluster.Client
	budgets []*cluster.Budget
	wg      sync.WaitGroup
	stop    context.CancelFunc
}

// joinReplicas opens Redis and the shared budgets: the private one named
// for the access key (a hash of it: the key never reaches Redis), the
// public one for the egress. Nothing runs until start.
func joinReplicas(cfg config, accessKey string, log *slog.Logger) (*replica, error) {
	c, err := cluster.Open(cfg.RedisURL, cluster.Options{Logger: log.With("component", "cluster")})
	if err != nil {
		return nil, err
	}
	r := &replica{client: c}
	public, err := cluster.NewBudget(c, "public-"+cfg.Egress, venueapi.PublicLimit(), cfg.Replicas)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", cfg.name("RISKCHART_EGRESS"), err)
	}
	r.public, r.budgets = cluster.VenueBudget(public), append(r.budgets, public)
	if accessKey != "" {
		private, err := cluster.NewBudget(c, "private-"+venue.AccountOf(accessKey), venueapi.PrivateLimit(), cfg.Replicas)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w", cfg.name("RISKCHART_REPLICAS"), err)
		}
		r.private, r.budgets = cluster.VenueBudget(private), append(r.budgets, private)
	}
	r.shared = gateway.NewSharedState(c, r.budgets...)
	return r, nil
}

// start runs the budgets and the shared state until ctx ends or close.
func (r *replica) start(ctx context.Context, log *slog.Logger) {
	ctx, r.stop = context.WithCancel(ctx)
	for _, b := range r.budgets {
		r.wg.Go(func() { _ = b.Run(ctx) })
	}
	r.wg.Go(func() { _ = r.shared.Run(ctx) })
	log.Info("sharing state with the other replicas", "redis", r.client.String(), "budgets", len(r.budgets))
}

// close stops what start ran, ends this replica's presence in each budget
// (at once, each call bounded as every Redis call is), and closes Redis.
func (r *replica) close() {
	if r.stop != nil {
		r.stop()
		r.wg.Wait()
		var left sync.WaitGroup
		for _, b := range r.budgets {
			left.Go(func() { _ = b.Leave(context.Background()) })
		}
		left.Wait()
	}
	r.client.Close()
}

// redisLog routes go-redis's own messages (a failed dial, a pool event)
// through slog at debug level: the cluster package counts failed calls and
// logs the outage once, and these would repeat it per connection.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, fmt.Sprintf(format, v...))
}
