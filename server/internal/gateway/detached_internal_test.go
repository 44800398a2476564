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
