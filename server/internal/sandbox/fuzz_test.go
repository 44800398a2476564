package sandbox_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// The sandbox parses outside input on every path; whatever arrives, it
// answers the venue's envelope with a success or a 1013/1030, never a 5xx,
// never a panic.

// checkEnvelope fails unless w holds a venue answer: HTTP 200 and JSON with
// status ok, or the error body with code 1013 or 1030.
func checkEnvelope(t *testing.T, w *httptest.ResponseRecorder, statusKey string) {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", w.Code, w.Body)
	}
	var e map[string]json.RawMessage
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("not JSON: %v: %s", err, w.Body)
	}
	switch string(e[statusKey]) {
	case `"ok"`, "200":
		return
	}
	code := string(e["err_code"])
	if statusKey == "code" {
		code = string(e["code"])
	}
	if code != "1030" && code != "1013" {
		t.Fatalf("answer %s", w.Body)
	}
}

func FuzzKLineQuery(f *testing.F) {
	sb := unlimited(f)
	for _, q := range []string{
		"contract_code=BTC-USDT&period=1min", "contract_code=ETH-USDT-CQ&period=1mon&size=2000",
		"contract_code=BTC-USDT&period=1day&from=0&to=99999999999", "contract_code=BTC-USDT&period=4hour&from=1795000000&to=1795000000",
		"contract_code=BTC-USDT-260101&period=5min", "period=1min&period=1min", "contract_code=%zz", "size=-1&from=-5&to=1e9",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		req := httptest.NewRequest("GET", "http://venue.test"+venueapi.PathKLine, nil)
		req.URL.RawQuery = query
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		checkEnvelope(t, w, "status")
	})
}

func FuzzPositionLimitBody(f *testing.F) {
	sb := unlimited(f)
	for _, b := range []string{
		`{}`, `{"contract_code":"BTC-USDT"}`, `{"pair":"ETH-USDT","business_type":"all"}`, `{"contract_type":"quarter","business_type":"futures"}`,
		`{"contract_code":5}`, `[]`, `null`, `{"a":{"b":[1,2]}}`, `contract_code=BTC-USDT&pair=x`,
	} {
		f.Add(b, "application/json")
		f.Add(b, "application/x-www-form-urlencoded")
	}
	f.Fuzz(func(t *testing.T, body, contentType string) {
		q := sign.SignedQuery("POST", "venue.test", venueapi.PathPositionLimit, testAccess, []byte(testSecret), nil, testNow)
		req := httptest.NewRequest("POST", "http://venue.test"+venueapi.PathPositionLimit+"?"+q, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		checkEnvelope(t, w, "status")
	})
}

func FuzzTierQuery(f *testing.F) {
	sb := unlimited(f)
	for _, c := range []string{"BTC-USDT", "ETH-USDT-CQ", "", "ABC-USDT", "BTC-USDT&margin_mode=isolated", "a b"} {
		f.Add(c, "cross")
	}
	f.Fuzz(func(t *testing.T, contract, margin string) {
		q := sign.SignedQuery("GET", "venue.test", venueapi.PathTiers, testAccess, []byte(testSecret),
			url.Values{"contract_code": {contract}, "margin_mode": {margin}}, testNow)
		req := httptest.NewRequest("GET", "http://venue.test"+venueapi.PathTiers+"?"+q, nil)
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		checkEnvelope(t, w, "code")
	})
}
