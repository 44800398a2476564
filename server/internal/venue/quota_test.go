package venue_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestACallWhoseTurnComesAfterItsDeadlineFailsAtOnceWithoutARequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := canned(t, 200, nil, klineOK)
		c := srv.client(t, func(c *venue.Config) { c.PublicQuota = venueapi.Limit{Requests: 2, Per: time.Minute} })
		for range 2 {
			if err := endpoints[0].call(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := endpoints[0].call(ctx, c)
		var rl *venue.RateLimitedError
		if !errors.As(err, &rl) || rl.Venue || rl.RetryAfter < 50*time.Second {
			t.Fatalf("error %v, want our quota's refusal with the wait (about a minute)", err)
		}
		if ctx.Err() != nil || srv.n.Load() != 2 {
			t.Fatalf("the refusal came after the deadline (%v) or a request was sent (%d)", ctx.Err(), srv.n.Load())
		}
		private, public := c.QuotaStatus()
		if private != (venue.QuotaState{Quota: venueapi.Limit{Requests: 72, Per: 3 * time.Second}, Available: 72}) ||
			public != (venue.QuotaState{Quota: venueapi.Limit{Requests: 2, Per: time.Minute}}) {
			t.Fatalf("quota status %+v and %+v", private, public)
		}
	})
}

// A turn that comes at the deadline itself leaves the call no time to be
// sent: it is refused as one after it is, at once and with the wait, not
// waited for until the deadline ends the call.
func TestACallWhoseTurnComesAtItsDeadlineFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := canned(t, 200, nil, klineOK)
		limit := venueapi.Limit{Requests: 1, Per: time.Minute}
		c := srv.client(t, func(c *venue.Config) { c.PublicQuota = limit })
		if err := endpoints[0].call(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), venue.TurnWindow(limit))
		defer cancel()
		err := endpoints[0].call(ctx, c)
		var rl *venue.RateLimitedError
		if !errors.As(err, &rl) || rl.Venue || rl.RetryAfter != venue.TurnWindow(limit) {
			t.Fatalf("error %v, want our quota's refusal with the wait (%v)", err, venue.TurnWindow(limit))
		}
		if ctx.Err() != nil || srv.n.Load() != 1 {
			t.Fatalf("the refusal came at the deadline (%v) or a request was sent (%d)", ctx.Err(), srv.n.Load())
		}
	})
}

func TestACallWaitsForItsTurnAndTheVenueNeverSeesMoreThanTheQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const per = 250 * time.Millisecond
		var mu sync.Mutex
		var arrivals []time.Time
		srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int64) {
			mu.Lock()
			arrivals = append(arrivals, time.Now())
			mu.Unlock()
			w.Write([]byte(klineOK))
		})
		// A frozen signing clock must not stop the quota: it runs on real time.
		frozen := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		c := srv.client(t, func(c *venue.Config) {
			c.PublicQuota = venueapi.Limit{Requests: 2, Per: per}
			c.Now = func() time.Time { return frozen }
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Go(func() { errs[i] = endpoints[0].call(ctx, c) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		for i := 2; i < len(arrivals); i++ {
			if gap := arrivals[i].Sub(arrivals[i-2]); gap < per {
				t.Fatalf("requests %d and %d arrived %s apart: 3 in a window of %s", i-1, i+1, gap, per)
			}
		}
	})
}

func TestABurstGetsTheQuotaAndTheRestAreRefusedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := canned(t, 200, nil, tiersOK)
		c := srv.client(t, func(c *venue.Config) { c.PrivateQuota = venueapi.Limit{Requests: 5, Per: time.Minute} })
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range errs {
			wg.Go(func() { errs[i] = endpoints[1+i%2].call(ctx, c) }) // tiers and limits share the quota
		}
		wg.Wait()
		refused := 0
		for _, err := range errs {
			var rl *venue.RateLimitedError
			switch {
			case errors.As(err, &rl) && !rl.Venue:
				refused++
			case err != nil:
				t.Fatal(err)
			}
		}
		if refused != 15 || srv.n.Load() != 5 {
			t.Fatalf("%d refused, %d sent; want 15 refused and 5 sent", refused, srv.n.Load())
		}
		if err := endpoints[0].call(ctx, c); err != nil {
			t.Fatalf("the public quota is spent by private calls: %v", err)
		}
	})
}

