package gateway_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// benchConfig is the gateway as a deployment behind a reverse proxy runs
// it: every protection on at its defaults (the per-client rate included),
// the proxy trusted, JSON logs at Info.
func benchConfig(client *venue.Client) gateway.Config {
	return gateway.Config{Venue: client, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}, // httptest's RemoteAddr
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
}

// browsers are X-Forwarded-For values for benchClients addresses, built once:
// the requests of a benchmark come from as many browsers through the one
// trusted proxy, each well within its rate (below 50 a second while an
// iteration takes more than 2.5 µs), as the load of many viewers does.
const benchClients = 8192

func browsers() [][]string {
	out := make([][]string, benchClients)
	for i := range out {
		out[i] = []string{netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}).String()}
	}
	return out
}

// benchCacheHit measures the whole handler (logging, security headers, the
// Host check, the client address and its rate, the cache) answering a held
// series, configured as benchConfig says.
func benchCacheHit(b *testing.B, size int, header ...string) {
	base, _ := sandboxtest.Start(b, sandbox.Config{})
	client, err := venue.New(venue.Config{BaseURL: base})
	if err != nil {
		b.Fatal(err)
	}
	cfg := benchConfig(client)
	cfg.RefreshInterval = time.Hour
	h, err := gateway.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", fmt.Sprintf("http://127.0.0.1%s?contract_code=BTC-USDT&period=1min&size=%d", venueapi.PathKLine, size), nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	from := browsers()
	w := &discardWriter{h: http.Header{}, keep: true}
	h.ServeHTTP(w, req) // fill the cache
	checkCandles(b, w, size)
	w.keep = false
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.reset()
		req.Header["X-Forwarded-For"] = from[i%benchClients]
		i++
		h.ServeHTTP(w, req)
		// A kept answer goes out with its ETag and fresh; an error
		// envelope (writeError) has no ETag, a stale answer its mark.
		if (w.status != 200 && w.status != 0) || len(w.h["Etag"]) == 0 || len(w.h["X-Riskchart-Stale"]) != 0 {
			b.Fatalf("HTTP %d, headers %v: want a fresh answer of candles, as checked at the fill", w.status, w.h)
		}
	}
	b.ReportMetric(float64(w.n), "B/answer")
}

// checkCandles fails b unless w holds a KLine answer of want candles: HTTP
// 200 and the envelope's status "ok". Status alone proves nothing here: the
// venue's paths answer a business error (a bad size, an unlisted contract)
// under HTTP 200 (docs/decisions.md#gateway-error-statuses), and a
// benchmark of that error path would time it as an answer.
func checkCandles(b *testing.B, w *discardWriter, want int) {
	b.Helper()
	if w.status != 200 && w.status != 0 {
		b.Fatalf("HTTP %d: %.200s", w.status, w.body)
	}
	body := w.body
	if w.h.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			b.Fatalf("reading the gzipped answer: %v", err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			b.Fatalf("reading the gzipped answer: %v", err)
		}
	}
	a, err := venueapi.DecodeKLine(body)
	if err != nil || a.Status == nil || *a.Status != venueapi.StatusOK || a.Stale || len(a.Data) != want {
		b.Fatalf("want %d candles under status ok, got %d (err %v): %.200s", want, len(a.Data), err, body)
	}
}

// discardWriter is a ResponseWriter that keeps nothing unless told to (keep,
// for an answer to be checked), so that the benchmark measures the handler
// rather than a recorder growing its buffer.
type discardWriter struct {
	h      http.Header
	status int
	n      int
	keep   bool
	body   []byte
}

func (w *discardWriter) Header() http.Header  { return w.h }
func (w *discardWriter) WriteHeader(code int) { w.status = code }
func (w *discardWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.keep {
		w.body = append(w.body, p...)
	}
	return len(p), nil
}
func (w *discardWriter) reset() { clear(w.h); w.status, w.n, w.body = 0, 0, w.body[:0] }

func BenchmarkKLineCacheHitSize300(b *testing.B)  { benchCacheHit(b, 300) }
func BenchmarkKLineCacheHitSize2000(b *testing.B) { benchCacheHit(b, 2000) }
func BenchmarkKLineCacheHitSize300Gzip(b *testing.B) {
	benchCacheHit(b, 300, "Accept-Encoding", "gzip")
}
func BenchmarkKLineCacheHitSize2000Gzip(b *testing.B) {
	benchCacheHit(b, 2000, "Accept-Encoding", "gzip")
}

// BenchmarkKLineColdRange2000 measures a miss: a 2000-candle range fetched
// from the venue (the sandbox, on loopback, in this process), held and
// answered. Each iteration asks for a range not held yet.
func BenchmarkKLineColdRange2000(b *testing.B) {
	base, _ := sandboxtest.Start(b, sandbox.Config{PublicLimit: venueapi.Limit{Requests: 1 << 30, Per: time.Second}})
	client, err := venue.New(venue.Config{BaseURL: base})
	if err != nil {
		b.Fatal(err)
	}
	cfg := benchConfig(client)
	cfg.CacheBytes = 1 << 30
	h, err := gateway.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"}
	latest := venueapi.Period1Min.Start(time.Now().Unix()) - 3600
	to, code, from, i := latest, 0, browsers(), 0
	w := &discardWriter{h: http.Header{}, keep: true} // its body's buffer reused: checked, not counted
	b.ReportAllocs()
	for b.Loop() {
		if to < latest-700*86400 { // the venue's history ends two years back: on to the next contract
			to, code = latest, (code+1)%len(codes)
		}
		w.reset()
		req := httptest.NewRequest("GET", fmt.Sprintf("http://127.0.0.1%s?contract_code=%s&period=1min&from=%d&to=%d", venueapi.PathKLine, codes[code], to-1999*60, to), nil)
		req.Header["X-Forwarded-For"] = from[i%benchClients]
		i++
		h.ServeHTTP(w, req)
		b.StopTimer() // decoding 2000 candles costs a third of a miss
		checkCandles(b, w, 2000)
		b.StartTimer()
		to -= 2000 * 60
	}
}
