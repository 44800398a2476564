package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// The venue client's breakers as the tests read them (docs/decisions.md#failure-memory).
const (
	endpointMaxWait = 30 * time.Second
	keyMaxWait      = 5 * time.Minute
)

// maxTrials bounds the trials an open breaker may send within d: one per
// wait, each wait at least half of its step, the steps doubling from 1 s.
func maxTrials(d, ceiling time.Duration) int64 {
	n, step := int64(0), time.Second
	for at := step / 2; at <= d; at += step / 2 {
		n++
		step = min(2*step, ceiling)
	}
	return n
}

// breakerOf returns the state of the venue client's breaker named name.
func breakerOf(t testing.TB, c *venue.Client, name string) venue.BreakerState {
	t.Helper()
	for _, b := range c.Breakers() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no breaker %q", name)
	return venue.BreakerState{}
}

// readiness is /readyz's answer.
func (s *stack) readiness(t testing.TB) (int, string) {
	t.Helper()
	a := s.get(t, "/readyz")
	var r struct{ Reason string }
	json.Unmarshal(a.body, &r)
	return a.status, r.Reason
}

// laterOf returns the later of a and b.
func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func TestAVenueThatRefusesTheKeyGetsOneCallPerWait(t *testing.T) {
	const over, every = 30 * time.Second, 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		venue func(c *venue.Config, skew *atomic.Int64, clk *clock)
		fix   func(skew *atomic.Int64) // nil: the key stays refused
	}{
		{"a wrong secret", func(c *venue.Config, _ *atomic.Int64, _ *clock) { c.SecretKey = "a-wrong-secret-never-shown" }, nil},
		{"a clock the venue refuses, then set right",
			func(c *venue.Config, skew *atomic.Int64, clk *clock) {
				c.Now = func() time.Time { return clk.Now().Add(time.Duration(skew.Load())) }
			},
			func(skew *atomic.Int64) { skew.Store(0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var skew atomic.Int64
				skew.Store(int64(10 * time.Minute))
				clk := newClock(10)
				var client *venue.Client
				s := newStack(t, options{clock: clk,
					venue: func(c *venue.Config) {
						c.Retries = 0 // the default, two retries, as deployed
						tc.venue(c, &skew, clk)
					},
					gateway: func(c *gateway.Config) { client = c.Venue },
				})
				private := func() int64 { return s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit) }
				paths := []string{venueapi.PathTiers + "?contract_code=BTC-USDT", venueapi.PathPositionLimit + "?contract_code=BTC-USDT"}
				requests, slow := 0, 0
				for start := time.Now(); time.Since(start) < over; time.Sleep(every) {
					a, took := s.timedGet(t, paths[requests%2])
					requests++
					if took > 0 {
						slow++
					}
					if code, msg := a.errCode(t); code != venueapi.CodeForbidden || strings.Contains(msg, "never-shown") {
						t.Fatalf("request %d: HTTP %d code %d %q, want the venue's envelope with 403", requests, a.status, code, msg)
					}
				}
				sent := private()
				if limit := 1 + maxTrials(over, keyMaxWait); sent > limit || slow > 0 {
					t.Fatalf("%d requests in %s: %d venue calls (at most %d), %d answers not at once", requests, over, sent, limit, slow)
				}
				t.Logf("%d browser requests in %s: %d venue calls", requests, over, sent)
				st := breakerOf(t, client, venue.KeyBreaker)
				if status, reason := s.readiness(t); status != http.StatusServiceUnavailable || reason != "the venue refuses the server's key" {
					t.Fatalf("readyz: HTTP %d %q", status, reason)
				}
				if st.Next.After(time.Now()) && private() != sent {
					t.Fatal("readyz called the venue while the key's state was known and no probe was due")
				}
				m := string(s.get(t, "/metrics").body)
				for _, want := range []string{`riskchart_venue_breaker_open{breaker="key"} 1`, `riskchart_venue_breaker_refused_total{breaker="key"}`, `outcome="not_sent"`} {
					if !strings.Contains(m, want) {
						t.Errorf("metrics lack %s", want)
					}
				}
				if tc.fix == nil {
					return
				}
				st = breakerOf(t, client, venue.KeyBreaker)
				tc.fix(&skew)
				fixed := time.Now()
				for {
					if code, _ := s.get(t, paths[0]).errCode(t); code == venueapi.CodeOK {
						break
					}
					time.Sleep(every)
				}
				if due := laterOf(st.Next, fixed).Add(every); time.Now().After(due) {
					t.Fatalf("answered %s after the key was fixed, want by the probe due %s after", time.Since(fixed), due.Sub(fixed))
				}
				if status, reason := s.readiness(t); status != 200 {
					t.Fatalf("readyz after the key was fixed: HTTP %d %q", status, reason)
				}
			})
		})
	}
}

