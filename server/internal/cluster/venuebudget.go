package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
)

// VenueBudget is b as the venue client spends a budget (venue.Config's
// PrivateBudget or PublicBudget), so that the venue client needs nothing of
// Redis: a turn refused as too late is the *venue.RateLimitedError the
// gateway answers 429 with, as the client's own quota's is.
func VenueBudget(b *Budget) venue.Budget { return venueBudget{b} }

type venueBudget struct{ b *Budget }

func (v venueBudget) Wait(ctx context.Context) error {
	err := v.b.Wait(ctx)
	if se := (*SpentError)(nil); errors.As(err, &se) {
		return &venue.RateLimitedError{RetryAfter: se.RetryAfter}
	}
	return err
}

// Pause is recorded whatever becomes of the call that learnt it: ctx's
// cancellation is dropped, and the Redis call keeps its own timeout.
func (v venueBudget) Pause(ctx context.Context, _ time.Time, d time.Duration) {
	v.b.Pause(context.WithoutCancel(ctx), d)
}

func (v venueBudget) State(now time.Time) venue.QuotaState {
	return venue.QuotaState{Quota: v.b.limit, Available: float64(v.b.Available(now))}
}
