package venue

import (
	"context"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// QuotaState is a quota and what of it is available now, for metrics.
type QuotaState struct {
	Quota     venueapi.Limit
	Available float64 // requests that could be sent at once
}

// Budget is one of the venue's limits as the client spends it: one turn per
// request sent, retries included. The default is an in-process quota (this
// file); several replicas share one through Redis instead
// (docs/architecture.md, "Shared state (Redis)"). Its methods are safe for
// concurrent use.
type Budget interface {
	// Wait takes one turn, waiting for it within ctx's deadline. When the
	// turn would come after the deadline it fails at once with a
	// *RateLimitedError (Venue false) saying when to retry, and takes
	// nothing; when ctx ends first it gives the turn back if it can.
	Wait(ctx context.Context) error
	// Pause sends nothing for d from now: the venue said its window is
	// spent. It is recorded even when ctx is done.
	Pause(ctx context.Context, now time.Time, d time.Duration)
	// State is the limit and what of it could be sent at now.
	State(now time.Time) QuotaState
}

// quota keeps the send times of the last Requests calls (a sliding-window
// log), so that no window of Per ever holds more than Requests calls, however
// the venue aligns its own windows. A token bucket cannot promise that: its
// burst plus its refill overrun a window. A slot is reused a margin after Per,
// since the venue counts arrivals, which lag sends by a varying delay.
//
// A caller reserves the next slot (possibly in the future) before it waits,
// so callers are served in turn and each learns at once how long its turn
// is. Every method but wait takes the time, as x/time/rate's do; wait reads
// the real clock: the venue counts in real time, whatever clock signs the
// requests.
type quota struct {
	q      venueapi.Limit
	window time.Duration // Per plus the margin
	mu     sync.Mutex
	sent   []time.Time // ring of the last q.Requests reserved send times
	next   int         // the slot the next reservation reuses
	until  time.Time   // nothing is sent before this: the venue said its window is spent
}

func newQuota(q venueapi.Limit) *quota {
	return &quota{q: q, window: q.Per + q.Per/10, sent: make([]time.Time, q.Requests)}
}

// reservation is a turn taken: when it may be sent, and what its slot held
// before, so that it can be given back.
type reservation struct {
	q       *quota
	slot    int
	at, old time.Time
}

// reserve takes the next turn at or after now. When that turn comes after
// deadline (the zero time: none) it takes nothing and returns false; either
// way it returns how long after now the turn is.
func (q *quota) reserve(now, deadline time.Time) (reservation, time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	at := now
	if old := q.sent[q.next]; !old.IsZero() {
		at = later(at, old.Add(q.window))
	}
	at = later(at, q.until)
	if !deadline.IsZero() && at.After(deadline) {
		return reservation{}, at.Sub(now), false
	}
	r := reservation{q: q, slot: q.next, at: at, old: q.sent[q.next]}
	q.sent[r.slot] = at
	q.next = (r.slot + 1) % len(q.sent)
	return r, at.Sub(now), true
}

// cancel gives an unused turn back when no later turn was taken after it;
// otherwise the turn stays spent, which costs budget but never overruns it.
func (r reservation) cancel() {
	q := r.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if (r.slot+1)%len(q.sent) == q.next && q.sent[r.slot].Equal(r.at) {
		q.sent[r.slot], q.next = r.old, r.slot
	}
}

// Wait takes the next turn, waiting for it within ctx's deadline; when the
// turn comes after the deadline it fails at once with *RateLimitedError and
// takes nothing. A turn this goroutine reaches too late (see late) is given
// back and another taken, at most lateTries times in a row.
func (q *quota) Wait(ctx context.Context) error {
	for try := 1; ; try++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		dl, _ := ctx.Deadline()
		r, delay, ok := q.reserve(time.Now(), dl)
		if !ok {
			return &RateLimitedError{RetryAfter: delay}
		}
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				r.cancel()
				return ctx.Err()
			}
		}
		if !q.late(r, time.Now()) {
			return nil
		}
		r.cancel()
		if try == lateTries {
			return &RateLimitedError{RetryAfter: q.window - q.q.Per}
		}
	}
}

// lateTries bounds the turns one Wait gives back as late: a process that
// stalls that often sends nothing until it recovers.
const lateTries = 3

// late says whether r's turn is too late to be sent at now. The log outlasts
// the venue's window by a margin for the lag between a send and its
// arrival; a turn sent later than its logged time eats into it. When the
// sender ran late (a stalled scheduler, a long collection, a timer fired
// late on a loaded machine) by more than half the margin, the rest being the
// network's, the call could arrive in the venue's next window, so the turn
// is given back and another taken.
func (q *quota) late(r reservation, now time.Time) bool {
	return now.Sub(r.at) > (q.window-q.q.Per)/2
}

// Pause sends nothing for d from now: the venue said its window is spent.
func (q *quota) Pause(_ context.Context, now time.Time, d time.Duration) {
	q.mu.Lock()
	q.until = later(q.until, now.Add(d))
	q.mu.Unlock()
}

// State is q and what of it could be sent at now.
func (q *quota) State(now time.Time) QuotaState {
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