func TestAFailingVenueGetsOneCallPerWaitPerEndpointWhileBrowsersGetStaleAnswers(t *testing.T) {
	const over, every, staleAfter = 30 * time.Second, 100 * time.Millisecond, time.Second
	for _, tc := range []struct {
		name  string
		fault sandbox.Fault
	}{
		{"answers that are not its envelope", sandbox.Fault{RateMalformed: 1}},
		{"connections closed mid-answer", sandbox.Fault{RateHangup: 1}},
		{"answers slower than the upstream timeout", sandbox.Fault{Latency: 6 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := newClock(10)
				var client *venue.Client
				s := newStack(t, options{clock: clk,
					venue: func(c *venue.Config) { c.Retries, c.Timeout = 0, 0 }, // as deployed: two retries, 10 s
					gateway: func(c *gateway.Config) {
						client = c.Venue
						c.TierTTL, c.LimitTTL = time.Second, time.Second // upstream timeout: the default 4 s
					},
				})
				held := map[string]string{
					"kline":          venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=50",
					"tiers":          venueapi.PathTiers + "?contract_code=BTC-USDT",
					"position_limit": venueapi.PathPositionLimit + "?contract_code=BTC-USDT",
				}
				order := []string{"kline", "tiers", "position_limit"}
				for _, name := range order {
					s.warm(t, held[name])
				}
				before := s.venueCalls()
				s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": tc.fault}})
				clk.Advance(5 * time.Second) // past the refresh interval and the TTLs, for good
				requests, waited := 0, 0
				for start := time.Now(); time.Since(start) < over; time.Sleep(every) {
					p := held[order[requests%3]]
					a, took := s.timedGet(t, p)
					requests++
					if took > 0 {
						waited++
					}
					if env, header, n := staleOf(a); a.status != 200 || !env || !header || n == 0 || took > staleAfter {
						t.Fatalf("request %d, %s: HTTP %d stale %v/%v, %d records after %s; want the held answer, stale, within %s", requests, p, a.status, env, header, n, took, staleAfter)
					}
				}
				after := s.venueCalls()
				for _, name := range order {
					path := map[string]string{"kline": venueapi.PathKLine, "tiers": venueapi.PathTiers, "position_limit": venueapi.PathPositionLimit}[name]
					// The first failing call and its two retries, then one trial per wait.
					if n, limit := after[path]-before[path], 3+maxTrials(over, endpointMaxWait); n > limit {
						t.Errorf("%s: %d venue calls in %s, want at most %d", name, n, over, limit)
					} else {
						t.Logf("%s: %d venue calls", name, n)
					}
					if !breakerOf(t, client, name).Open {
						t.Errorf("the %s circuit is closed while the venue fails it", name)
					}
				}
				t.Logf("%d browser requests in %s, %d of them waited (at most %s)", requests, over, waited, staleAfter)
				// Nothing held: the venue's busy envelope, at once, unless this
				// request would be the trial: a held one takes it first.
				if st := breakerOf(t, client, "kline"); !st.Next.After(time.Now()) && !st.Trial {
					s.get(t, held["kline"])
				}
				a, took := s.timedGet(t, venueapi.PathKLine+"?contract_code=ETH-USDT&period=1min&size=50")
				if code, _ := a.errCode(t); a.status < 500 || code != venueapi.CodeBusy || took != 0 {
					t.Fatalf("with nothing held: HTTP %d code %d after %s, want a 5xx with 1004 at once", a.status, code, took)
				}
				kline := breakerOf(t, client, "kline")
				calls := s.venueCalls()[venueapi.PathKLine]
				if status, reason := s.readiness(t); status != http.StatusServiceUnavailable || reason != "the venue's kline endpoint is failing" {
					t.Fatalf("readyz: HTTP %d %q", status, reason)
				}
				if kline.Next.After(time.Now()) && s.venueCalls()[venueapi.PathKLine] != calls {
					t.Fatal("readyz called the venue while the kline circuit was open and no trial was due")
				}
				if m := string(s.get(t, "/metrics").body); !strings.Contains(m, `riskchart_venue_breaker_open{breaker="kline"} 1`) || !strings.Contains(m, `riskchart_venue_breaker_trials_total{breaker="tiers"}`) {
					t.Error("the metrics do not show the open circuits")
				}
				// Heal between trials, so that none under way fails after.
				for trialOut(client) {
					time.Sleep(every)
				}
				var due time.Time
				for _, name := range order {
					due = laterOf(due, breakerOf(t, client, name).Next)
				}
				s.sb.SetFaults(sandbox.Faults{})
				healed := time.Now()
				for _, name := range order {
					for a := s.get(t, held[name]); ; a = s.get(t, held[name]) {
						if env, _, _ := staleOf(a); a.status == 200 && !env {
							break
						}
						time.Sleep(every)
					}
				}
				if by := laterOf(due, healed).Add(every); time.Now().After(by) {
					t.Fatalf("fresh answers %s after the venue healed, want by the trials due %s after", time.Since(healed), by.Sub(healed))
				}
				if status, reason := s.readiness(t); status != 200 {
					t.Fatalf("readyz after the venue healed: HTTP %d %q", status, reason)
				}
			})
		})
	}
}

// trialOut reports whether a breaker of c has a trial call under way.
func trialOut(c *venue.Client) bool {
	for _, b := range c.Breakers() {
		if b.Trial {
			return true
		}
	}
	return false
}

func TestAQueryTheVenueRefusesCostsOneCallPerTTL(t *testing.T) {
	// The gateway checks what the venue checks, so a venue that refuses a
	// query the gateway let through is a stub.
	var calls atomic.Int64
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"status":"error","err_code":1030,"err_msg":"business_type does not match the contract","ts":1}`)
	}))
	t.Cleanup(stub.Close)
	clk := newClock(10)
	s := newStack(t, options{clock: clk,
		venue:   func(c *venue.Config) { c.BaseURL, c.HTTPClient = stub.URL, nil },
		gateway: func(c *gateway.Config) { c.LimitTTL = 5 * time.Second },
	})
	path := venueapi.PathPositionLimit + "?contract_code=BTC-USDT"
	for i := range 10 {
		a := s.get(t, path)
		if code, msg := a.errCode(t); code != venueapi.CodeInvalidInput || !strings.Contains(msg, "business_type") {
			t.Fatalf("request %d: HTTP %d code %d %q, want the venue's 1030", i+1, a.status, code, msg)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("10 identical requests the venue refuses cost %d venue calls, want 1", n)
	}
	clk.Advance(5 * time.Second)
	s.get(t, path)
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d venue calls once the TTL passed, want the query asked again", n)
	}
}
