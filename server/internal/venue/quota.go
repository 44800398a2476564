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
	Available float64 // requests that could be sent at once
}

// quota keeps the send times of the last Requests calls (a sliding-window
// log), so that no window of Per ever holds more than Requests calls, however
// the venue aligns its own windows. A token bucket cannot promise that: its
// burst plus its refill overrun a window. A slot is reused a margin after Per,
// since the venue counts arrivals, which lag sends by a varying delay.
//
// A caller reserves the next slot (possibly in the future) before it waits,
// so callers are served in turn and each learns at once how long its turn
// is. It runs on the real clock: the venue counts in real time, whatever
// clock signs the requests.
type quota struct {
	q      Quota
	window time.Duration // Per plus the margin
	mu     sync.Mutex
	sent   []time.Time // ring of the last q.Requests reserved send times
	next   int         // the slot the next reservation reuses
	until  time.Time   // nothing is sent before this: the venue said its window is spent
}

func newQuota(q Quota) *quota {
	return &quota{q: q, window: q.Per + q.Per/10, sent: make([]time.Time, q.Requests)}
}

// wait takes the next turn, waiting for it within ctx's deadline; when the
// turn comes after the deadline it fails at once with *RateLimitedError and
// takes nothing.
func (q *quota) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	q.mu.Lock()
	at := now
	if old := q.sent[q.next]; !old.IsZero() {
		at = later(at, old.Add(q.window))
	}
	at = later(at, q.until)
	delay := at.Sub(now)
	if dl, ok := ctx.Deadline(); ok && at.After(dl) {
		q.mu.Unlock()
		return &RateLimitedError{RetryAfter: delay}
	}
	slot, old := q.next, q.sent[q.next]
	q.sent[slot] = at
	q.next = (slot + 1) % len(q.sent)
	q.mu.Unlock()
	if delay <= 0 {
		return nil
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		q.giveBack(slot, at, old)
		return ctx.Err()
	}
}

// giveBack returns an unused turn when no later turn was taken after it;
// otherwise the turn stays spent, which costs budget but never overruns it.
func (q *quota) giveBack(slot int, at, old time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if (slot+1)%len(q.sent) == q.next && q.sent[slot].Equal(at) {
		q.sent[slot], q.next = old, slot
	}
}

// pause sends nothing for d from now: the venue said its window is spent.
func (q *quota) pause(d time.Duration) {
	q.mu.Lock()
	q.until = later(q.until, time.Now().Add(d))
	q.mu.Unlock()
}

func (q *quota) state() QuotaState {
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	free := 0
	if !now.Before(q.until) {
		for _, s := range q.sent {
			if s.IsZero() || now.Sub(s) >= q.window {
				free++
			}
		}
	}
	return QuotaState{Quota: q.q, Available: float64(free)}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
