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
	// A kept answer is stamped as it is sent, not as the venue stamped it:
	// a second on, within the TTL, ts is a second on too.
	clk.Advance(time.Second)
	var env venueapi.TierEnvelope
	if err := json.Unmarshal(s.get(t, tiers).body, &env); err != nil || env.Code != venueapi.CodeOK || len(env.Data) == 0 || env.Stale || env.Ts != clk.Now().UnixMilli() {
		t.Fatalf("tiers %+v %v", env, err)
	}
}

func TestPositionLimitsTakeAJSONBodyOrTheQueryString(t *testing.T) {
	s := newStack(t, options{clock: newClock(10)})
	const jsonType = "application/json"
	for _, tc := range []struct {
		name, method, query, contentType, body string
		wantStatus                             int // HTTP
		wantCode                               int // the envelope's
		wantInMessage                          string
	}{
		{"a JSON body", "POST", "", jsonType, `{"contract_code":"ETH-USDT"}`, 200, 0, ""},
		{"a JSON body with a charset", "POST", "", jsonType + "; charset=utf-8", `{"contract_code":"ETH-USDT"}`, 200, 0, ""},
		{"the query string of a POST", "POST", "?contract_code=ETH-USDT", jsonType, "", 200, 0, ""},
		{"the sample's GET", "GET", "?contract_code=ETH-USDT", "", "", 200, 0, ""},
		{"no parameter at all", "POST", "", jsonType, "{}", 200, 0, ""},
		{"a form body", "POST", "", "application/x-www-form-urlencoded", "contract_code=ETH-USDT", 415, 1030, "Content-Type"},
		{"a POST without a Content-Type", "POST", "?contract_code=ETH-USDT", "", "", 415, 1030, "Content-Type"},
		{"a body that is not JSON", "POST", "", jsonType, `{"contract_code":`, 200, 1030, "body"},
		{"a JSON value that is not a string", "POST", "", jsonType, `{"contract_code":7}`, 200, 1030, "contract_code"},
		{"a bad business type", "POST", "", jsonType, `{"business_type":"options"}`, 200, 1030, "business_type"},
		{"a future without business type futures", "POST", "", jsonType, `{"contract_code":"BTC-USDT-270326"}`, 200, 1030, "business_type"},
		{"a parameter twice", "GET", "?pair=BTC-USDT&pair=ETH-USDT", "", "", 200, 1030, "pair"},
		{"a parameter in the body and the query string", "POST", "?pair=BTC-USDT", jsonType, `{"pair":"ETH-USDT"}`, 200, 1030, "pair"},
		{"a member named twice", "POST", "", jsonType, `{"pair":"BTC-USDT","pair":"ETH-USDT"}`, 200, 1030, "pair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.do(t, tc.method, venueapi.PathPositionLimit+tc.query, tc.body, "Content-Type", tc.contentType)
			var env venueapi.LimitEnvelope
			if err := json.Unmarshal(a.body, &env); err != nil || a.status != tc.wantStatus {
				t.Fatalf("HTTP %d %s, want %d", a.status, a.body, tc.wantStatus)
			}
			if tc.wantCode == 0 && (env.Status != "ok" || len(env.Data) == 0) {
				t.Fatalf("%+v", env)
			}
			if tc.wantCode != 0 && (env.Status != "error" || env.ErrCode != tc.wantCode || !strings.Contains(env.ErrMsg, tc.wantInMessage)) {
				t.Fatalf("%+v, want %d naming %s", env, tc.wantCode, tc.wantInMessage)
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
	// Distinct questions about listed contracts, each a venue call, each from
	// its own address, so that no client's share binds: only the budget does.
	var paths []string
	for _, m := range s.sb.Markets() {
		if m.Kind == venueapi.KindSwap {
			paths = append(paths, venueapi.PathTiers+"?contract_code="+m.Code)
		}
	}
	for _, pair := range []string{"", "BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT", "SHIB-USDT"} {
		for _, typ := range []string{"", "swap", "this_week", "next_week", "quarter", "next_quarter"} {
			for _, business := range []string{"swap", "futures", "all"} {
				q := venueapi.LimitQuery{Pair: pair, ContractType: venueapi.ContractType(typ), BusinessType: business}
				if q.Validate() == nil {
					paths = append(paths, venueapi.PathPositionLimit+"?"+q.Values().Encode())
				}
			}
		}
	}
	browsers := len(paths)
	if browsers <= 72 {
		t.Fatalf("%d distinct questions: too few to spend the budget of 72", browsers)
	}
	statuses := make([]int, browsers)
	concurrently(browsers, func(i int) {
		req, _ := http.NewRequest("GET", s.url+paths[i], nil)
		a := send(t, s.from(fmt.Sprintf("127.0.%d.%d", i/200, i%200+1)), req)
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
		if a.status != http.StatusOK || code != venueapi.CodeForbidden || !strings.Contains(msg, "the server's venue access key") || strings.Contains(msg, "never-shown") {
			t.Fatalf("%s: HTTP %d code %d %q, want HTTP 200, 403 telling the operator", path, a.status, code, msg)
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
		if code, msg := a.errCode(t); a.status != http.StatusOK || code != venueapi.CodeForbidden || !strings.Contains(msg, "no venue key") {
			t.Fatalf("%s: HTTP %d code %d %q", path, a.status, code, msg)
		}
	}
	var contracts struct{ Private bool }
	json.Unmarshal(s.get(t, venueapi.PathContracts).body, &contracts)
	if contracts.Private {
		t.Fatal("the contract list says private data is on offer")
	}
}
