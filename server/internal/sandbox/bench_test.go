package sandbox_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// benchKLine measures one KLine answer through the handler: parsing,
// drawing, encoding. Nothing is cached between requests but each day's
// turnover, which the first request draws.
func benchKLine(b *testing.B, query string) {
	sb := unlimited(b)
	req := httptest.NewRequest("GET", venueapi.PathKLine+"?"+query, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"status":"ok"`) {
			b.Fatal(w.Code, w.Body.String()[:100])
		}
	}
}

func BenchmarkKLine2000x1min(b *testing.B) {
	benchKLine(b, "contract_code=BTC-USDT&period=1min&size=2000")
}
func BenchmarkKLine2000x5min(b *testing.B) {
	benchKLine(b, "contract_code=BTC-USDT&period=5min&size=2000")
}
func BenchmarkKLine2000x4hour(b *testing.B) {
	benchKLine(b, "contract_code=ETH-USDT&period=4hour&size=2000")
}

// 1day and 1mon: two years hold 731 days and 25 months, all of them.
func BenchmarkKLine2000x1day(b *testing.B) {
	benchKLine(b, "contract_code=BTC-USDT&period=1day&size=2000")
}
func BenchmarkKLine2000x1mon(b *testing.B) {
	benchKLine(b, "contract_code=BTC-USDT-CQ&period=1mon&size=2000")
}

func BenchmarkSignedTiers(b *testing.B) {
	sb := unlimited(b)
	q := sign.SignedQuery("GET", "venue.test", venueapi.PathTiers, testAccess, []byte(testSecret), url.Values{"contract_code": {"BTC-USDT"}}, testNow)
	req := httptest.NewRequest("GET", "http://venue.test"+venueapi.PathTiers+"?"+q, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"code":200`) {
			b.Fatal(w.Body.String())
		}
	}
}

func BenchmarkSignedPositionLimitsOfEveryContract(b *testing.B) {
	sb := unlimited(b)
	q := sign.SignedQuery("POST", "venue.test", venueapi.PathPositionLimit, testAccess, []byte(testSecret), nil, testNow)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "http://venue.test"+venueapi.PathPositionLimit+"?"+q, strings.NewReader(`{"business_type":"all"}`))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"status":"ok"`) {
			b.Fatal(w.Body.String())
		}
	}
}
