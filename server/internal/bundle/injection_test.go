package bundle

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestNoQueryValueBecomesMarkup renders every page with markup in each
// parameter it reads (and one it does not), alone and after a valid code.
// go-app writes a prerendered attribute's value with strconv.Quote, not
// HTML escaping, so a value that reached an attribute unchecked would end
// it: today every such value is checked first (a contract code's letters,
// a period or theme from a fixed set, the studies in their one spelling, a
// language tag), and this test fails the day one is not.
func TestNoQueryValueBecomesMarkup(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	payload := `"'><x-inj>` + "\u2028"
	for _, path := range []string{"/", "/tiers", "/limits", "/embed/chart", "/embed/tiers", "/embed/limits"} {
		for _, p := range []string{"contract_code", "period", "theme", "tz", "locale", "indicators", "scale", "style", "embed", "controls", "parent", "x"} {
			for _, v := range []string{payload, "BTC-USDT" + payload} {
				q := url.Values{p: {v}}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil))
				b := rec.Body.String()
				if i := strings.Index(b, "<x-inj>"); i >= 0 || strings.Contains(b, `"'>`) {
					i = max(i, strings.Index(b, `"'>`))
					t.Errorf("%s?%s: HTTP %d, the value is markup: %q", path, q.Encode(), rec.Code, b[max(0, i-200):min(len(b), i+50)])
				}
			}
		}
	}
}
