package bundle

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// chartView is the chart page's URL the tests and benchmarks below ask for.
const chartView = "/?contract_code=ETH-USDT&period=5min"

// chartPage serves the chart page as a browser asks for it (brotli), with
// the contract list written in and no tiers; etag is the ETag it came with.
func chartPage(tb testing.TB) (get func(ifNoneMatch string) *httptest.ResponseRecorder, etag string) {
	return chartPageWith(tb, nil, "")
}

// chartPageWith is chartPage with the tiers lookup tiers (none when nil),
// for the view's URL with more appended to its query: a page with tiers has
// no ETag, and etag is then "".
func chartPageWith(tb testing.TB, tiers firstdata.TiersLookup, more string) (get func(ifNoneMatch string) *httptest.ResponseRecorder, etag string) {
	serve := pageServer(tb, tiers)
	get = func(ifNoneMatch string) *httptest.ResponseRecorder { return serve(chartView+more, ifNoneMatch) }
	first := get("")
	if etag = first.Header().Get("ETag"); first.Code != http.StatusOK || (etag == "") != (tiers != nil) {
		tb.Fatalf("the page: HTTP %d, ETag %q", first.Code, etag)
	}
	return get, etag
}

// pageServer is a front end whose pages hold a contract list of two, and
// the tiers lookup tiers (none when nil); serve asks it for a URL as a
// browser does (brotli), with an If-None-Match when ifNoneMatch is not "".
func pageServer(tb testing.TB, tiers firstdata.TiersLookup) (serve func(url, ifNoneMatch string) *httptest.ResponseRecorder) {
	h, err := New(Config{Root: builtRoot(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	h = withFirstData(h, twoContracts(), tiers)
	return func(url, ifNoneMatch string) *httptest.ResponseRecorder {
		return getWith(h, url, map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd", "If-None-Match": ifNoneMatch})
	}
}

// withFirstData is h with the contract list contracts and the tiers lookup
// tiers (none when nil) handed to it as the gateway hands them.
func withFirstData(h http.Handler, contracts firstdata.ContractsLookup, tiers firstdata.TiersLookup) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(firstdata.WithContracts(r.Context(), contracts))
		if tiers != nil {
			r = r.WithContext(firstdata.WithTiers(r.Context(), tiers))
		}
		h.ServeHTTP(w, r)
	})
}

// twoContracts is the gateway's lookup of a contract list of two.
func twoContracts() firstdata.ContractsLookup {
	return func() ([]byte, bool) {
		return []byte(`{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1},{"contract_code":"ETH-USDT","face_value":"0.01","price_decimals":2}],"private":false}`), true
	}
}

// freshPages asks for view (a page's URL with a query) by ask, at a URL not
// asked for before each time, so that none comes from the pages kept
// (pageCache).
func freshPages(tb testing.TB, view string, ask func(url string) *httptest.ResponseRecorder) func() *httptest.ResponseRecorder {
	n := 0
	return func() *httptest.ResponseRecorder {
		n++
		rec := ask(view + "&n=" + strconv.Itoa(n))
		if rec.Code != http.StatusOK {
			tb.Fatalf("HTTP %d, want 200", rec.Code)
		}
		return rec
	}
}

// TestARevalidatedPageIsNotRendered: a page asked for again with its ETag is
// answered 304 before go-app renders it (notModified). Counted in
// allocations, which a render makes by the thousand (5,248 for this page
// sent whole, BenchmarkChartPage).
func TestARevalidatedPageIsNotRendered(t *testing.T) {
	get, etag := chartPage(t)
	serve := pageServer(t, nil)
	render := freshPages(t, chartView, func(url string) *httptest.ResponseRecorder { return serve(url, "") })
	sent := testing.AllocsPerRun(5, func() { render() })
	revalidated := testing.AllocsPerRun(5, func() {
		if rec := get(etag); rec.Code != http.StatusNotModified {
			t.Fatalf("HTTP %d, want 304", rec.Code)
		}
	})
	if revalidated > sent/10 {
		t.Errorf("a revalidation made %.0f allocations, a page rendered %.0f: it was rendered", revalidated, sent)
	}
}

// BenchmarkChartPage is the server's cost of the chart page: rendered (a
// URL not asked for before), sent again from the pages kept, revalidated
// with the ETag it was sent with, and rendered with the viewer's tiers,
// which no page kept holds.
func BenchmarkChartPage(b *testing.B) {
	b.Run("rendered", func(b *testing.B) {
		serve := pageServer(b, nil)
		next := freshPages(b, chartView, func(url string) *httptest.ResponseRecorder { return serve(url, "") })
		b.ReportAllocs()
		for b.Loop() {
			next()
		}
	})
	get, etag := chartPage(b)
	for _, tc := range []struct {
		name, ifNoneMatch string
		want              int
	}{{"sent again", "", http.StatusOK}, {"revalidated", etag, http.StatusNotModified}} {
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
		serve := pageServer(b, nil)
		next := freshPages(b, chartView+"&indicators=ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi", func(url string) *httptest.ResponseRecorder { return serve(url, "") })
		b.ReportAllocs()
		for b.Loop() {
			b.ReportMetric(float64(next().Body.Len()), "B/page")
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
