package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestWhenTheVenueFailsACachedAnswerIsServedStaleElseAnActionableError(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fault      sandbox.Fault
		wantStatus int // with nothing cached
		wantInMsg  string
	}{
		{"5xx", sandbox.Fault{Rate5xx: 1}, http.StatusBadGateway, "try again"},
		{"a malformed answer", sandbox.Fault{RateMalformed: 1}, http.StatusBadGateway, "cannot read"},
		{"a hang-up", sandbox.Fault{RateHangup: 1}, http.StatusBadGateway, "try again"},
		{"the venue's rate limit", sandbox.Fault{Rate429: 1}, http.StatusTooManyRequests, "retry in"},
		{"a timeout", sandbox.Fault{Latency: 3 * time.Second}, http.StatusGatewayTimeout, "did not answer in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				clk := newClock(10)
				s := newStack(t, options{clock: clk,
					gateway: func(c *gateway.Config) { c.TierTTL, c.LimitTTL = time.Second, time.Second },
					venue:   func(c *venue.Config) { c.Timeout = 500 * time.Millisecond }, // the timeout case waits this long per call
				})
				now := venueapi.Period1Min.Start(clk.Now().Unix())
				cached := heldPaths(clk.Now())
				s.warm(t, cached...)
				s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": tc.fault}})
				clk.Advance(5 * time.Second) // past the refresh interval and the TTLs
				for _, p := range cached {
					a := s.get(t, p)
					var env struct {
						Stale bool              `json:"stale"`
						Data  []json.RawMessage `json:"data"`
					}
					json.Unmarshal(a.body, &env)
					if a.status != 200 || !env.Stale || a.header.Get("X-Riskchart-Stale") != "true" || len(env.Data) == 0 || a.header.Get("Cache-Control") == "" || strings.Contains(a.header.Get("Cache-Control"), "public") {
						t.Errorf("%s with an answer cached: HTTP %d stale %v header %q Cache-Control %q, %d records", p, a.status, env.Stale, a.header.Get("X-Riskchart-Stale"), a.header.Get("Cache-Control"), len(env.Data))
					}
				}
				for _, p := range []string{
					venueapi.PathKLine + "?contract_code=ETH-USDT&period=1min&size=50",
					venueapi.PathKLine + fmt.Sprintf("?contract_code=ETH-USDT&period=1min&from=%d&to=%d", now-9000, now-6000),
					venueapi.PathTiers + "?contract_code=ETH-USDT",
					venueapi.PathPositionLimit + "?contract_code=ETH-USDT",
				} {
					a := s.get(t, p)
					code, msg := a.errCode(t)
					if a.status != tc.wantStatus || code == 0 || !strings.Contains(msg, tc.wantInMsg) || strings.Contains(msg, "127.0.0.1") {
						t.Errorf("%s with nothing cached: HTTP %d code %d %q, want %d with the venue's envelope saying %q", p, a.status, code, msg, tc.wantStatus, tc.wantInMsg)
					}
					if tc.wantStatus == http.StatusTooManyRequests && a.header.Get("Retry-After") == "" {
						t.Errorf("%s: 429 without Retry-After", p)
					}
				}
				if !strings.Contains(string(s.get(t, "/metrics").body), `riskchart_cache_total{cache="candles",result="stale"} 2`) {
					t.Error("stale answers are not counted")
				}
			})
		})
	}
}

func TestABrowserThatLeavesIsNotKeptWaitingForTheVenue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := sandboxtest.NewNetwork()
		base, sb := sandboxtest.StartOn(t, n, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Latency: time.Minute}}}})
		client := venueOn(t, n, venue.Config{BaseURL: base, Timeout: time.Minute, Retries: -1}, nil)
		h, err := gateway.New(gateway.Config{Venue: client, UpstreamTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest("GET", "http://127.0.0.1"+venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=5", nil).WithContext(ctx)
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), req)
			close(done)
		}()
		synctest.Wait()
		if sb.Received(venueapi.PathKLine) == 0 {
			t.Fatal("the venue call is not under way")
		}
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the handler still waits on the venue after its request ended")
		}
	})
}

func TestNothingPanicsOnAnyAnswerTheVenueGives(t *testing.T) {
	answers := map[string]string{
		"an empty body":            ``,
		"not JSON":                 `<html>oops</html>`,
		"an envelope with no data": `{"status":"ok","ts":1}`,
		"data of the wrong shape":  `{"status":"ok","ts":1,"data":{"id":1}}`,
		"a candle of strings":      `{"status":"ok","ts":1,"data":[{"id":"x","open":"y"}]}`,
		"an error without a code":  `{"status":"error"}`,
		"a tier envelope":          `{"code":200,"message":"ok","data":null,"ts":1}`,
	}
	for name, body := range answers {
		t.Run(name, func(t *testing.T) {
			var asked sync.Map // path → *atomic.Int64: the venue must be reached, or nothing here is tested
			venueSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, _ := asked.LoadOrStore(r.URL.Path, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				w.Write([]byte(body))
			}))
			t.Cleanup(venueSrv.Close)
			client, err := venue.New(venue.Config{BaseURL: venueSrv.URL, AccessKey: "a", SecretKey: "s", Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			h, err := gateway.New(gateway.Config{Venue: client})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{
				venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5",
				venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&from=1700000000&to=1700003000",
				venueapi.PathTiers + "?contract_code=BTC-USDT",
				venueapi.PathPositionLimit,
			} {
				w := httptest.NewRecorder()
				// A loopback Host: another is refused (421) before the venue is asked.
				h.ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1"+p, nil))
				if w.Code != 200 && !bytes.Contains(w.Body.Bytes(), []byte(`"ts":`)) {
					t.Errorf("%s: HTTP %d %s, want an answer or the venue's error envelope", p, w.Code, w.Body)
				}
			}
			for _, path := range []string{venueapi.PathKLine, venueapi.PathPositionLimit, venueapi.PathTiers} {
				if n, ok := asked.Load(path); !ok || n.(*atomic.Int64).Load() == 0 {
					t.Errorf("the venue was never asked on %s: its answer was not tested", path)
				}
			}
		})
	}
}
