package venue

import (
	"context"
	"sync"
	"time"
)

// Quota is a request budget: at most Requests in any window of Per.
type Quota struct {
	Requests int
	Per      time.Duration
}

// QuotaState is a quota and what of it is available now, for metrics.
type QuotaState struct {
	Quota
	Available float64
}

// quota keeps the send times of the last Requests calls (a sliding-window
// log), so that no window of Per ever holds more than Requests calls, however
// the venue aligns its own windows. A token bucket cannot promise that: its
// burst plus its refill overrun a window. A slot is reused a margin after Per,
// since the venue counts arrivals, which lag sends by a varying delay.
type quota struct {
	q      Quota
	window time.Duration // Per plus the margin
	mu     sync.Mutex
	sent   []time.Time // ring of the last q.Requests send times
	next   int
}

func newQuota(q Quota) *quota {
	return &quota{q: q, window: q.Per + q.Per/10, sent: make([]time.Time, q.Requests)}
}

// wait takes a slot, waiting for it within ctx's deadline; when the wait
// would outlast the deadline it fails at once with *RateLimitedError.
func (q *quota) wait(ctx context.Context, now func() time.Time) error {
	for {
		q.mu.Lock()
		t := now()
		oldest := q.sent[q.next] // the slot to reuse: the call Requests calls ago
		free := oldest.IsZero() || t.Sub(oldest) >= q.window
		if free {
			q.sent[q.next] = t
			q.next = (q.next + 1) % len(q.sent)
			q.mu.Unlock()
			return nil
		}
		delay := oldest.Add(q.window).Sub(t)
		q.mu.Unlock()
		if dl, ok := ctx.Deadline(); ok && t.Add(delay).After(dl) {
			return &RateLimitedError{RetryAfter: delay}
		}
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
	}
}

func (q *quota) state(now time.Time) QuotaState {
	q.mu.Lock()
	defer q.mu.Unlock()
	free := 0
	for _, s := range q.sent {
		if s.IsZero() || now.Sub(s) >= q.window {
			free++
		}
	}
	return QuotaState{Quota: q.q, Available: float64(free)}
}
