package components

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/riskchart/riskchart/venueapi"
)

// A chart keeps its newest candle live through the server's stream of the
// series (GET /api/v1/stream/kline, Server-Sent Events), and falls back to
// asking for it every second (polling) while the stream does not deliver:
// before its first event, while it reconnects, and for good where it never
// works (no EventSource, a proxy that holds the events back, a server that
// refuses it). liveFeed decides which, from what the stream reports.

// streamPath is the server's stream of a series' changed candles.
const streamPath = venueapi.PathStreamKLine

// feedMode is how the newest candle reaches the chart.
type feedMode int

const (
	feedStarting     feedMode = iota // the first stream opens: polls go on until it delivers
	feedLive                         // the stream delivers: no polls
	feedReconnecting                 // a stream that delivered was lost: polls go on while it comes back
	feedPolling                      // streams have not delivered here: polls, and a stream tried now and then
)

const (
	// streamSilence is how long a stream that opened may go without an
	// event before it is taken for held back by a proxy: two heartbeats.
	// The server sends an event as soon as a stream opens.
	streamSilence = 30 * time.Second
	// Reconnections of a stream that delivered wait 1 s, doubling to a
	// minute; retries after streams never delivered wait a minute,
	// doubling to ten.
	reconnectFirst, reconnectMost = time.Second, time.Minute
	retryFirst, retryMost         = time.Minute, 10 * time.Minute
)

// liveFeed is the state of a chart's stream. It decides; the chart opens,
// closes and reopens the browser's EventSource as told.
type liveFeed struct {
	mode      feedMode
	delivered bool      // a stream has delivered an event to this chart
	opened    time.Time // when the server answered the current stream; zero: not yet
	heard     bool      // the current stream has delivered an event
	errors    int       // errors of the current stream since its last event
	failures  int       // streams in a row closed without delivering, for the backoff
}

// start is a new stream of the chart's series opening.
func (f *liveFeed) start() {
	f.opened, f.heard, f.errors = time.Time{}, false, 0
}

// open is the server answering the current stream.
func (f *liveFeed) open(now time.Time) { f.opened = now }

// event is the current stream delivering.
func (f *liveFeed) event() {
	f.mode, f.delivered, f.heard, f.errors, f.failures = feedLive, true, true, 0, 0
}

// stop is the chart's series having nothing to stream (the venue does not
// know its contract): no badge, and no reconnection, until a stream of
// another view, or a retry's, opens. Where streams never deliver the chart
// keeps polling, and says so.
func (f *liveFeed) stop() {
	if f.mode != feedPolling {
		f.mode = feedStarting
	}
}

// unsupported is a browser without EventSource: polls only.
func (f *liveFeed) unsupported() { f.mode = feedPolling }

// fail is the current stream failing; closed when the browser gave up on
// it (the server refused it). It returns whether to close the stream and,
// if so, when to open another; jitter, in [0, 1), spreads the reopenings of
// many browsers.
func (f *liveFeed) fail(closed bool, jitter float64) (reopenIn time.Duration, close bool) {
	f.errors++
	if !f.delivered {
		return f.retryLater(jitter) // no stream has worked here
	}
	f.mode = feedReconnecting
	if !closed && f.errors == 1 && f.heard {
		return 0, false // the browser reconnects at once, saying the last event it got
	}
	return f.backoff(reconnectFirst, reconnectMost, jitter), true
}

// silent reports whether the current stream opened over streamSilence ago
// and has delivered nothing since, as when a proxy holds its events back;
// if so, the chart closes it, polls, and opens another after reopenIn.
func (f *liveFeed) silent(now time.Time, jitter float64) (reopenIn time.Duration, close bool) {
	if f.opened.IsZero() || f.heard || now.Sub(f.opened) < streamSilence {
		return 0, false
	}
	return f.retryLater(jitter)
}

// retryLater is streams that do not deliver here: the chart polls, and
// tries another stream now and then.
func (f *liveFeed) retryLater(jitter float64) (reopenIn time.Duration, close bool) {
	f.mode = feedPolling
	return f.backoff(retryFirst, retryMost, jitter), true
}

// backoff is the wait before the next stream: first, doubling with each
// failure in a row up to most, drawn from its upper half (backoffDelay).
func (f *liveFeed) backoff(first, most time.Duration, jitter float64) time.Duration {
	d := backoffDelay(f.failures, first, most, jitter)
	f.failures++
	return d
}

// polls reports whether the chart asks for its newest candle itself.
func (f *liveFeed) polls() bool { return f.mode != feedLive }

// liveState is the badge that says how the chart's newest candle arrives:
// nothing while the first stream opens. It sits in the chart's notes, a
// polite live region, so a change is read out without interrupting.
func liveState(mode feedMode) app.UI {
	var state, text, title string
	switch mode {
	case feedLive:
		state, text, title = "live", "Live", "The server pushes each change of the newest candle"
	case feedReconnecting:
		state, text, title = "reconnecting", "Reconnecting…", "The live stream was lost; the chart asks every few seconds until it is back"
	case feedPolling:
		state, text, title = "polling", "Polling", "Live streaming does not work here; the chart asks for the newest candle every few seconds"
	default:
		return nil
	}
	return app.Span().ID("live-state").Class("badge live-state "+state).DataSet("state", state).Title(title).Text(text)
}
