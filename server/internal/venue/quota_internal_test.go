package venue

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAWaiterThatGivesUpReturnsItsTurn(t *testing.T) {
	q := newQuota(Quota{Requests: 1, Per: time.Minute})
	if err := q.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- q.wait(ctx) }()
	for reserved := false; !reserved; {
		q.mu.Lock()
		reserved = q.sent[0].After(time.Now())
		q.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the cancellation", err)
	}
	short, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	var rl *RateLimitedError
	if err := q.wait(short); !errors.As(err, &rl) || rl.RetryAfter > q.window {
		t.Fatalf("error %v: the next turn should be one window after the first call, not two", err)
	}
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
