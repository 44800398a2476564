package venue

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// An open breaker's wait doubles after each failed trial but never passes
// its ceiling, and each wait is jittered over [wait/2, wait).
func TestAFailedTrialDoublesTheWaitUpToTheCeiling(t *testing.T) {
	b := newBreaker("kline", time.Second, 4*time.Second, newJitter())
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fail := errors.New("HTTP 503")
	tk, _ := b.admit(now)
	if opened, _ := tk.done(failure, fail, now); !opened {
		t.Fatal("a failed call did not open the breaker")
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second} {
		if d := b.next.Sub(now); d < want/2 || d >= want {
			t.Fatalf("wait %d: the next trial in %s, want within [%s, %s)", i, d, want/2, want)
		}
		now = b.next
		tk, open := b.admit(now)
		if open != nil || !tk.trial {
			t.Fatalf("wait %d: no trial once the wait passed: %v", i, open)
		}
		tk.done(failure, fail, now)
	}
}

// A call let through before the breaker opened that fails after it opened
// teaches nothing: the wait and the next trial stay as they were.
func TestACallSentBeforeTheBreakerOpenedDoesNotPushItsTrialBack(t *testing.T) {
	b := newBreaker("kline", time.Second, 30*time.Second, newJitter())
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, _ := b.admit(now)
	second, _ := b.admit(now)
	first.done(failure, errors.New("first"), now)
	wait, next := b.wait, b.next
	if opened, closed := second.done(failure, errors.New("second"), now.Add(500*time.Millisecond)); opened || closed {
		t.Fatalf("the second failure opened %v, closed %v", opened, closed)
	}
	if b.wait != wait || !b.next.Equal(next) || b.last.Error() != "first" {
		t.Fatalf("wait %s, next %s, last %v; want %s, %s, first", b.wait, b.next, b.last, wait, next)
	}
}

// Nor does one that fails after a trial has closed the breaker again: the
// endpoint has healed, and its late failure does not stop it for a wait.
func TestACallSentBeforeTheBreakerOpenedDoesNotOpenItAgainOnceClosed(t *testing.T) {
	b := newBreaker("kline", time.Second, 30*time.Second, newJitter())
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, _ := b.admit(now)
	slow, _ := b.admit(now) // three attempts of 10 s each, say
	first.done(failure, errors.New("first"), now)
	now = b.next
	trial, open := b.admit(now)
	if open != nil || !trial.trial {
		t.Fatalf("no trial once the wait passed: %v", open)
	}
	if _, closed := trial.done(success, nil, now); !closed {
		t.Fatal("the trial's success did not close the breaker")
	}
	if opened, _ := slow.done(failure, errors.New("slow"), now.Add(20*time.Second)); opened || b.isOpen() {
		t.Fatalf("the call sent before the breaker opened opened it again (%v) after the trial closed it", opened)
	}
	// A call sent since the close still opens it.
	late, _ := b.admit(now.Add(20 * time.Second))
	if opened, _ := late.done(failure, errors.New("again"), now.Add(21*time.Second)); !opened {
		t.Fatal("a call sent after the close failed and did not open the breaker")
	}
}

func TestTheVenueBeingBusyOpensNoKeyBreaker(t *testing.T) {
	for _, tc := range []struct {
		name          string
		err           error
		key, endpoint verdict
	}{
		{"a success", nil, success, success},
		{"a refused key", &AuthError{Code: venueapi.CodeForbidden}, failure, success},
		{"an unknown contract", &NotFoundError{Code: 1013}, success, success},
		{"a rejected request", &RejectedError{Code: 1030}, success, success},
		{"the venue busy", &RejectedError{Code: venueapi.CodeBusy}, neutral, failure},
		{"the venue failing", &UnavailableError{HTTPStatus: 503}, neutral, failure},
		{"the caller leaving", &UnavailableError{Err: context.Canceled}, neutral, neutral},
		{"the venue limiting us", &RateLimitedError{Venue: true}, neutral, neutral},
	} {
		if k, e := keyVerdict(tc.err), endpointVerdict(tc.err); k != tc.key || e != tc.endpoint {
			t.Errorf("%s: key %d, endpoint %d; want %d, %d", tc.name, k, e, tc.key, tc.endpoint)
		}
	}
}

// A signed call that the key's breaker lets through as its trial, but that
// its endpoint's open breaker stops, sends nothing: the key's trial is
// handed back, for the next signed call to take.
func TestAKeyTrialStoppedByItsEndpointIsHandedBack(t *testing.T) {
	j := newJitter()
	c := &Client{
		key:      newBreaker(KeyBreaker, time.Second, time.Minute, j),
		circuits: map[string]*breaker{venueapi.PathTiers: newBreaker("tiers", time.Second, time.Minute, j)},
		log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	k, _ := c.key.admit(now)
	k.done(failure, &AuthError{Code: venueapi.CodeForbidden}, now)
	e, _ := c.circuits[venueapi.PathTiers].admit(now)
	e.done(failure, &UnavailableError{HTTPStatus: 503}, now)
	// The key's wait has passed, the endpoint's has not.
	c.circuits[venueapi.PathTiers].next = now.Add(time.Hour)
	now = c.key.next
	req := request{method: "GET", path: venueapi.PathTiers, signed: true}
	if _, err := c.admit(req, now); err == nil {
		t.Fatal("a call through an open endpoint was let through")
	}
	if s := c.key.state(); s.Trial {
		t.Fatalf("the key's trial is still out after a call that sent nothing: %+v", s)
	}
	if tk, open := c.key.admit(now); open != nil || !tk.trial {
		t.Fatalf("the next signed call gets no key trial: %v", open)
	}
}
