package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/venueapi"
)

// An answer that says a shared cache may keep it (Cache-Control: public)
// is, to that cache, the answer of the URL for every client: a proxy or a
// CDN in front keeps its headers with it and gives them to whoever asks
// next, and a cache revalidating it takes the 304's headers as the
// answer's. So such an answer, and its 304, must say nothing of the
// client it was made for: two clients asking the same URL get the same
// header, but for the few every message has of its own (Date, the
// request's id). The ratelimit-* headers of one client's bucket would
// tell every later client of the cache to wait for a bucket that is not
// its own (docs/venue.md#served-by-riskchart).
func TestAnAnswerSharedCachesMayKeepSaysNothingOfItsClient(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.ClientRate, c.ClientBurst = 1, 5 }})
	current := venueapi.Period1Min.Start(clk.Now().Unix())
	latest := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=20"
	closed := venueapi.PathKLine + fmt.Sprintf("?contract_code=BTC-USDT&period=1min&from=%d&to=%d", current-1200, current-600)
	perMessage := map[string]bool{"Date": true, "X-Request-Id": true}
	for i, tc := range []struct {
		name, path string
		revalidate bool // ask with the ETag of the answer: a 304
	}{
		{"the latest candles", latest, false},
		{"a closed range (immutable)", closed, false},
		{"the latest candles revalidated", latest, true},
		{"a closed range revalidated", closed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := s.getFrom(t, "127.0.0.1", tc.path)
			var header []string
			if tc.revalidate {
				header = []string{"If-None-Match", first.header.Get("Etag")}
			}
			// Client a has spent most of its burst (the clock stands still:
			// no token comes back); client b has spent none.
			ipA, ipB := fmt.Sprintf("127.0.1.%d", i+1), fmt.Sprintf("127.0.2.%d", i+1)
			for range 3 {
				s.getFrom(t, ipA, tc.path)
			}
			a, b := s.getFrom(t, ipA, tc.path, header...), s.getFrom(t, ipB, tc.path, header...)
			if a.status != b.status || !strings.Contains(a.header.Get("Cache-Control"), "public") {
				t.Fatalf("HTTP %d %q and HTTP %d %q: want the same answer, public", a.status, a.header.Get("Cache-Control"), b.status, b.header.Get("Cache-Control"))
			}
			for name := range merged(a.header, b.header) {
				if !perMessage[name] && strings.Join(a.header[name], ", ") != strings.Join(b.header[name], ", ") {
					t.Errorf("HTTP %d, Cache-Control %q: %s is %q for one client and %q for another; a shared cache gives the first client's to both",
						a.status, a.header.Get("Cache-Control"), name, a.header[name], b.header[name])
				}
			}
		})
	}
}

// merged is the names of the fields of a and b.
func merged(a, b http.Header) map[string]bool {
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	return names
}
