package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

func TestHealthReadinessAndMetrics(t *testing.T) {
	s := newStack(t, options{})
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
	contracts, err := gateway.ParseContracts("ETH-USDT:0.01:2,BTC-USDT-CQ:0.001:1")
	if err != nil {
		t.Fatal(err)
	}
	s := newStack(t, options{gateway: func(c *gateway.Config) { c.Contracts = contracts }})
	a := s.get(t, "/api/v1/contracts")
	var got struct {
		Data    []gateway.Contract `json:"data"`
		Private bool               `json:"private"`
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

func TestParseContracts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // code:face:decimals, or nil for an error naming the rule
		rule     string
	}{
		{"two swaps", "BTC-USDT:0.001:1,ETH-USDT:0.01:2", []string{"BTC-USDT:0.001:1", "ETH-USDT:0.01:2"}, ""},
		{"spaces around items", " BTC-USDT:0.001:1 , SOL-USDT:1:3 ", []string{"BTC-USDT:0.001:1", "SOL-USDT:1:3"}, ""},
		{"a contract-type code and a dated future", "BTC-USDT-CQ:0.001:1,BTC-USDT-270326:0.001:1", []string{"BTC-USDT-CQ:0.001:1", "BTC-USDT-270326:0.001:1"}, ""},
		{"empty", "", nil, "at least one"},
		{"a missing field", "BTC-USDT:0.001", nil, "code:face_value:price_decimals"},
		{"a lower-case code", "btc-usdt:0.001:1", nil, "upper-case"},
		{"a negative face value", "BTC-USDT:-1:1", nil, "positive decimal"},
		{"a zero face value", "BTC-USDT:0:1", nil, "positive decimal"},
		{"a face value that is not a number", "BTC-USDT:abc:1", nil, "positive decimal"},
		{"decimals that are not a number", "BTC-USDT:0.1:x", nil, "price decimals"},
		{"too many decimals", "BTC-USDT:0.1:40", nil, "price decimals"},
		{"a code twice", "BTC-USDT:0.001:1,BTC-USDT:0.001:2", nil, "more than once"},
		{"an empty item", "BTC-USDT:0.001:1,,ETH-USDT:0.01:2", nil, "code:face_value:price_decimals"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gateway.ParseContracts(tc.in)
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), "RISKCHART_CONTRACTS") || !strings.Contains(err.Error(), tc.rule) {
					t.Fatalf("error %v, want one naming RISKCHART_CONTRACTS and %q", err, tc.rule)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("%v %v", got, err)
			}
			for i, c := range got {
				if s := c.Code + ":" + c.FaceValue.String() + ":" + string(rune('0'+c.PriceDecimals)); s != tc.want[i] {
					t.Errorf("contract %d is %s, want %s", i, s, tc.want[i])
				}
			}
		})
	}
}

func TestTheDefaultContractsAreValid(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range gateway.DefaultContracts() {
		if _, err := venueapi.ParseContractCode(c.Code); err != nil || !c.FaceValue.IsPositive() || seen[c.Code] {
			t.Errorf("%+v: %v", c, err)
		}
		seen[c.Code] = true
	}
	if !seen["BTC-USDT"] || !seen["ETH-USDT"] {
		t.Fatalf("the common swaps are missing: %v", seen)
	}
}

func FuzzParseContracts(f *testing.F) {
	for _, s := range []string{"BTC-USDT:0.001:1,ETH-USDT:0.01:2", "", "a:b:c", "BTC-USDT:1e-3:1", ",,,", "BTC-USDT:0.001:1,BTC-USDT:1:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := gateway.ParseContracts(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "RISKCHART_CONTRACTS") {
				t.Fatalf("error %q does not name the variable", err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatal("no contracts and no error")
		}
		for _, c := range got {
			if _, err := venueapi.ParseContractCode(c.Code); err != nil || !c.FaceValue.IsPositive() || c.PriceDecimals < 0 || c.PriceDecimals > 12 {
				t.Fatalf("accepted %+v", c)
			}
		}
	})
}
