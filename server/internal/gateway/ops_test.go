package gateway_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestHealthReadinessAndMetrics(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk})
	s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2")
	s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2")
	s.get(t, venueapi.PathTiers+"?contract_code=BTC-USDT")
	if a := s.get(t, "/healthz"); a.status != 200 {
		t.Fatalf("healthz: HTTP %d", a.status)
	}
	if a := s.get(t, "/readyz"); a.status != 200 {
		t.Fatalf("readyz with the venue up: HTTP %d %s", a.status, a.body)
	}
	s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}})
	clk.Advance(time.Second) // past what the probe before learnt
	if a := s.get(t, "/readyz"); a.status != 503 {
		t.Fatalf("readyz with the venue down: HTTP %d", a.status)
	}
	if a := s.get(t, "/healthz"); a.status != 200 {
		t.Fatalf("healthz with the venue down: HTTP %d (the process is alive)", a.status)
	}
	m := s.get(t, "/metrics")
	if !strings.HasPrefix(m.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics Content-Type %q", m.header.Get("Content-Type"))
	}
	for _, want := range []string{
		`riskchart_requests_total{code="200",route="kline"} 2`,
		`riskchart_requests_total{code="200",route="tiers"} 1`,
		`riskchart_request_duration_seconds_bucket{route="kline"`,
		`riskchart_cache_total{cache="candles",result="hit"} 1`,
		`riskchart_cache_total{cache="candles",result="miss"} 1`,
		`riskchart_venue_calls_total{endpoint="kline",outcome="ok"}`,
		`riskchart_venue_calls_total{endpoint="tiers",outcome="ok"} 1`,
		`riskchart_venue_budget_private_available 71`,
		`riskchart_venue_budget_public_available`,
	} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestTheContractsOnOfferComeFromConfiguration(t *testing.T) {
	contracts := []venueapi.Offer{
		{Code: "ETH-USDT", FaceValue: decimal.RequireFromString("0.01"), PriceDecimals: 2},
		{Code: "BTC-USDT-CQ", FaceValue: decimal.RequireFromString("0.001"), PriceDecimals: 1},
	}
	s := newStack(t, options{gateway: func(c *gateway.Config) { c.Contracts = contracts }})
	a := s.get(t, venueapi.PathContracts)
	var got struct {
		Data    []venueapi.Offer `json:"data"`
		Private bool             `json:"private"`
	}
	if err := json.Unmarshal(a.body, &got); err != nil || a.status != 200 {
		t.Fatalf("HTTP %d %s", a.status, a.body)
	}
	if len(got.Data) != 2 || got.Data[1].Code != "BTC-USDT-CQ" || got.Data[0].FaceValue.String() != "0.01" || got.Data[0].PriceDecimals != 2 || !got.Private {
		t.Fatalf("%+v", got)
	}
	if !strings.Contains(string(a.body), `"face_value":"0.01"`) {
		t.Fatalf("face values are not exact decimal strings: %s", a.body)
	}
}

// TestReadinessProbesShareOneVenueCall: /readyz answers any client on any
// host, so a probe is not a venue call each: what a probe's KLine call
// learnt stands for a second while the endpoint's breaker stays closed
// (README, "GET /readyz": a 1-candle call only when nothing is known;
// docs/decisions.md#failure-memory), so that nobody can spend the venue's
// budget by asking it in a loop.
func TestReadinessProbesShareOneVenueCall(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk})
	before := s.klineCalls()
	for i := range 50 {
		if status, reason := s.readiness(t); status != 200 {
			t.Fatalf("probe %d: HTTP %d %q", i, status, reason)
		}
	}
	if n := s.klineCalls() - before; n != 1 {
		t.Fatalf("50 probes within a second: %d venue KLine calls, want 1", n)
	}
	clk.Advance(time.Second)
	s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}})
	if status, reason := s.readiness(t); status != 503 || reason != "the venue's kline endpoint is failing" {
		t.Fatalf("a second later, the venue down: HTTP %d %q, want 503 with the reason", status, reason)
	}
	if n := s.klineCalls() - before; n < 2 {
		t.Fatalf("a second later: %d venue KLine calls in all, want the probe to ask again", n)
	}
}

