package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// errClosing is the cause of a detached context ended by Detached.Close:
// the gateway's end, not the venue's failure or a timeout (closing).
var errClosing = errors.New("the gateway is closing")

// closing reports whether ctx, or a context it derives from, was ended by
// a Detached closing.
func closing(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errClosing) }

// Detached is the lifetime of the work the gateway detaches from the
// requests that start it: the venue calls their sharers wait for after the
// browser that started them left, the contract list's fetch, the readiness
// probes' calls, the stream pumps, and the Redis writes owed when a request
// ends. http.Server.Shutdown waits for none of it, and it spends the venue
// client and the Redis client its owner closes after the gateway: Close ends
// it and waits for it, so that nothing of it runs once they are closed.
type Detached struct {
	ctx    context.Context // ends at Close
	cancel context.CancelFunc

	// A count under a lock rather than a sync.WaitGroup: work may be
	// detached while Close waits, which WaitGroup.Add must not race with.
	mu      sync.Mutex
	closed  bool
	running int
	idle    chan struct{} // closed once closed is true and running is 0
}

// NewDetached returns the lifetime of a gateway's detached work, to close at
// shutdown once the requests that wait for it are over.
func NewDetached() *Detached {
	ctx, cancel := context.WithCancel(context.Background())
	return &Detached{ctx: ctx, cancel: cancel, idle: make(chan struct{})}
}

// detach returns a context with ctx's values but not its cancellation, which
// ends when d closes, and done, to call when the work ends. Work detached
// once d has closed gets a context ended already: it fails at once rather
// than outlive its owner. Ended by d's closing, the context's cause is
// errClosing (closing). Each caller keeps its own timeout on top.
func (d *Detached) detach(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(d.ctx, func() { cancel(errClosing) })
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		unhook()
		cancel(errClosing)
		return ctx, func() {}
	}
	d.running++
	return ctx, sync.OnceFunc(func() {
		unhook()
		cancel(nil)
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.running--; d.closed && d.running == 0 {
			close(d.idle)
		}
	})
}

// Close ends the detached work, refuses more, and waits until all of it has
// returned or ctx is done. Call it once the requests that may wait for the
// work are over (after http.Server.Shutdown returns), as they would fail.
func (d *Detached) Close(ctx context.Context) error {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		if d.running == 0 {
			close(d.idle)
		}
	}
	d.mu.Unlock()
	d.cancel()
	select {
	case <-d.idle:
		return nil
	case <-ctx.Done():
	}
	// select picks either when both are ready: a ctx done before Close (the
	// grace period spent on the requests or the streams) says nothing of
	// work that has all returned.
	d.mu.Lock()
	n := d.running
	d.mu.Unlock()
	if n == 0 {
		return nil
	}
	return fmt.Errorf("ending the gateway's detached venue calls and Redis writes: %d still running: %w", n, ctx.Err())
}
