package venue_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// failingFirst answers the first n requests with status, headers and body,
// then with ok.
func failingFirst(t *testing.T, n int64, status int, header map[string]string, body, ok string) *venueStub {
	return serve(t, func(w http.ResponseWriter, _ *http.Request, i int64) {
		if i > n {
			io.WriteString(w, ok)
			return
		}
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

func TestWhatIsSafeToRetryIsRetriedUntilItSucceeds(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string
		failures int64
		status   int
		header   map[string]string
		body, ok string
	}{
		{"a 502 without an envelope", "kline", 2, 502, nil, "bad gateway", klineOK},
		{"a 503 with an envelope", "tiers", 2, 503, nil, `{"code":1004,"message":"busy","data":null,"ts":1}`, tiersOK},
		{"a busy venue answering HTTP 200", "limits", 1, 200, nil, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`, limitsOK},
		{"the venue's rate limit, after its reset", "tiers", 1, 429, map[string]string{"ratelimit-reset": "20"}, `{"code":1032,"message":"too many","data":null,"ts":1}`, tiersOK},
		{"a body cut short", "kline", 1, 200, nil, `{"status":"ok","data":[{"id":1,`, klineOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := failingFirst(t, tt.failures, tt.status, tt.header, tt.body, tt.ok)
				c := srv.client(t, func(c *venue.Config) { c.Retries = int(tt.failures) })
				if err := callNamed(t, tt.endpoint)(context.Background(), c); err != nil || srv.n.Load() != tt.failures+1 {
					t.Fatalf("error %v after %d requests, want success on request %d", err, srv.n.Load(), tt.failures+1)
				}
			})
		})
	}
}

func TestRefusalsOfTheRequestOrTheKeyAreNeverRetried(t *testing.T) {
	for _, body := range []string{
		`{"code":1030,"message":"invalid","data":null,"ts":1}`,
		`{"code":1013,"message":"no such contract","data":null,"ts":1}`,
		`{"code":403,"message":"unknown key","data":null,"ts":1}`,
		`{"code":1253,"message":"bad signature","data":null,"ts":1}`,
		`{"code":200,"message":"ok","data":[{"tier":1}],"ts":1}`, // a broken record will not mend
	} {
		t.Run(body, func(t *testing.T) {
			srv := canned(t, 200, nil, body)
			c := srv.client(t, func(c *venue.Config) { c.Retries = 5 })
			if err := callNamed(t, "tiers")(context.Background(), c); err == nil || srv.n.Load() != 1 {
				t.Fatalf("error %v after %d requests, want one request and an error", err, srv.n.Load())
			}
		})
	}
}

func TestRetriesStopWhenTheBudgetIsSpent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := canned(t, 503, nil, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`)
		c := srv.client(t, func(c *venue.Config) { c.Retries = 3 })
		err := endpoints[0].call(context.Background(), c)
		assertErrorLike(t, err, &venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 503})
		if n := srv.n.Load(); n != 4 {
			t.Fatalf("%d requests, want 1 and 3 retries", n)
		}
	})
}

func TestRetriesNeverWaitPastTheDeadline(t *testing.T) {
	t.Run("a reset after the deadline returns the venue's refusal at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := canned(t, 429, map[string]string{"ratelimit-reset": "60000"}, `{"code":1032,"message":"too many","data":null,"ts":1}`)
			c := srv.client(t, func(c *venue.Config) { c.Retries = 5 })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := callNamed(t, "tiers")(ctx, c)
			assertErrorLike(t, err, &venue.RateLimitedError{RetryAfter: time.Minute, Venue: true})
			if ctx.Err() != nil || srv.n.Load() != 1 {
				t.Fatalf("returned after the deadline (%v) or retried (%d requests): nothing could succeed in time", ctx.Err(), srv.n.Load())
			}
		})
	})
	t.Run("a retry due at the deadline is not waited for", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := canned(t, 429, map[string]string{"Retry-After": "1"}, `{"code":1032,"message":"too many","data":null,"ts":1}`)
			c := srv.client(t, func(c *venue.Config) { c.Retries = 5 })
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := callNamed(t, "tiers")(ctx, c)
			var rl *venue.RateLimitedError
			if !errors.As(err, &rl) || !rl.Venue {
				t.Fatalf("error %v, want the venue's refusal", err)
			}
			if ctx.Err() != nil || srv.n.Load() != 1 {
				t.Fatalf("returned at the deadline (%v) or retried (%d requests): a retry at the deadline has no time to be sent", ctx.Err(), srv.n.Load())
			}
		})
	})
	t.Run("a venue that keeps failing gives its last error, not the context's", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := canned(t, 503, nil, ``)
			c := srv.client(t, func(c *venue.Config) { c.Retries = 1000 })
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := endpoints[0].call(ctx, c)
			assertErrorLike(t, err, &venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 503})
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v is the deadline, want the venue's", err)
			}
		})
	})
}

