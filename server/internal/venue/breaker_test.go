package venue_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// maxTrials bounds the trials an open breaker may send within d: one per
// wait, each wait at least half of its step, the steps doubling from 1 s.
func maxTrials(d, ceiling time.Duration) int {
	n, step := 0, time.Second
	for at := step / 2; at <= d; at += step / 2 {
		n++
		step = min(2*step, ceiling)
	}
	return n
}

// breakerOf returns the state of the breaker named name.
func breakerOf(t *testing.T, c *venue.Client, name string) venue.BreakerState {
	t.Helper()
	for _, b := range c.Breakers() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no breaker %q in %+v", name, c.Breakers())
	return venue.BreakerState{}
}

// pollResult is what polling a call saw.
type pollResult struct {
	calls, refused, slowRefusals int
	last                         error
}

// poll makes call every interval for d (each call waiting for the last),
// counting the calls refused unsent and those of them that took any time.
func poll(d, interval time.Duration, call func() error) pollResult {
	var r pollResult
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(interval) {
		start := time.Now()
		r.last = call()
		r.calls++
		if errors.As(r.last, new(*venue.CircuitOpenError)) {
			r.refused++
			if time.Since(start) > 0 {
				r.slowRefusals++
			}
		}
	}
	return r
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// recoverBy polls call every interval until it succeeds and returns when.
func recoverBy(t *testing.T, interval time.Duration, call func() error) time.Time {
	t.Helper()
	for end := time.Now().Add(10 * time.Minute); time.Now().Before(end); time.Sleep(interval) {
		if call() == nil {
			return time.Now()
		}
	}
	t.Fatal("never recovered")
	return time.Time{}
}

func TestAFailingEndpointGetsOneRequestPerWaitAndIsBackOnTheFirstTrialAfterItHeals(t *testing.T) {
	const over, every = 30 * time.Second, 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		fault sandbox.Fault
	}{
		{"answers that are not its envelope", sandbox.Fault{RateMalformed: 1}},
		{"connections closed mid-answer", sandbox.Fault{RateHangup: 1}},
		{"5xx", sandbox.Fault{Rate5xx: 1}},
		{"answers slower than the timeout", sandbox.Fault{Latency: 5 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, sb, _ := startSandbox(t, sandbox.Config{}, func(c *venue.Config) { c.Retries = 0 }) // the default: two retries
				kline := func() error { return endpoints[0].call(context.Background(), c) }
				if err := kline(); err != nil {
					t.Fatal(err)
				}
				sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": tc.fault}})
				before := sb.Received(venueapi.PathKLine)
				r := poll(over, every, kline)
				sent := sb.Received(venueapi.PathKLine) - before
				// The first failing call and its two retries, then one trial per wait.
				if limit := int64(3 + maxTrials(over, 30*time.Second)); sent > limit || r.refused == 0 || r.slowRefusals > 0 {
					t.Fatalf("%d calls in %s: %d requests (at most %d), %d refused unsent, %d of them not at once", r.calls, over, sent, limit, r.refused, r.slowRefusals)
				}
				t.Logf("%d calls in %s: %d requests, %d refused unsent", r.calls, over, sent, r.refused)
				var un *venue.UnavailableError
				if !errors.As(r.last, &un) {
					t.Fatalf("a call refused unsent returned %v, want the *UnavailableError the gateway serves stale answers for", r.last)
				}
				st := breakerOf(t, c, "kline")
				if !st.Open || st.Trials == 0 || st.Refused != uint64(r.refused) {
					t.Fatalf("state %+v after %d refusals", st, r.refused)
				}
				sb.SetFaults(sandbox.Faults{})
				healed := time.Now()
				back := recoverBy(t, every, kline)
				if due := later(st.Next, healed).Add(every); back.After(due) {
					t.Fatalf("back %s after healing, want by the trial due %s after", back.Sub(healed), due.Sub(healed))
				}
				if st := breakerOf(t, c, "kline"); st.Open {
					t.Fatalf("still open after a trial succeeded: %+v", st)
				}
			})
		})
	}
}

func TestARefusalUnsentSaysWhatTheVenueLastSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sb, _ := startSandbox(t, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Latency: 5 * time.Second}}}}, nil)
		first := endpoints[0].call(context.Background(), c)
		refused := endpoints[0].call(context.Background(), c)
		var open *venue.CircuitOpenError
		if !errors.As(refused, &open) || open.Breaker != "kline" || open.Retry <= 0 || open.Retry > time.Second ||
			!errors.Is(first, context.DeadlineExceeded) || !errors.Is(refused, context.DeadlineExceeded) || sb.Received(venueapi.PathKLine) != 1 {
			t.Fatalf("first %v, then %v after %d requests; want the timeout again, unsent, with the wait", first, refused, sb.Received(venueapi.PathKLine))
		}
	})
}

func TestCircuitsArePerEndpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sb, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys, Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: {Rate5xx: 1}}}}, nil)
		ctx := context.Background()
		for range 5 {
			endpoints[0].call(ctx, c)
			for _, e := range endpoints[1:] {
				if err := e.call(ctx, c); err != nil {
					t.Fatalf("%s with the kline endpoint failing: %v", e.name, err)
				}
			}
		}
		if n := sb.Received(venueapi.PathKLine); n != 1 {
			t.Fatalf("%d kline requests, want 1: its circuit is open", n)
		}
		for _, b := range c.Breakers() {
			if b.Open != (b.Name == "kline") {
				t.Fatalf("%+v", c.Breakers())
			}
		}
	})
}

func TestOneFailedRequestStopsAHealthyEndpointForAtMostTheFirstWait(t *testing.T) {
	t.Run("with retries, the call succeeds and nothing opens", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := failingFirst(t, 1, 503, nil, "", klineOK)
			c := srv.client(t, func(c *venue.Config) { c.Retries = 2 })
			if err := endpoints[0].call(context.Background(), c); err != nil || breakerOf(t, c, "kline").Open {
				t.Fatalf("error %v, state %+v", err, breakerOf(t, c, "kline"))
			}
		})
	})
	t.Run("without retries, the next second is refused, then it is back", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := failingFirst(t, 1, 503, nil, "", klineOK)
			c := srv.client(t, nil)
			failed := time.Now()
			endpoints[0].call(context.Background(), c)
			back := recoverBy(t, 10*time.Millisecond, func() error { return endpoints[0].call(context.Background(), c) })
			if d := back.Sub(failed); d > time.Second+10*time.Millisecond || srv.n.Load() != 2 {
				t.Fatalf("back after %s and %d requests, want within the first wait (1 s) and 2", d, srv.n.Load())
			}
		})
	})
}

func TestAnOpenBreakerSendsOneTrialAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sb, _ := startSandbox(t, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}}}, nil)
		endpoints[0].call(context.Background(), c)
		time.Sleep(time.Until(breakerOf(t, c, "kline").Next))
		sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Latency: time.Second, Rate5xx: 1}}})
		var wg sync.WaitGroup
		var refused atomic.Int64
		for range 20 {
			wg.Go(func() {
				if errors.As(endpoints[0].call(context.Background(), c), new(*venue.CircuitOpenError)) {
					refused.Add(1)
				}
			})
		}
		wg.Wait()
		if n := sb.Received(venueapi.PathKLine); n != 2 || refused.Load() != 19 {
			t.Fatalf("%d requests and %d refused, want the first, one trial, and 19 refused", n, refused.Load())
		}
	})
}

func TestARefusedKeyStopsEverySignedCallUntilAProbeGetsThrough(t *testing.T) {
	const over, every = 30 * time.Second, 100 * time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		// A clock ten minutes fast signs timestamps the venue refuses (1253),
		// and can be set right: a refusal the test can switch off.
		var skew atomic.Int64
		skew.Store(int64(10 * time.Minute))
		c, sb, other := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, func(c *venue.Config) {
			c.Retries = 0
			c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
		})
		i := 0
		r := poll(over, every, func() error {
			i++
			return endpoints[1+i%2].call(context.Background(), c)
		})
		sent := sb.Received(venueapi.PathTiers) + sb.Received(venueapi.PathPositionLimit)
		if limit := int64(1 + maxTrials(over, 5*time.Minute)); sent > limit || r.refused == 0 || r.slowRefusals > 0 {
			t.Fatalf("%d calls in %s: %d requests (at most %d), %d refused unsent, %d of them not at once", r.calls, over, sent, limit, r.refused, r.slowRefusals)
		}
		t.Logf("%d calls in %s: %d requests, %d refused unsent", r.calls, over, sent, r.refused)
		var au *venue.AuthError
		if !errors.As(r.last, &au) || au.Code != venueapi.CodeBadSignature {
			t.Fatalf("a call refused unsent returned %v, want the venue's *AuthError (1253)", r.last)
		}
		if err := endpoints[0].call(context.Background(), c); err != nil {
			t.Fatalf("a refused key stopped a public call: %v", err)
		}
		if err := endpoints[1].call(context.Background(), other(nil)); err != nil {
			t.Fatalf("another client's key was stopped: %v", err)
		}
		st := breakerOf(t, c, venue.KeyBreaker)
		skew.Store(0)
		healed := time.Now()
		back := recoverBy(t, every, func() error { return endpoints[1].call(context.Background(), c) })
		if due := later(st.Next, healed).Add(every); back.After(due) {
			t.Fatalf("back %s after the clock was set right, want by the probe due %s after", back.Sub(healed), due.Sub(healed))
		}
	})
}

