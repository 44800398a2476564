package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The gateway's detached work ends when its owner closes it, and closing
// waits for it: nothing of it may spend the venue or Redis clients closed
// after the gateway. Work detached once closed fails at once.
func TestDetachedWorkEndsAndIsWaitedForAtClose(t *testing.T) {
	type key struct{}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, d *Detached)
	}{
		{"it keeps the request's values, not its end", func(t *testing.T, d *Detached) {
			req, leave := context.WithCancel(context.WithValue(context.Background(), key{}, "asked"))
			ctx, done := d.detach(req)
			defer done()
			leave()
			if ctx.Err() != nil || ctx.Value(key{}) != "asked" {
				t.Fatalf("with the request gone: err %v, value %v; want no error, the request's value", ctx.Err(), ctx.Value(key{}))
			}
		}},
		{"close ends running work and waits for it", func(t *testing.T, d *Detached) {
			ctx, done := d.detach(context.Background())
			returned := make(chan struct{})
			go func() {
				defer done()          // the work's end, which Close waits for,
				defer close(returned) // comes after the mark the test reads
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond) // its last write, after its context ended
			}()
			wait, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := d.Close(wait); err != nil {
				t.Fatalf("Close: %v", err)
			}
			select {
			case <-returned:
			default:
				t.Fatal("Close returned while the work was running")
			}
		}},
		{"work detached after close gets an ended context", func(t *testing.T, d *Detached) {
			if err := d.Close(context.Background()); err != nil {
				t.Fatalf("Close with nothing running: %v", err)
			}
			ctx, done := d.detach(context.Background())
			done()
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Fatalf("a context detached after Close: err %v; want %v", ctx.Err(), context.Canceled)
			}
			if err := d.Close(context.Background()); err != nil {
				t.Fatalf("a second Close: %v", err)
			}
		}},
		{"its end says whether the gateway closed it", func(t *testing.T, d *Detached) {
			ctx, done := d.detach(context.Background())
			timed, cancel := context.WithTimeout(ctx, time.Hour) // a venue call's own timeout on top
			defer cancel()
			other, otherDone := d.detach(context.Background())
			otherDone() // work that ended on its own
			if closing(ctx) || closing(other) {
				t.Fatal("closing before Close: true; want false")
			}
			over, end := context.WithCancel(context.Background())
			end()
			if err := d.Close(over); err == nil {
				t.Fatal("Close with work running and its wait already over: no error")
			}
			defer done()
			select { // Close ends the work's context in a goroutine of its own
			case <-timed.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the work's context did not end within 5 s of Close")
			}
			if !closing(ctx) || !closing(timed) || closing(other) {
				t.Fatalf("closing after Close: %v for the work, %v beneath its timeout, %v for work that ended before; want true, true, false",
					closing(ctx), closing(timed), closing(other))
			}
			late, lateDone := d.detach(context.Background())
			defer lateDone()
			if !closing(late) {
				t.Fatal("closing for work detached after Close: false; want true")
			}
		}},
		{"close past its wait says how much still runs", func(t *testing.T, d *Detached) {
			_, done1 := d.detach(context.Background())
			_, done2 := d.detach(context.Background())
			_, done3 := d.detach(context.Background())
			done3()
			done3() // a second call counts nothing
			defer done1()
			defer done2()
			wait, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			err := d.Close(wait)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "2 still running") {
				t.Fatalf("Close past its wait: %v; want the deadline and 2 still running", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, NewDetached())
		})
	}
}