// TestReadinessChecksTheKeyBeforeAnySignedCall: until the venue has taken
// the server's key once, a readiness probe makes the signed call, so that a
// server with a wrong secret is not ready before any browser has asked for
// private data (README, "GET /readyz"); once the key is known, probes make
// no signed call, and a refused key waits for its breaker's trial.
func TestReadinessChecksTheKeyBeforeAnySignedCall(t *testing.T) {
	for _, tc := range []struct {
		name, secret string
		status       int
		reason       string
	}{
		{"a key the venue takes", testSecret, 200, ""},
		{"a secret the venue does not hold", "not-the-secret-the-venue-holds", 503, "the venue refuses the server's key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock(10)
			s := newStack(t, options{clock: clk, venue: func(c *venue.Config) { c.SecretKey = venue.Secret(tc.secret) }})
			signed := func() int64 { return s.sb.Received(venueapi.PathPositionLimit) }
			before := signed()
			for i := range 3 {
				if status, reason := s.readiness(t); status != tc.status || reason != tc.reason {
					t.Fatalf("probe %d: HTTP %d %q, want %d %q", i+1, status, reason, tc.status, tc.reason)
				}
				if n := signed() - before; n != 1 {
					t.Fatalf("after probe %d: %d signed calls, want the first probe's alone", i+1, n)
				}
				clk.Advance(300 * time.Millisecond)
			}
		})
	}
}

// docs/deploy.md#metrics: riskchart_venue_calls_total is what the venue was
// asked, and the log's summary counts venue_calls and venue_failures from it.
// A readiness probe's venue calls are venue calls like a browser's.
func TestEveryVenueCallIsCounted(t *testing.T) {
	tests := []struct {
		name      string
		venue     func(*venue.Config)
		faults    sandbox.Faults
		before    []string // asked first: a request that opens a breaker
		path      string
		endpoint  string // venue.EndpointName of venuePath
		venuePath string
	}{
		{name: "a KLine request", path: venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2",
			endpoint: venue.EndpointKLine, venuePath: venueapi.PathKLine},
		{name: "a readiness probe the venue answers", path: "/readyz",
			endpoint: venue.EndpointKLine, venuePath: venueapi.PathKLine},
		{name: "a readiness probe the venue fails", path: "/readyz",
			faults:   sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}},
			endpoint: venue.EndpointKLine, venuePath: venueapi.PathKLine},
		{name: "a readiness probe's trial of a refused key", path: "/readyz",
			venue:    func(c *venue.Config) { c.SecretKey = "a-wrong-secret-never-shown" },
			before:   []string{venueapi.PathTiers + "?contract_code=BTC-USDT"}, // the venue refuses the key: its breaker opens
			endpoint: venue.EndpointPositionLimit, venuePath: venueapi.PathPositionLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStack(t, options{clock: newClock(10), venue: tc.venue})
				s.sb.SetFaults(tc.faults)
				for _, p := range tc.before {
					s.get(t, p)
				}
				time.Sleep(time.Second) // past an open breaker's first wait: its trial is due
				s.get(t, tc.path)
				m := string(s.get(t, "/metrics").body)
				counted := 0
				for line := range strings.Lines(m) {
					if rest, ok := strings.CutPrefix(line, `riskchart_venue_calls_total{endpoint="`+tc.endpoint+`"`); ok {
						_, v, _ := strings.Cut(rest, "} ")
						n, err := strconv.Atoi(strings.TrimSpace(v))
						if err != nil {
							t.Fatalf("metric line %q: %v", line, err)
						}
						counted += n
					}
				}
				if sent := s.sb.Received(tc.venuePath); int64(counted) != sent || sent == 0 {
					t.Fatalf("the venue got %d %s requests, riskchart_venue_calls_total{endpoint=%q} counts %d:\n%s",
						sent, tc.venuePath, tc.endpoint, counted, grepLines(m, "venue_calls"))
				}
			})
		})
	}
}