func TestARetryWithoutATurnInTimeGivesTheVenuesError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := canned(t, 503, nil, ``)
		c := srv.client(t, func(c *venue.Config) {
			c.Retries = 3
			c.PublicQuota = venueapi.Limit{Requests: 1, Per: time.Minute}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := endpoints[0].call(ctx, c)
		assertErrorLike(t, err, &venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 503})
		if srv.n.Load() != 1 || ctx.Err() != nil {
			t.Fatalf("%d requests, deadline %v: the retry's turn comes after the deadline, so it must not wait", srv.n.Load(), ctx.Err())
		}
	})
}

// docs/decisions.md#retries: a retry never goes before Retry-After, whatever
// the failure that carries it: a busy venue's 503 says when to come back as
// a 429 does.
func TestARetryNeverGoesBeforeRetryAfter(t *testing.T) {
	tests := []struct {
		name, endpoint string
		status         int
		body, ok       string
	}{
		{"a 503 with the venue's busy envelope", "tiers", 503, `{"code":1004,"message":"busy","data":null,"ts":1}`, tiersOK},
		{"a 503 without an envelope", "kline", 503, "busy", klineOK},
		{"a busy venue answering HTTP 200", "limits", 200, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`, limitsOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var at []time.Time
				srv := serve(t, func(w http.ResponseWriter, _ *http.Request, i int64) {
					at = append(at, time.Now())
					if i > 1 {
						io.WriteString(w, tt.ok)
						return
					}
					w.Header().Set("Retry-After", "3")
					w.WriteHeader(tt.status)
					io.WriteString(w, tt.body)
				})
				c := srv.client(t, func(c *venue.Config) { c.Retries = 2 })
				if err := callNamed(t, tt.endpoint)(context.Background(), c); err != nil || len(at) != 2 {
					t.Fatalf("error %v after %d requests, want success on the second", err, len(at))
				}
				if wait := at[1].Sub(at[0]); wait < 3*time.Second {
					t.Fatalf("retried %s after the venue said Retry-After: 3", wait)
				}
			})
		})
	}
}

// docs/decisions.md#failure-memory: while a breaker is open, one trial goes
// out per wait "and no other until it ends". A call that failed before the
// breaker opened, and waits to retry, stops retrying once another call's
// failure has opened it: its retry would be a second request to an endpoint
// the client has stopped calling.
func TestACallWaitingToRetryStopsWhenAnotherOpensTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int64) {
			w.Header().Set("Retry-After", "1") // every retry waits exactly 1 s: the backoff stays under it
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`)
		})
		c := srv.client(t, func(c *venue.Config) { c.Retries = 2 })
		first := make(chan error, 1)
		go func() { first <- endpoints[0].call(context.Background(), c) }() // sent at 0, 1 and 2 s; opens the breaker at 2 s
		time.Sleep(1500 * time.Millisecond)
		err := endpoints[0].call(context.Background(), c) // sent at 1.5 s; its retry would go at 2.5 s
		if err := <-first; err == nil {
			t.Fatal("the first call succeeded against a venue that only fails")
		}
		assertErrorLike(t, err, &venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: http.StatusServiceUnavailable})
		if n := srv.n.Load(); n != 4 {
			t.Fatalf("%d requests, want 4: the first call's three, and the second's one before the breaker opened", n)
		}
	})
}
