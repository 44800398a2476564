package gateway_test

import (
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/venueapi"
)

// Every answer of the venue's paths says where the caller's own budget
// stands, in the venue's ratelimit-* headers: a bucket of 5 refilled at 2 a
// second reads as 5 requests per 2500 ms; remaining is the whole requests
// left; reset is the time until the bucket is full again, or until the next
// request when none is left. A KLine answer shared caches may keep says the
// bucket's size alone ("" below), though the request is counted all the
// same (TestAnAnswerSharedCachesMayKeepSaysNothingOfItsClient).
func TestEveryVenuePathAnswerSaysWhereTheCallersBudgetStands(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.ClientRate, c.ClientBurst = 2, 5 }})
	const jsonType = "application/json"
	for _, st := range []struct {
		name                 string
		advance              time.Duration
		method, path, body   string
		wantStatus           int
		wantRemaining, reset string
	}{
		{"candles", 0, "GET", venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2", "", 200, "", ""},
		{"a refused query", 0, "GET", venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=0", "", 200, "3", "1000"},
		{"tiers", 0, "GET", venueapi.PathTiers + "?contract_code=BTC-USDT", "", 200, "2", "1500"},
		{"limits", 0, "POST", venueapi.PathPositionLimit, `{"contract_code":"BTC-USDT"}`, 200, "1", "2000"},
		{"a wrong method, the last request of the burst", 0, "PUT", venueapi.PathTiers, "", 405, "0", "500"},
		{"past the burst", 0, "GET", venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2", "", 429, "0", "500"},
		{"half a token later", 250 * time.Millisecond, "GET", venueapi.PathTiers + "?contract_code=BTC-USDT", "", 429, "0", "250"},
		{"a token later", 250 * time.Millisecond, "POST", venueapi.PathPositionLimit, `{"contract_code":"BTC-USDT"}`, 200, "0", "500"},
		{"the bucket full again", 3 * time.Second, "GET", venueapi.PathTiers + "?contract_code=BTC-USDT", "", 200, "4", "500"},
	} {
		clk.Advance(st.advance)
		a := s.do(t, st.method, st.path, st.body, "Content-Type", jsonType)
		h := a.header
		if a.status != st.wantStatus || h.Get("Ratelimit-Limit") != "5" || h.Get("Ratelimit-Interval") != "2500" ||
			h.Get("Ratelimit-Remaining") != st.wantRemaining || h.Get("Ratelimit-Reset") != st.reset {
			t.Fatalf("%s: HTTP %d, ratelimit limit %q interval %q remaining %q reset %q; want HTTP %d, 5 per 2500 ms, %s left, reset %s",
				st.name, a.status, h.Get("Ratelimit-Limit"), h.Get("Ratelimit-Interval"), h.Get("Ratelimit-Remaining"), h.Get("Ratelimit-Reset"),
				st.wantStatus, st.wantRemaining, st.reset)
		}
		if a.status == http.StatusTooManyRequests {
			if code, _ := a.errCode(t); code != venueapi.CodeRateLimited || h.Get("Retry-After") != "1" {
				t.Fatalf("%s: code %d Retry-After %q, want 1032 and 1", st.name, code, h.Get("Retry-After"))
			}
		}
	}
}

// The ratelimit-* headers describe the caller's bucket as the configuration
// makes it: the burst, and the time to refill it at the rate; with no rate
// (RISKCHART_CLIENT_RATE=0) there is no bucket and no header
// (docs/venue.md#served-by-riskchart).
func TestTheRateLimitHeadersFollowTheConfiguredBucket(t *testing.T) {
	for _, tc := range []struct {
		name                string
		rate                rate.Limit
		burst               int
		wantLimit, interval string // "" for no header
	}{
		{"the defaults, 100 refilled at 50 a second", 0, 0, "100", "2000"},
		{"100 refilled at 10 a second", 10, 100, "100", "10000"},
		{"no limit", rate.Inf, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStack(t, options{gateway: func(c *gateway.Config) { c.ClientRate, c.ClientBurst = tc.rate, tc.burst }})
			for _, q := range []struct {
				path   string
				shared bool // an answer shared caches may keep: the bucket's size alone
			}{
				{venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2", true},
				{venueapi.PathTiers + "?contract_code=BTC-USDT", false},
			} {
				path := q.path
				a := s.do(t, "GET", path, "")
				h := a.header
				if a.status != http.StatusOK || h.Get("Ratelimit-Limit") != tc.wantLimit || h.Get("Ratelimit-Interval") != tc.interval ||
					(tc.wantLimit == "" || q.shared) != (h.Get("Ratelimit-Remaining") == "" && h.Get("Ratelimit-Reset") == "") {
					t.Errorf("%s: HTTP %d, ratelimit limit %q interval %q remaining %q reset %q; want HTTP 200, limit %q interval %q",
						path, a.status, h.Get("Ratelimit-Limit"), h.Get("Ratelimit-Interval"), h.Get("Ratelimit-Remaining"), h.Get("Ratelimit-Reset"),
						tc.wantLimit, tc.interval)
				}
			}
		})
	}
}
