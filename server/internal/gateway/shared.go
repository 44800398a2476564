package gateway

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/singleflight"
)

// errSlow is a caller that stopped waiting for a shared venue call after
// its patience, to answer what it holds (docs/decisions.md#stale-answers).
// It wraps context.DeadlineExceeded: a venue this slow is a venue too slow.
var errSlow = fmt.Errorf("the venue is slower than the wait for a held answer: %w", context.DeadlineExceeded)

// sharedCalls is the one way a venue call is shared: the calls of one
// cache, keyed, each run once for all concurrent callers with its key, and
// detached from the request that started it for life's lifetime.
type sharedCalls struct {
	group singleflight.Group
	life  *Detached
}

// do runs fetch once for all concurrent callers with key. The call first
// asks held (nil: nothing is held) for a fresh answer and returns it if
// there is one: a caller that found none may reach the group only after
// another caller's call has kept one and ended, and would otherwise call
// the venue a second time within the interval that answer is good for. The
// call is detached from the request that started it (its sharers must not
// fail because that one browser left), ends when life closes, and is
// bounded by timeout, the wait for budget included: past it the browser
// gets a 429 or a 504 rather than a hung request. Each caller stops waiting
// when its own request ends, or after patience (0: no limit) with errSlow,
// when it holds an older answer to give instead; the call goes on for the
// next caller.
func (c *sharedCalls) do(ctx context.Context, key string, timeout, patience time.Duration, held func() (v any, ok bool, err error), fetch func(context.Context) (any, error)) (any, error) {
	ch := c.group.DoChan(key, func() (any, error) {
		if held != nil {
			if v, ok, err := held(); ok {
				return v, err
			}
		}
		ctx, done := c.life.detach(ctx)
		defer done()
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return fetch(ctx)
	})
	var impatient <-chan time.Time
	if patience > 0 {
		t := time.NewTimer(patience)
		defer t.Stop()
		impatient = t.C
	}
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-impatient:
		return nil, errSlow
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
