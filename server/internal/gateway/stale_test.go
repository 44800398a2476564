package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// timedGet is s.get and how long the answer took.
func (s *stack) timedGet(t testing.TB, path string) (reply, time.Duration) {
	t.Helper()
	start := time.Now()
	a := s.get(t, path)
	return a, time.Since(start)
}

// staleOf reads whether an answer says it is stale, in its envelope and its
// header, and how many records it holds.
func staleOf(a reply) (envelope, header bool, records int) {
	var env struct {
		Stale bool              `json:"stale"`
		Data  []json.RawMessage `json:"data"`
	}
	json.Unmarshal(a.body, &env)
	return env.Stale, a.header.Get("X-Riskchart-Stale") == "true", len(env.Data)
}

// venueCalls counts what the venue received on each of its paths.
func (s *stack) venueCalls() map[string]int64 {
	return map[string]int64{
		venueapi.PathKLine:         s.sb.Received(venueapi.PathKLine),
		venueapi.PathTiers:         s.sb.Received(venueapi.PathTiers),
		venueapi.PathPositionLimit: s.sb.Received(venueapi.PathPositionLimit),
	}
}

func TestASlowVenueIsNotWaitedForWhenAnAnswerIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const latency, staleAfter = 6 * time.Second, time.Second
		clk := newClock(10)
		s := newStack(t, options{clock: clk,
			gateway: func(c *gateway.Config) {
				c.TierTTL, c.LimitTTL = time.Second, time.Second
				c.UpstreamTimeout = 10 * time.Second // the slow refresh completes
			},
			venue: func(c *venue.Config) { c.Timeout = 10 * time.Second },
		})
		held := heldPaths(clk.Now())
		s.warm(t, held...)
		s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Latency: latency}}})
		clk.Advance(5 * time.Second) // past the refresh interval and the TTLs
		before := s.venueCalls()
		start := time.Now()
		// Browsers keep asking while the refreshes take their 6 s.
		for round := 0; time.Since(start) < latency-staleAfter; round++ {
			for _, p := range held {
				a, took := s.timedGet(t, p)
				env, header, n := staleOf(a)
				if a.status != 200 || !env || !header || n == 0 || took > staleAfter+200*time.Millisecond {
					t.Fatalf("round %d, %s: HTTP %d stale %v/%v, %d records after %s; want the held answer, stale, within %s",
						round+1, p, a.status, env, header, n, took, staleAfter)
				}
			}
		}
		time.Sleep(latency) // every refresh has come back
		synctest.Wait()
		for _, p := range held {
			a, took := s.timedGet(t, p)
			if env, header, n := staleOf(a); a.status != 200 || env || header || n == 0 || took != 0 {
				t.Fatalf("after the refresh, %s: HTTP %d stale %v/%v, %d records after %s; want the refreshed answer at once", p, a.status, env, header, n, took)
			}
		}
		after := s.venueCalls()
		for path, n := range after {
			if n-before[path] != 1 {
				t.Errorf("%s: %d venue calls while browsers asked, want the one refresh", path, n-before[path])
			}
		}
		// With nothing held, a browser waits for the venue, as before.
		a, took := s.timedGet(t, venueapi.PathKLine+"?contract_code=ETH-USDT&period=1min&size=50")
		if env, _, n := staleOf(a); a.status != 200 || env || n != 50 || took != latency {
			t.Fatalf("with nothing held: HTTP %d stale %v, %d records after %s; want a fresh answer after the venue's %s", a.status, env, n, took, latency)
		}
		if m := string(s.get(t, "/metrics").body); !strings.Contains(m, `riskchart_cache_total{cache="candles",result="stale"}`) {
			t.Error("stale answers are not counted")
		}
	})
}

func TestAStaleAfterLongerThanTheVenueTakesChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStack(t, options{clock: clk,
			gateway: func(c *gateway.Config) {
				c.StaleAfter, c.UpstreamTimeout, c.TierTTL = 3*time.Second, 10*time.Second, time.Second
			},
			venue: func(c *venue.Config) { c.Timeout = 10 * time.Second },
		})
		paths := []string{venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=50", venueapi.PathTiers + "?contract_code=BTC-USDT"}
		for _, p := range paths {
			s.get(t, p)
		}
		s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Latency: 2 * time.Second}}})
		clk.Advance(5 * time.Second)
		for _, p := range paths {
			a, took := s.timedGet(t, p)
			if env, header, _ := staleOf(a); a.status != 200 || env || header || took != 2*time.Second {
				t.Fatalf("%s: HTTP %d stale %v/%v after %s; want the refreshed answer after the venue's 2 s", p, a.status, env, header, took)
			}
		}
	})
}
