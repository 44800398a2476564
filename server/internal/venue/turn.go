package venue

import (
	"context"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// TurnWindow is how long a send counts against limit in a client's log of
// turns: the limit's interval and a margin of a tenth of it. The venue counts
// arrivals, which lag sends by a varying delay (docs/decisions.md#client-quota).
// Every budget, in process or shared, keeps this window.
func TurnWindow(limit venueapi.Limit) time.Duration { return limit.Per + limit.Per/10 }

// TooLate says whether a turn of limit logged at at is too late to be sent
// at now. A turn sent later than its logged time eats into the margin before
// the network has had any of it. When the sender ran late (a stalled
// scheduler, a long collection, a timer fired late on a loaded machine) by
// more than half the margin, the rest being the network's, the call could
// arrive in the venue's next window.
func TooLate(limit venueapi.Limit, at, now time.Time) bool {
	return now.Sub(at) > (TurnWindow(limit)-limit.Per)/2
}

// Turn is a turn a budget has taken. At is when it may be sent, and what
// its lateness is judged from. A budget that learns its turn's time over a
// network knows it only within the round trip: At is then the earliest it
// may be, and NotBefore the latest, which the sender waits for, so that the
// turn is neither sent early nor judged on time when it may be late.
type Turn struct {
	At        time.Time
	NotBefore time.Time // zero: At
	GiveBack  func()
	// Held, when set, reports once the turn's time has come whether a pause
	// the venue asked for since the turn was taken covers it; nil: never.
	Held func(context.Context) bool
}

// lateTries bounds the turns one WaitTurn gives back as late: a process that
// stalls that often sends nothing until it recovers.
const lateTries = 3

// WaitTurn takes a turn of limit with take and waits for its time within
// ctx; take's error (a refusal, ctx's end) is returned as it is, and when ctx
// ends during the wait the turn is given back. A turn that a pause learnt
// since it was taken covers (Turn.Held) is given back and another taken,
// after the pause: nothing is sent until the venue's window resets
// (docs/decisions.md#client-quota), and when the caller's deadline comes
// first take refuses as for a spent budget. A turn reached too late
// (TooLate) is given back and another taken, at most lateTries times in a
// row; then it fails with *RateLimitedError, to retry once the margin has
// passed. late is the number of turns given back as late.
func WaitTurn(ctx context.Context, limit venueapi.Limit, take func(context.Context) (Turn, error)) (late int, err error) {
	for {
		if err := ctx.Err(); err != nil {
			return late, err
		}
		t, err := take(ctx)
		if err != nil {
			return late, err
		}
		if err := WaitUntil(ctx, later(t.At, t.NotBefore)); err != nil {
			t.GiveBack()
			return late, err
		}
		if t.Held != nil && t.Held(ctx) {
			t.GiveBack()
			continue
		}
		if !TooLate(limit, t.At, time.Now()) {
			return late, nil
		}
		t.GiveBack()
		if late++; late == lateTries {
			return late, &RateLimitedError{RetryAfter: TurnWindow(limit) - limit.Per}
		}
	}
}

// WaitUntil waits for at, or returns ctx's error if it ends first.
func WaitUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
