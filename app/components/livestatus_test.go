//go:build !js

package components

import (
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// within reports whether d is in [lo, hi].
func within(d, lo, hi time.Duration) bool { return d >= lo && d <= hi }

func TestAChartPollsUntilItsStreamDeliversAndNotWhileItDoes(t *testing.T) {
	var f liveFeed
	f.start()
	if !f.polls() || f.mode != feedStarting {
		t.Fatalf("a stream opening: mode %d, polls %v; want starting, polling meanwhile", f.mode, f.polls())
	}
	f.open(time.Now())
	f.event()
	if f.polls() || f.mode != feedLive {
		t.Fatalf("a stream delivering: mode %d, polls %v; want live, no polls", f.mode, f.polls())
	}
}

func TestAStreamLostIsLeftToTheBrowserOnceThenReopenedWithBackoff(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var f liveFeed
	f.start()
	f.open(t0)
	f.event()
	// The connection drops: the browser reconnects by itself, saying the
	// last event it got, and the chart polls meanwhile.
	if d, closeIt := f.fail(false, 0.5); closeIt || f.mode != feedReconnecting || !f.polls() {
		t.Fatalf("a first error: close %v (%s), mode %d; want the browser's own reconnection, polls meanwhile", closeIt, d, f.mode)
	}
	f.event()
	if f.mode != feedLive {
		t.Fatalf("the reconnected stream delivering: mode %d, want live", f.mode)
	}
	// The server is gone: each failure closes the stream and waits longer.
	want := [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}, {2 * time.Second, 4 * time.Second}}
	f.fail(false, 0)
	for i, w := range want {
		f.start() // the chart reopens it
		d, closeIt := f.fail(true, 0.99)
		if !closeIt || !within(d, w[0], w[1]) || f.mode != feedReconnecting {
			t.Fatalf("failure %d: close %v after %s, mode %d; want a reopening within %s–%s", i+1, closeIt, d, f.mode, w[0], w[1])
		}
	}
	for range 20 {
		f.start()
		if d, _ := f.fail(true, 0.99); d > reconnectMost {
			t.Fatalf("a reconnection waits %s, more than %s", d, reconnectMost)
		}
	}
	f.start()
	f.event()
	if d, _ := f.fail(true, 0.99); !within(d, want[0][0], want[0][1]) {
		t.Errorf("after a stream delivered again, the backoff did not start over: %s", d)
	}
}

func TestAChartWhoseStreamsNeverDeliverPollsAndTriesAStreamNowAndThen(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	t.Run("refused before any event", func(t *testing.T) {
		var f liveFeed
		f.start()
		d, closeIt := f.fail(true, 0)
		if !closeIt || f.mode != feedPolling || !f.polls() || !within(d, retryFirst/2, retryFirst) {
			t.Fatalf("close %v after %s, mode %d; want polling, and a stream tried again within a minute", closeIt, d, f.mode)
		}
		for range 10 {
			f.start()
			d, _ = f.fail(true, 0.99)
		}
		if d > retryMost || d < retryMost/2 {
			t.Errorf("after many refusals, the next stream in %s, want at most %s", d, retryMost)
		}
	})
	t.Run("held back by a proxy", func(t *testing.T) {
		var f liveFeed
		f.start()
		f.open(t0)
		if _, closeIt := f.silent(t0.Add(streamSilence-time.Second), 0); closeIt {
			t.Fatal("a stream was given up before two heartbeats of silence")
		}
		d, closeIt := f.silent(t0.Add(streamSilence), 0)
		if !closeIt || f.mode != feedPolling || !f.polls() || d < retryFirst/2 {
			t.Fatalf("silent for two heartbeats: close %v after %s, mode %d; want polling and a later retry", closeIt, d, f.mode)
		}
		var live liveFeed
		live.start()
		live.open(t0)
		live.event()
		if _, closeIt := live.silent(t0.Add(time.Hour), 0); closeIt {
			t.Error("a stream that delivered was taken for held back")
		}
	})
	t.Run("a contract the venue does not know", func(t *testing.T) {
		var f liveFeed
		f.start()
		f.event() // the view before streamed
		f.fail(true, 0)
		if f.mode != feedReconnecting {
			t.Fatalf("mode %d after the refusal, want reconnecting", f.mode)
		}
		f.stop()
		if f.mode != feedStarting || liveState(f.mode) != nil {
			t.Errorf("mode %d once stopped: want no badge", f.mode)
		}
		var polling liveFeed
		polling.unsupported()
		polling.stop()
		if polling.mode != feedPolling {
			t.Errorf("a chart that polls says it no longer does (mode %d)", polling.mode)
		}
	})
	t.Run("no EventSource", func(t *testing.T) {
		var f liveFeed
		f.unsupported()
		if !f.polls() || f.mode != feedPolling {
			t.Errorf("mode %d, polls %v; want polling", f.mode, f.polls())
		}
	})
}

func TestTheLiveBadgeSaysHowTheNewestCandleArrives(t *testing.T) {
	if liveState(feedStarting) != nil {
		t.Error("a badge while the first stream opens")
	}
	for mode, want := range map[feedMode][2]string{
		feedLive:         {"live", "Live"},
		feedReconnecting: {"reconnecting", "Reconnecting…"},
		feedPolling:      {"polling", "Polling"},
	} {
		html := app.HTMLString(liveState(mode))
		tag := tagWith(t, html, `id="live-state"`)
		if !has(tag, `data-state="`+want[0]+`"`) || !strings.Contains(tag, want[0]) || !strings.Contains(html, ">"+want[1]+"<") || !strings.Contains(tag, "title=") {
			t.Errorf("mode %d: %s; want state %s reading %q, with a title", mode, html, want[0], want[1])
		}
	}
}
