package gateway

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// testClock is a settable clock for the caches' own tests.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A held answer stands in only for a venue failing, busy, limiting us or
// too slow (docs/decisions.md#stale-answers): a key the venue now refuses
// is the operator's to fix, and is said, not hidden behind the last answer.
func TestAHeldPrivateAnswerStandsInOnlyForAVenueFailing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		wantStale bool
	}{
		{"the venue failing", &venue.UnavailableError{Op: "GET tiers", HTTPStatus: 503}, true},
		{"the venue busy", &venue.RejectedError{Code: venueapi.CodeBusy}, true},
		{"the venue limiting us", &venue.RateLimitedError{RetryAfter: time.Second, Venue: true}, true},
		{"the key refused", &venue.AuthError{Code: venueapi.CodeForbidden, Message: "unknown key"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &testClock{t: time.Unix(1_800_000_000, 0)}
			c := newTTLCache(time.Minute, time.Second, time.Second, clk.now, NewDetached())
			if v, stale, err := c.get(context.Background(), "k", func(context.Context) (any, error) { return "held", nil }); v != "held" || stale || err != nil {
				t.Fatalf("the first get: %v, stale %v, %v", v, stale, err)
			}
			clk.advance(2 * time.Minute)
			v, stale, err := c.get(context.Background(), "k", func(context.Context) (any, error) { return nil, tc.err })
			if !errors.Is(err, tc.err) || stale != tc.wantStale || (v == "held") != tc.wantStale {
				t.Fatalf("got %v, stale %v, error %v; want stale %v with the error %v", v, stale, err, tc.wantStale, tc.err)
			}
		})
	}
}

// A refusal kept (an unknown contract) is no answer to stand in: past its
// TTL a browser waits for the venue as one with nothing held does, rather
// than for staleAfter only and then an error.
func TestAKeptRefusalIsNoReasonToStopWaitingForTheVenue(t *testing.T) {
	clk := &testClock{t: time.Unix(1_800_000_000, 0)}
	c := newTTLCache(time.Minute, 5*time.Second, 20*time.Millisecond, clk.now, NewDetached())
	refused := &venue.NotFoundError{Code: 1013, Message: "no such contract"}
	if _, _, err := c.get(context.Background(), "k", func(context.Context) (any, error) { return nil, refused }); !errors.Is(err, refused) {
		t.Fatalf("the first get: %v", err)
	}
	clk.advance(2 * time.Minute)
	v, stale, err := c.get(context.Background(), "k", func(context.Context) (any, error) {
		time.Sleep(200 * time.Millisecond) // ten times staleAfter
		return "listed now", nil
	})
	if v != "listed now" || stale || err != nil {
		t.Fatalf("got %v, stale %v, %v; want the venue's answer, waited for", v, stale, err)
	}
}

// The call a caller starts first asks held for a fresh answer: one kept
// by a call that ended just before costs no second venue call.
func TestASharedCallAnswersWhatIsHeldWithoutCallingTheVenue(t *testing.T) {
	calls := sharedCalls{life: NewDetached()}
	held := func() (any, bool, error) { return "kept", true, nil }
	v, err := calls.do(context.Background(), "k", time.Second, 0, held, func(context.Context) (any, error) {
		t.Error("the venue was called for an answer held")
		return "fetched", nil
	})
	if v != "kept" || err != nil {
		t.Fatalf("got %v, %v; want the held answer", v, err)
	}
}
