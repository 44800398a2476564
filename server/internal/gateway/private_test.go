package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestPrivateAnswersAreSignedByTheServerAndKeptBriefly(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.TierTTL, c.LimitTTL = time.Minute, 5*time.Second }})
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	limits := venueapi.PathPositionLimit + "?contract_code=BTC-USDT"
	for _, st := range []struct {
		name                string
		advance             time.Duration
		wantTiers, wantLims int64 // venue calls in all
	}{
		{"the first ask", 0, 1, 1},
		{"again at once", 0, 1, 1},
		{"past the limits' TTL", 5 * time.Second, 1, 2},
		{"past the tiers' TTL", time.Minute, 2, 3},
	} {
		clk.Advance(st.advance)
		concurrently(16, func(i int) {
			for _, p := range []string{tiers, limits} {
				if a := s.get(t, p); a.status != 200 || a.header.Get("Cache-Control") != "private, no-store" {
					t.Errorf("%s %s: HTTP %d Cache-Control %q", st.name, p, a.status, a.header.Get("Cache-Control"))
				}
			}
		})
		if got, lims := s.sb.Received(venueapi.PathTiers), s.sb.Received(venueapi.PathPositionLimit); got != st.wantTiers || lims != st.wantLims {
			t.Fatalf("%s: the venue received %d tier and %d limit calls, want %d and %d", st.name, got, lims, st.wantTiers, st.wantLims)
		}
	}
	var env venueapi.TierEnvelope
	if err := json.Unmarshal(s.get(t, tiers).body, &env); err != nil || env.Code != venueapi.CodeOK || len(env.Data) == 0 || env.Stale || env.Ts != clk.Now().UnixMilli() {
		t.Fatalf("tiers %+v %v", env, err)
	}
}

func TestPositionLimitsTakeTheirParametersEveryWayTheVenueDoes(t *testing.T) {
	s := newStack(t, options{clock: newClock(10)})
	for _, tc := range []struct {
		name, method, query, contentType, body string
		wantStatus                             int
		wantInMessage                          string
	}{
		{"a JSON body", "POST", "", "application/json", `{"contract_code":"ETH-USDT"}`, 200, ""},
		{"a form body", "POST", "", "application/x-www-form-urlencoded", "contract_code=ETH-USDT", 200, ""},
		{"the query string of a POST", "POST", "?contract_code=ETH-USDT", "", "", 200, ""},
		{"the sample's GET", "GET", "?contract_code=ETH-USDT", "", "", 200, ""},
		{"no parameter at all", "POST", "", "", "", 200, ""},
		{"a body that is not JSON", "POST", "", "application/json", `{"contract_code":`, 400, "body"},
		{"a JSON value that is not a string", "POST", "", "application/json", `{"contract_code":7}`, 400, "body"},
		{"a bad business type", "POST", "", "application/json", `{"business_type":"options"}`, 400, "business_type"},
		{"a future without business type futures", "POST", "", "application/json", `{"contract_code":"BTC-USDT-270326"}`, 400, "business_type"},
		{"a parameter twice", "GET", "?pair=BTC-USDT&pair=ETH-USDT", "", "", 400, "pair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.do(t, tc.method, venueapi.PathPositionLimit+tc.query, tc.body, "Content-Type", tc.contentType)
			var env venueapi.LimitEnvelope
			if err := json.Unmarshal(a.body, &env); err != nil || a.status != tc.wantStatus {
				t.Fatalf("HTTP %d %s, want %d", a.status, a.body, tc.wantStatus)
			}
			if tc.wantStatus == 200 && (env.Status != "ok" || len(env.Data) == 0) {
				t.Fatalf("%+v", env)
			}
			if tc.wantStatus != 200 && (env.Status != "error" || env.ErrCode != venueapi.CodeInvalidInput || !strings.Contains(env.ErrMsg, tc.wantInMessage)) {
				t.Fatalf("%+v, want 1030 naming %s", env, tc.wantInMessage)
			}
		})
	}
	// The four successful ways to ask for ETH-USDT are one question: one call.
	if n := s.sb.Received(venueapi.PathPositionLimit); n != 2 {
		t.Fatalf("the venue received %d calls, want 2 (ETH-USDT, and no parameter)", n)
	}
}

func TestTheVenueNeverReceivesMoreThanThePrivateBudget(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) { c.UpstreamTimeout = 500 * time.Millisecond }})
	const browsers = 150
	statuses := make([]int, browsers)
	concurrently(browsers, func(i int) {
		path := fmt.Sprintf("%s?contract_code=X%d-USDT", venueapi.PathTiers, i) // distinct codes: each a venue call
		if i%2 == 1 {
			path = fmt.Sprintf("%s?contract_code=X%d-USDT", venueapi.PathPositionLimit, i) // the same budget
		}
		a := s.get(t, path)
		statuses[i] = a.status
		if a.status == http.StatusTooManyRequests && a.header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	})
	refused := 0
	for _, st := range statuses {
		if st == http.StatusTooManyRequests {
			refused++
		}
	}
	received := s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit)
	if received > 72 || refused < browsers-72 {
		t.Fatalf("the venue received %d private requests (72 per 3 s); %d of %d browsers were told to retry", received, refused, browsers)
	}
	if m := string(s.get(t, "/metrics").body); strings.Contains(m, `outcome="venue_rate_limited"`) {
		t.Fatalf("the venue refused requests for the rate:\n%s", m)
	}
}

func TestAKeyTheVenueRefusesIsTheOperatorsToFix(t *testing.T) {
	s := newStack(t, options{venue: func(c *venue.Config) { c.SecretKey = "a-wrong-secret-never-shown" }})
	for _, path := range []string{venueapi.PathTiers + "?contract_code=BTC-USDT", venueapi.PathPositionLimit} {
		a := s.get(t, path)
		code, msg := a.errCode(t)
		if a.status != http.StatusBadGateway || code != venueapi.CodeForbidden || !strings.Contains(msg, "the server's venue access key") || strings.Contains(msg, "never-shown") {
			t.Fatalf("%s: HTTP %d code %d %q, want 502 403 telling the operator", path, a.status, code, msg)
		}
	}
	if logs := s.logs.String(); !strings.Contains(logs, "refused the server's key") || strings.Contains(logs, "never-shown") {
		t.Fatalf("logs:\n%s", logs)
	}
}

func TestWithoutAVenueKeyPrivatePathsSaySo(t *testing.T) {
	s := newStack(t, options{venue: func(v *venue.Config) { v.AccessKey, v.SecretKey = "", "" }})
	for _, path := range []string{venueapi.PathTiers + "?contract_code=BTC-USDT", venueapi.PathPositionLimit} {
		a := s.get(t, path)
		if code, msg := a.errCode(t); a.status != http.StatusForbidden || code != venueapi.CodeForbidden || !strings.Contains(msg, "no venue key") {
			t.Fatalf("%s: HTTP %d code %d %q", path, a.status, code, msg)
		}
	}
	var contracts struct{ Private bool }
	json.Unmarshal(s.get(t, "/api/v1/contracts").body, &contracts)
	if contracts.Private {
		t.Fatal("the contract list says private data is on offer")
	}
}
