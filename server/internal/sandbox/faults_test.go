package sandbox_test

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

func TestFaults_AreOffByDefault_AndInjectedPerPath(t *testing.T) {
	tests := []struct {
		name  string
		fault sandbox.Fault
		check func(t *testing.T, res *http.Response, err error)
	}{
		{"5xx answers 503 with the busy code", sandbox.Fault{Rate5xx: 1}, func(t *testing.T, res *http.Response, err error) {
			b := string(sandboxtest.Body(t, res, err))
			if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(b, `"err_code":1004`) {
				t.Fatalf("HTTP %d %s", res.StatusCode, b)
			}
		}},
		{"429 answers the rate-limit code", sandbox.Fault{Rate429: 1}, func(t *testing.T, res *http.Response, err error) {
			b := string(sandboxtest.Body(t, res, err))
			if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(b, `"err_code":1032`) || res.Header.Get("Retry-After") == "" {
				t.Fatalf("HTTP %d %s", res.StatusCode, b)
			}
		}},
		{"malformed answers 200 with a body that is not JSON", sandbox.Fault{RateMalformed: 1}, func(t *testing.T, res *http.Response, err error) {
			b := string(sandboxtest.Body(t, res, err))
			if res.StatusCode != 200 || strings.HasSuffix(b, "}") {
				t.Fatalf("HTTP %d %q", res.StatusCode, b)
			}
		}},
		{"hang-up closes the connection mid-answer", sandbox.Fault{RateHangup: 1}, func(t *testing.T, res *http.Response, err error) {
			if err == nil {
				_, err = io.ReadAll(res.Body)
				res.Body.Close()
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v, want the answer cut short", err)
			}
		}},
		{"latency delays a good answer", sandbox.Fault{Latency: 100 * time.Millisecond}, func(t *testing.T, res *http.Response, err error) {
			if b := string(sandboxtest.Body(t, res, err)); res.StatusCode != 200 || !strings.Contains(b, `"status":"ok"`) {
				t.Fatalf("HTTP %d %s", res.StatusCode, b)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := start(t, sandbox.Config{})
				if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=2"); a.status != 200 {
					t.Fatalf("before any fault: HTTP %d", a.status)
				}
				v.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: tt.fault}})
				began := time.Now()
				res, err := v.client.Get(v.url + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2")
				tt.check(t, res, err)
				if elapsed := time.Since(began); elapsed < tt.fault.Latency {
					t.Fatalf("answered after %s, before the added latency", elapsed)
				}
				if a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil); a.status != 200 {
					t.Fatalf("tiers under a KLine fault: HTTP %d", a.status)
				}
				v.sb.SetFaults(sandbox.Faults{})
				if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=2"); a.status != 200 {
					t.Fatalf("after the faults are off: HTTP %d", a.status)
				}
			})
		})
	}
}

func TestFaults_TheEmptyPathAppliesToEveryPathWithoutItsOwn(t *testing.T) {
	v := start(t, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{
		"":                 {Rate5xx: 1},
		venueapi.PathKLine: {}, // its own fault: none
	}}})
	if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1"); a.status != 200 {
		t.Errorf("KLine with its own empty fault: HTTP %d", a.status)
	}
	for _, path := range []string{venueapi.PathTiers, venueapi.PathPositionLimit} {
		a := v.signed(t, "GET", path, url.Values{"contract_code": {"BTC-USDT"}}, "", nil)
		if code, _ := a.errCode(t); a.status != http.StatusServiceUnavailable || code != 1004 || a.header.Get("ratelimit-limit") == "" {
			t.Errorf("%s: HTTP %d code %d headers %v, want 503 1004 with the rate-limit headers", path, a.status, code, a.header)
		}
	}
}

func TestFaults_AShareOfRequestsFails(t *testing.T) {
	v := start(t, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 0.3, Rate429: 0.2}}}})
	counts := map[int]int{}
	for range 400 {
		counts[v.kline(t, "contract_code=BTC-USDT&period=1min&size=1").status]++
	}
	// 400 draws: each share lands within ±10 points far beyond any chance of missing.
	if counts[503] < 80 || counts[503] > 160 || counts[429] < 40 || counts[429] > 120 || counts[200] < 160 || counts[200] > 240 {
		t.Fatalf("answers %v for shares 30%% 503, 20%% 429", counts)
	}
}

func TestFaults_CanBeSwitchedWhileServing(t *testing.T) {
	v := start(t, sandbox.Config{PublicLimit: venueapi.Limit{Requests: 1 << 20, Per: time.Second}})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := v.client.Get(v.url + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=1")
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			}
		})
	}
	for i := range 50 {
		v.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: float64(i%2) / 2}}})
	}
	close(stop)
	wg.Wait()
	v.sb.SetFaults(sandbox.Faults{})
	if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1"); a.status != 200 {
		t.Fatalf("HTTP %d after switching", a.status)
	}
}

func TestReceived_CountsEveryRequestOfAPath_FaultsAndRefusalsIncluded(t *testing.T) {
	v := start(t, sandbox.Config{PublicLimit: venueapi.Limit{Requests: 3, Per: time.Minute}})
	for range 5 {
		v.kline(t, "contract_code=BTC-USDT&period=1min&size=1")
	}
	v.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}})
	v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil)
	if got := v.sb.Received(venueapi.PathKLine); got != 5 {
		t.Errorf("KLine received %d, want 5 (two of them refused over the limit)", got)
	}
	if got := v.sb.Received(venueapi.PathTiers); got != 1 {
		t.Errorf("tiers received %d, want 1", got)
	}
	if got := v.sb.Received(venueapi.PathPositionLimit); got != 0 {
		t.Errorf("position limits received %d, want 0", got)
	}
}
