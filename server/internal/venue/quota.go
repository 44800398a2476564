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
	// turn would come at or after the deadline it fails at once with a
	// *RateLimitedError (Venue false) saying when to retry, and takes
	// nothing; when ctx ends first it gives the turn back if it can.
	Wait(ctx context.Context) error
	// Pause sends nothing for d from now, not even a turn taken before and
	// still waited for: the venue said its window is spent. It is recorded
	// even when ctx is done.
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
	return &quota{q: q, window: TurnWindow(q), sent: make([]time.Time, q.Requests)}
}

// reservation is a turn taken: when it may be sent, and what its slot held
// before, so that it can be given back.
type reservation struct {
	q       *quota
	slot    int
	at, old time.Time
}

// reserve takes the next turn at or after now. When that turn comes at or
// after deadline (the zero time: none) it takes nothing and returns false; either
// way it returns how long after now the turn is.
func (q *quota) reserve(now, deadline time.Time) (reservation, time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	at := now
	if old := q.sent[q.next]; !old.IsZero() {
		at = later(at, old.Add(q.window))
	}
	at = later(at, q.until)
	if !deadline.IsZero() && !at.Before(deadline) { // a turn at the deadline has no time to be sent
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
// turn comes at or after the deadline it fails at once with *RateLimitedError and
// takes nothing. A turn reached too late, or inside a pause learnt while it
// waited, is given back and another taken (WaitTurn).
func (q *quota) Wait(ctx context.Context) error {
	_, err := WaitTurn(ctx, q.q, func(ctx context.Context) (Turn, error) {
		dl, _ := ctx.Deadline()
		r, delay, ok := q.reserve(time.Now(), dl)
		if !ok {
			return Turn{}, &RateLimitedError{RetryAfter: delay}
		}
		return Turn{At: r.at, GiveBack: r.cancel, Held: func(context.Context) bool { return q.holds(r.at) }}, nil
	})
	return err
}

// holds reports whether a pause covers a turn at at. A turn is reserved
// after every pause known then, so a pause that covers it came later.
func (q *quota) holds(at time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.until.After(at)
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
