package bundle

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// chartPage serves the chart page as a browser asks for it (brotli), with
// the contract list written in and no tiers; etag is the ETag it came with.
func chartPage(tb testing.TB) (get func(ifNoneMatch string) *httptest.ResponseRecorder, etag string) {
	return chartPageWith(tb, nil, "")
}

// chartPageWith is chartPage with the tiers lookup tiers (none when nil),
// for the view's URL with more appended to its query: a page with tiers has
// no ETag, and etag is then "".
func chartPageWith(tb testing.TB, tiers firstdata.TiersLookup, more string) (get func(ifNoneMatch string) *httptest.ResponseRecorder, etag string) {
	h, err := New(Config{Root: builtRoot(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	contracts := firstdata.ContractsLookup(func() ([]byte, bool) {
		return []byte(`{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1},{"contract_code":"ETH-USDT","face_value":"0.01","price_decimals":2}],"private":false}`), true
	})
	get = func(ifNoneMatch string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/?contract_code=ETH-USDT&period=5min"+more, nil)
		r = r.WithContext(firstdata.WithContracts(r.Context(), contracts))
		if tiers != nil {
			r = r.WithContext(firstdata.WithTiers(r.Context(), tiers))
		}
		r.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	first := get("")
	if etag = first.Header().Get("ETag"); first.Code != http.StatusOK || (etag == "") != (tiers != nil) {
		tb.Fatalf("the page: HTTP %d, ETag %q", first.Code, etag)
	}
	return get, etag
}

// TestARevalidatedPageIsNotRendered: a page asked for again with its ETag is
// answered 304 before go-app renders it (notModified). Counted in
// allocations, which a render makes by the thousand (5,268 for this page
// sent whole, BenchmarkChartPage).
func TestARevalidatedPageIsNotRendered(t *testing.T) {
	get, etag := chartPage(t)
	sent := testing.AllocsPerRun(5, func() { get("") })
	revalidated := testing.AllocsPerRun(5, func() {
		if rec := get(etag); rec.Code != http.StatusNotModified {
			t.Fatalf("HTTP %d, want 304", rec.Code)
		}
	})
	if revalidated > sent/10 {
		t.Errorf("a revalidation made %.0f allocations, a page sent whole %.0f: it was rendered", revalidated, sent)
	}
}

// BenchmarkChartPage is the server's cost of the chart page: sent whole,
// and revalidated with the ETag it was sent with.
func BenchmarkChartPage(b *testing.B) {
	get, etag := chartPage(b)
	for _, tc := range []struct {
		name, ifNoneMatch string
		want              int
	}{{"sent", "", http.StatusOK}, {"revalidated", etag, http.StatusNotModified}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rec := get(tc.ifNoneMatch); rec.Code != tc.want {
					b.Fatalf("HTTP %d, want %d", rec.Code, tc.want)
				}
			}
		})
	}
	b.Run("with tiers", func(b *testing.B) {
		get, _ := chartPageWith(b, benchTiers(), "")
		b.ReportAllocs()
		for b.Loop() {
			if rec := get(""); rec.Code != http.StatusOK {
				b.Fatalf("HTTP %d, want 200", rec.Code)
			}
		}
	})
	b.Run("with seven studies", func(b *testing.B) {
		get, _ := chartPageWith(b, nil, "&indicators=ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi")
		b.ReportAllocs()
		for b.Loop() {
			rec := get("")
			if rec.Code != http.StatusOK {
				b.Fatalf("HTTP %d, want 200", rec.Code)
			}
			b.ReportMetric(float64(rec.Body.Len()), "B/page")
		}
	})
}

// benchLadder is a ladder of ten tiers for ETH-USDT.
func benchLadder() venueapi.TierEnvelope {
	env := venueapi.TierEnvelope{Code: 200, Ts: time.Now().Add(-time.Minute).UnixMilli()}
	for i := range 10 {
		env.Data = append(env.Data, venueapi.Tier{
			ContractCode: "ETH-USDT", MarginMode: "cross", Tier: venueapi.TierNumber(i + 1),
			MaxLever:              decimal.NewFromInt(int64(100 - 9*i)),
			MaintenanceMarginRate: decimal.New(int64(5+5*i), -3),
			MinVolume:             decimal.NewFromInt(int64(i * 10000)),
			MaxVolume:             decimal.NewFromInt(int64((i + 1) * 10000)),
			VolumeUnit:            "contract",
		})
	}
	return env
}

// benchTiers is the gateway's lookup of the tiers it holds, as it answers
// a page.
func benchTiers() firstdata.TiersLookup {
	env := benchLadder()
	return func(firstdata.TiersPage) (venueapi.TierEnvelope, bool) { return env, true }
}