func TestTheVenueSayingItsWindowIsSpentHoldsFurtherCalls(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
	}{
		{"a 429", 429, map[string]string{"ratelimit-reset": "60000"}, `{"code":1032,"message":"too many","data":null,"ts":1}`},
		{"ratelimit-remaining 0 on a success", 200, map[string]string{"ratelimit-remaining": "0", "ratelimit-reset": "60000"}, tiersOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := serve(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
					if r.URL.Path == venueapi.PathKLine {
						w.Write([]byte(klineOK))
						return
					}
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					w.WriteHeader(tt.status)
					w.Write([]byte(tt.body))
				})
				c := srv.client(t, nil)
				callNamed(t, "tiers")(context.Background(), c)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := callNamed(t, "limits")(ctx, c)
				var rl *venue.RateLimitedError
				if !errors.As(err, &rl) || rl.Venue || rl.RetryAfter < 50*time.Second || srv.n.Load() != 1 {
					t.Fatalf("error %v after %d requests, want our refusal until the venue's reset and nothing sent", err, srv.n.Load())
				}
				if private, _ := c.QuotaStatus(); private.Available != 0 {
					t.Fatalf("%v private requests said available while the venue holds us", private.Available)
				}
				if err := endpoints[0].call(ctx, c); err != nil {
					t.Fatalf("a private hold stopped a public call: %v", err)
				}
			})
		})
	}
}

// docs/decisions.md#client-quota: when the venue says its window is spent,
// nothing more is sent on that quota until ratelimit-reset, not even a turn
// reserved before it said so; a caller whose deadline comes first is refused
// as over the quota, as for any turn after its deadline.
func TestATurnReservedBeforeThePauseIsNotSentUntilThePauseEnds(t *testing.T) {
	const (
		answerIn = 50 * time.Millisecond // the first answer's, so that B reserves before it comes
		reset    = time.Second           // ratelimit-reset: milliseconds (docs/venue.md)
	)
	tests := []struct {
		name     string
		deadline time.Duration // B's, from the start; its turn is a window (220 ms) after A's
		wantSent bool
	}{
		{"B's deadline lets it wait: sent once the pause has ended", 5 * time.Second, true},
		{"B's deadline comes before the pause ends: refused, nothing sent", 500 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var arrivals []time.Time
				var answered time.Time // when the first answer, the pause, went out
				srv := serve(t, func(w http.ResponseWriter, _ *http.Request, n int64) {
					mu.Lock()
					arrivals = append(arrivals, time.Now())
					mu.Unlock()
					if n == 1 {
						time.Sleep(answerIn)
						w.Header().Set("ratelimit-remaining", "0")
						w.Header().Set("ratelimit-reset", strconv.Itoa(int(reset.Milliseconds())))
						answered = time.Now()
					}
					w.Write([]byte(klineOK))
				})
				c := srv.client(t, func(c *venue.Config) { c.PublicQuota = venueapi.Limit{Requests: 1, Per: 200 * time.Millisecond} })
				start := time.Now()
				var errA, errB error
				var wg sync.WaitGroup
				wg.Go(func() { errA = endpoints[0].call(context.Background(), c) })
				synctest.Wait() // A has its turn and waits for its answer
				wg.Go(func() {
					ctx, cancel := context.WithDeadline(context.Background(), start.Add(tt.deadline))
					defer cancel()
					errB = endpoints[0].call(ctx, c)
				})
				wg.Wait()
				if errA != nil {
					t.Fatalf("A: %v", errA)
				}
				mu.Lock()
				defer mu.Unlock()
				if !tt.wantSent {
					var rl *venue.RateLimitedError
					if !errors.As(errB, &rl) || rl.Venue || len(arrivals) != 1 {
						t.Fatalf("B: %v after %d requests; want our quota's refusal and nothing sent", errB, len(arrivals))
					}
					return
				}
				if errB != nil || len(arrivals) != 2 {
					t.Fatalf("B: %v after %d requests", errB, len(arrivals))
				}
				if ends := answered.Add(reset); arrivals[1].Before(ends) {
					t.Fatalf("B reached the venue %s after A's answer, inside the %s pause it asked for", arrivals[1].Sub(answered), reset)
				}
			})
		})
	}
}
