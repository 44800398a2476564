package components

import (
	"errors"
	"testing"
	"time"

	"github.com/riskchart/riskchart/app/api"
)

// The one backoff (docs/architecture.md#backing-off): first, doubling
// with each failure in a row up to most, drawn from the upper half by the
// jitter, and never before the server's Retry-After.
func TestRetryDelayBacksOffAndNeverComesBeforeRetryAfter(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		name       string
		failures   int
		jitter     float64
		retryAfter time.Duration
		want       time.Duration
	}{
		{"the first failure, no jitter", 0, 0, 0, s / 2},
		{"the first failure, most jitter", 0, 0.999, 0, s/2 + time.Duration(0.999*float64(s/2))},
		{"the second failure", 1, 0, 0, s},
		{"the third failure, half jitter", 2, 0.5, 0, 3 * s},
		{"capped at most", 9, 0, 0, 30 * s},
		{"capped at most, most jitter", 9, 0.999, 0, 30*s + time.Duration(0.999*float64(30*s))},
		{"past the shift's bound", 1000, 0, 0, 30 * s},
		{"negative failures count as none", -3, 0, 0, s / 2},
		{"a Retry-After longer than the backoff", 0, 0, 12 * s, 12 * s},
		{"a Retry-After spread over its next quarter", 0, 0.5, 12 * s, 12*s + 1500*time.Millisecond},
		{"a backoff longer than the Retry-After", 8, 0, 2 * s, 30 * s},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryDelay(tt.failures, s, time.Minute, tt.jitter, tt.retryAfter); got != tt.want {
				t.Errorf("retryDelay(%d, 1s, 1m, %v, %v) = %v, want %v", tt.failures, tt.jitter, tt.retryAfter, got, tt.want)
			}
			if got := retryDelay(tt.failures, s, time.Minute, tt.jitter, tt.retryAfter); got < tt.retryAfter {
				t.Errorf("retryDelay came before the Retry-After %v: %v", tt.retryAfter, got)
			}
		})
	}
}

// A chart's polls back off after failures in a row, wait at least the
// server's Retry-After, and go back to the chart's pace after a success.
func TestAChartsPollsBackOffAndHonourRetryAfter(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	busy := errors.New("venue busy")
	for _, tt := range []struct {
		name       string
		pace       time.Duration
		failures   int // before this one
		jitter     float64
		retryAfter time.Duration
		lo, hi     time.Duration // the wait after this failure, inclusive
	}{
		{"one failure at a second's pace", time.Second, 0, 0, 0, time.Second, time.Second},
		{"one failure, most jitter", time.Second, 0, 0.999, 0, time.Second, 2 * time.Second},
		{"three in a row", time.Second, 2, 0, 0, 4 * time.Second, 4 * time.Second},
		{"many in a row", time.Second, 20, 0.999, 0, 15 * time.Second, 30 * time.Second},
		{"the five seconds' pace", 5 * time.Second, 0, 0, 0, 5 * time.Second, 5 * time.Second},
		{"a 429's Retry-After", time.Second, 0, 0.3, 12 * time.Second, 12 * time.Second, 15 * time.Second},
		{"a Retry-After shorter than the backoff", time.Second, 5, 0, time.Second, 15 * time.Second, 30 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := pollBackoff{failures: tt.failures}
			b.failed(busy, tt.retryAfter, t0, tt.pace, tt.jitter)
			if wait := b.until.Sub(t0); wait < tt.lo || wait > tt.hi {
				t.Errorf("the next poll waits %v, want within [%v, %v]", wait, tt.lo, tt.hi)
			}
			if !b.waits(b.until.Add(-time.Millisecond)) || b.waits(b.until) {
				t.Errorf("waits until %v, not then: wrong either side", b.until)
			}
			if b.failures != tt.failures+1 || b.err != busy {
				t.Errorf("after the failure: %+v", b)
			}
		})
	}
	var zero pollBackoff
	if zero.waits(t0) {
		t.Error("a chart whose polls have not failed waits")
	}
}

// A panel's failed refresh is tried again after the backoff, sooner than its
// pace but doubling with failures in a row, never before the server's
// Retry-After, and at the pace again after a success; its state line says
// when.
func TestAFailedRefreshBacksOffAndWaitsTheServersRetryAfter(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	busy := errors.New("venue busy")
	limited := &api.AnswerError{Doing: "fetching position limits", Status: 429, Code: 1032, Msg: "too many requests from this client: retry in 12s", RetryAfter: 12 * time.Second}
	for _, tt := range []struct {
		name  string
		errs  []error // the failures in a row
		every time.Duration
		due   time.Duration // after the last failure, with jitter 0
	}{
		{"one failure", []error{busy}, time.Minute, retryFailed},
		{"two in a row", []error{busy, busy}, time.Minute, 2 * retryFailed},
		{"four in a row", []error{busy, busy, busy, busy}, time.Minute, 8 * retryFailed},
		{"many in a row, capped at the pace", []error{busy, busy, busy, busy, busy, busy, busy, busy}, 10 * time.Second, 10 * time.Second},
		{"a 429's Retry-After past the backoff", []error{limited}, 10 * time.Second, 12 * time.Second},
		{"a 429's Retry-After past the pace", []error{limited}, 5 * time.Second, 12 * time.Second},
		{"the Retry-After of the last failure only", []error{limited, busy}, time.Minute, 2 * retryFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f fetchState
			at := t0
			for _, err := range tt.errs {
				f.start()
				f.done(err, false, at, 0)
				at = at.Add(time.Second)
			}
			last := f.triedAt
			if f.due(last.Add(tt.due-time.Millisecond), tt.every) || !f.due(last.Add(tt.due), tt.every) {
				t.Errorf("due %v after the last failure? wait %v", tt.due, f.retryWait(tt.every))
			}
			f.start()
			f.done(nil, false, last.Add(tt.due), 0)
			if f.retryWait(tt.every) != tt.every || f.failures != 0 {
				t.Errorf("after a success the next refresh waits %v (failures %d), want the pace %v", f.retryWait(tt.every), f.failures, tt.every)
			}
		})
	}
}