func TestAKeyTheVenueRefusesIsNotSentAgainBeforeItsWait(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*venue.Config)
		code   int
	}{
		{"a wrong secret", func(c *venue.Config) { c.SecretKey = "not-the-secret" }, venueapi.CodeBadSignature},
		{"an unknown access key", func(c *venue.Config) { c.AccessKey = "unknown" }, venueapi.CodeForbidden},
		{"a key without read permission", func(c *venue.Config) { c.AccessKey, c.SecretKey = "no-read", "sk2" }, venueapi.CodeForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, sb, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, tc.mutate)
				for i := range 50 {
					err := endpoints[1+i%2].call(context.Background(), c)
					var au *venue.AuthError
					if !errors.As(err, &au) || au.Code != tc.code {
						t.Fatalf("call %d: %v, want the venue's refusal, code %d", i+1, err, tc.code)
					}
				}
				if n := sb.Received(venueapi.PathTiers) + sb.Received(venueapi.PathPositionLimit); n != 1 {
					t.Fatalf("50 signed calls at once sent %d requests, want 1", n)
				}
			})
		})
	}
}

func TestTheVenuesRateLimitHoldsItsBudgetUntilItsReset(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endpoint string
		status   int
		header   map[string]string
		body     string
	}{
		{"1032 at HTTP 200, ratelimit-reset", "kline", 200, map[string]string{"ratelimit-reset": "30000"}, `{"status":"error","err_code":1032,"err_msg":"too many","ts":1}`},
		{"429, Retry-After alone", "kline", 429, map[string]string{"Retry-After": "30"}, ``},
		{"429 on a signed call, ratelimit-reset before Retry-After", "limits", 429, map[string]string{"ratelimit-reset": "30000", "Retry-After": "1"}, `{"status":"error","err_code":1032,"err_msg":"too many","ts":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := failingFirst(t, 1, tc.status, tc.header, tc.body, map[string]string{"kline": klineOK, "limits": limitsOK}[tc.endpoint])
				c := srv.client(t, nil)
				call := callNamed(t, tc.endpoint)
				start := time.Now()
				call(context.Background(), c)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var rl *venue.RateLimitedError
				if err := call(ctx, c); !errors.As(err, &rl) || rl.Venue || rl.RetryAfter < 29*time.Second || srv.n.Load() != 1 {
					t.Fatalf("error %v after %d requests, want our refusal until the venue's reset, unsent", err, srv.n.Load())
				}
				if err := call(context.Background(), c); err != nil || time.Since(start) < 30*time.Second || srv.n.Load() != 2 {
					t.Fatalf("error %v, sent after %s: want it sent once the 30 s have passed", err, time.Since(start))
				}
				for _, b := range c.Breakers() {
					if b.Open {
						t.Fatalf("the venue limiting us opened %+v: that is the quota's to hold", b)
					}
				}
			})
		})
	}
}

// docs/decisions.md#failure-memory: an endpoint's breaker counts what the
// venue failed. A call whose own deadline comes right after its turn leaves
// the venue no time to answer: that is ours, and the breaker stays closed.
// A deadline that gave the venue a fair time (a second) is the venue's
// failure.
func TestOnlyADeadlineThatGaveTheVenueAFairTimeOpensTheBreaker(t *testing.T) {
	tests := []struct {
		name     string
		answerIn time.Duration // the second call's answer
		after    time.Duration // its deadline, after its turn
		wantOpen bool
	}{
		{"a deadline just after the turn, the venue answering in 10 ms", 10 * time.Millisecond, 5 * time.Millisecond, false},
		{"a deadline 1.5 s after the turn, the venue silent for 5 s", 5 * time.Second, 1500 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int64) {
					if n > 1 {
						select {
						case <-time.After(tt.answerIn):
						case <-r.Context().Done():
							return
						}
					}
					w.Write([]byte(klineOK))
				})
				limit := venueapi.Limit{Requests: 1, Per: 100 * time.Millisecond}
				c := srv.client(t, func(c *venue.Config) { c.PublicQuota = limit })
				first := time.Now()
				if err := endpoints[0].call(context.Background(), c); err != nil {
					t.Fatal(err)
				}
				turn := first.Add(venue.TurnWindow(limit))
				ctx, cancel := context.WithDeadline(context.Background(), turn.Add(tt.after))
				defer cancel()
				err := endpoints[0].call(ctx, c)
				var un *venue.UnavailableError
				if !errors.As(err, &un) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("error %v, want the venue unavailable for the deadline", err)
				}
				if open := breakerOf(t, c, venue.EndpointKLine).Open; open != tt.wantOpen {
					t.Fatalf("the kline breaker is open: %v, want %v", open, tt.wantOpen)
				}
			})
		})
	}
}
