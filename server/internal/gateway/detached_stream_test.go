package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
)

// A stream whose browser stopped reading holds its write, and so the
// streams' close, until the grace period ends; serve then closes the
// detached work with none of the grace left (docs/architecture.md). The
// pumps serve the streams alone: they end when the streams close, so that
// closing the detached work finds them gone rather than warns of them as
// venue calls still running, and leaves them running past run's end.
func TestAStalledStreamLeavesNoPumpRunningWhenTheDetachedWorkCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(0)
		life, detached := gateway.NewStreams(), gateway.NewDetached()
		s := newStreamStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.Streams, c.Detached = life, detached }})
		res, _ := s.openStream(t, "127.0.0.9", btc1min) // reads nothing after the headers
		if res.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d", res.StatusCode)
		}
		for range 40 { // its writes fill the connection and block
			pushInterval(clk)
		}
		// serve's order and grace.
		grace, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := life.Close(grace); err == nil {
			t.Fatal("the streams closed within the grace period; want the stalled one to hold its write past it")
		}
		if err := detached.Close(grace); err != nil {
			t.Errorf("closing the detached work after the streams: %v; want nothing left running", err)
		}
	})
}

// serve closes the detached work with what is left of the grace period,
// none when the streams or the requests took it all. With nothing running,
// Close has nothing to wait for: it must not say the grace ran out, at
// random, whichever of its two ends it happens to see first.
func TestClosingTheDetachedWorkWithNothingRunningSucceedsWithNoGraceLeft(t *testing.T) {
	spent, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 200 {
		if err := gateway.NewDetached().Close(spent); err != nil {
			t.Fatalf("close %d, nothing running, the grace spent: %v; want nil", i, err)
		}
	}
}
