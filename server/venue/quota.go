package venue

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// Quota is a request budget: Requests per Per.
type Quota struct {
	Requests int
	Per      time.Duration
}

// QuotaState is a quota and what of it is available now, for metrics.
type QuotaState struct {
	Quota
	Available float64
}

// quota is a token bucket that holds Requests tokens refilled over Per: never
// more than Requests calls in any window of Per.
type quota struct {
	q Quota
	l *rate.Limiter
}

func newQuota(q Quota) *quota {
	return &quota{q: q, l: rate.NewLimiter(rate.Every(q.Per/time.Duration(q.Requests)), q.Requests)}
}

// wait takes a token, waiting for it within ctx's deadline; when the wait
// would outlast the deadline it fails at once with *RateLimitedError.
func (q *quota) wait(ctx context.Context, now time.Time) error {
	r := q.l.ReserveN(now, 1)
	if !r.OK() {
		return &RateLimitedError{RetryAfter: q.q.Per}
	}
	delay := r.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && now.Add(delay).After(dl) {
		r.CancelAt(now)
		return &RateLimitedError{RetryAfter: delay}
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		r.Cancel()
		return ctx.Err()
	}
}

func (q *quota) state(now time.Time) QuotaState {
	return QuotaState{Quota: q.q, Available: q.l.TokensAt(now)}
}
