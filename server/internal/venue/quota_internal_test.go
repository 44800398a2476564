package venue

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

func TestAWaiterThatGivesUpReturnsItsTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQuota(venueapi.Limit{Requests: 1, Per: time.Minute})
		if err := q.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- q.Wait(ctx) }()
		synctest.Wait()
		q.mu.Lock()
		reserved := q.sent[0].After(time.Now())
		q.mu.Unlock()
		if !reserved {
			t.Fatal("the waiter holds no turn")
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want the cancellation", err)
		}
		short, stop := context.WithTimeout(context.Background(), time.Second)
		defer stop()
		var rl *RateLimitedError
		if err := q.Wait(short); !errors.As(err, &rl) || rl.RetryAfter > q.window {
			t.Fatalf("error %v: the next turn should be one window after the first call, not two", err)
		}
	})
}

func TestBackoffStaysWithinItsCeilingForEveryAttempt(t *testing.T) {
	for attempt := range 200 {
		ceiling := backoffMax
		if attempt < 6 {
			ceiling = backoffBase << attempt
		}
		for range 20 {
			if d := backoff(attempt); d <= 0 || d > ceiling {
				t.Fatalf("backoff(%d) = %s, want within (0, %s]", attempt, d, ceiling)
			}
		}
	}
}

func TestTurnsComeAWindowAfterTheTurnsTheyReuseAndAPauseHoldsThemAll(t *testing.T) {
	q := newQuota(venueapi.Limit{Requests: 2, Per: time.Second})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		name      string
		now, dl   time.Time
		wantDelay time.Duration
		wantOK    bool
	}{
		{"the first turn is now", t0, time.Time{}, 0, true},
		{"so is the second", t0, time.Time{}, 0, true},
		{"the third reuses the first's slot a window later", t0, time.Time{}, q.window, true},
		{"the fourth would come after its deadline and takes nothing", t0, t0.Add(time.Second), q.window, false},
		{"the fourth without a deadline", t0, time.Time{}, q.window, true},
		{"the fifth reuses the third's", t0.Add(q.window), time.Time{}, q.window, true},
	}
	for _, st := range steps {
		if _, d, ok := q.reserve(st.now, st.dl); d != st.wantDelay || ok != st.wantOK {
			t.Fatalf("%s: a turn in %s (%v), want %s (%v)", st.name, d, ok, st.wantDelay, st.wantOK)
		}
	}
	if s := q.State(t0.Add(2 * q.window)); s.Available != 1 || s.Quota != q.q {
		t.Fatalf("state %+v two windows on, want one request available", s)
	}
	if s := q.State(t0.Add(2*q.window + q.q.Per)); s.Available != 1 {
		t.Fatalf("%v available a period after a turn, want 1: a turn counts a whole window, margin included", s.Available)
	}
	q.Pause(context.Background(), t0.Add(2*q.window), time.Minute)
	if s := q.State(t0.Add(3 * q.window)); s.Available != 0 {
		t.Fatalf("%v available while the venue holds us", s.Available)
	}
	if _, d, _ := q.reserve(t0.Add(2*q.window), time.Time{}); d != time.Minute {
		t.Fatalf("a turn in %s during a pause of a minute", d)
	}
}

func TestACancelledTurnIsTakenAgainUnlessALaterOneWasTaken(t *testing.T) {
	q := newQuota(venueapi.Limit{Requests: 1, Per: time.Second})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q.reserve(t0, time.Time{})
	r, _, _ := q.reserve(t0, time.Time{})
	r.cancel()
	if _, d, _ := q.reserve(t0, time.Time{}); d != q.window {
		t.Fatalf("after a cancel the next turn is in %s, want one window", d)
	}
	later, _, _ := q.reserve(t0, time.Time{})
	r.cancel() // the turn after it is taken: it stays spent
	if _, d, _ := q.reserve(t0, time.Time{}); d != 3*q.window || later.at != t0.Add(2*q.window) {
		t.Fatalf("a turn in %s, want three windows: a cancel behind a later turn gives nothing back", d)
	}
}

func TestATurnReachedLateIsGivenBackAndAnotherTaken(t *testing.T) {
	q := newQuota(venueapi.Limit{Requests: 2, Per: time.Second}) // margin 100 ms: late after 50 ms
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, _, _ := q.reserve(t0, time.Time{})
	second, delay, _ := q.reserve(t0, time.Time{})
	if delay != 0 {
		t.Fatalf("the second of two turns waits %s", delay)
	}
	for _, c := range []struct {
		after time.Duration
		late  bool
	}{{0, false}, {-time.Millisecond, false}, {45 * time.Millisecond, false}, {55 * time.Millisecond, true}, {time.Second, true}} {
		if got := TooLate(q.q, second.at, t0.Add(c.after)); got != c.late {
			t.Errorf("late %s after the turn = %v, want %v", c.after, got, c.late)
		}
	}
	// Given back, the late turn frees its slot: the next turn is taken at
	// once, and the window still holds the first turn and that one.
	second.cancel()
	at := t0.Add(80 * time.Millisecond)
	if _, delay, ok := q.reserve(at, time.Time{}); !ok || delay != 0 {
		t.Errorf("the turn after a late one given back: delay %s, ok %v; want at once", delay, ok)
	}
	if _, delay, _ := q.reserve(at, time.Time{}); delay != first.at.Add(q.window).Sub(at) {
		t.Errorf("a third turn waits %s, want until the first leaves the window", delay)
	}
}
