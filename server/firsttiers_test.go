package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

// The chart page carries the tiers the server holds for its contract, for a
// viewer the tier path would answer, and nothing else (docs/architecture.md).
func TestTheChartPageCarriesTheTiersTheServerHolds(t *testing.T) {
	const token = "first-tiers-viewer-token"
	// Behind a trusted proxy (the loopback peer, with X-Forwarded-For), a
	// request needs a viewer token for private data.
	s := startServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1/32", "RISKCHART_VIEWER_TOKENS": token})
	get := func(path string, header map[string]string) (string, http.Header) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
		return string(b), res.Header
	}
	// The server holds BTC-USDT's tiers once someone has asked for them.
	if body, _ := get(venueapi.PathTiers+"?contract_code=BTC-USDT", nil); !strings.Contains(body, `"code":200`) {
		t.Fatalf("the tier path answered %s", body)
	}
	proxied := map[string]string{"X-Forwarded-For": "203.0.113.7"}
	viewer := map[string]string{"X-Forwarded-For": "203.0.113.7", "Authorization": "Bearer " + token}
	tests := []struct {
		name   string
		path   string
		header map[string]string
		want   bool
	}{
		{"a held contract, on loopback", "/?contract_code=BTC-USDT&period=5min", nil, true},
		{"the default contract, held", "/", nil, true},
		{"a held contract, to a viewer with a token", "/?contract_code=BTC-USDT", viewer, true},
		{"a held contract, to a viewer without access", "/?contract_code=BTC-USDT", proxied, false},
		{"a contract not held", "/?contract_code=ETH-USDT", nil, false},
		{"the shell the service worker keeps", "/", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}, false},
		{"a page load in a browser", "/", map[string]string{"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"}, true},
		{"another page", "/tiers?contract_code=BTC-USDT", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, header := get(tt.path, tt.header)
			rows := strings.Count(page, "data-tier=")
			answer := strings.Contains(page, `id="tiers-first"`)
			if tt.want != (rows > 0) || tt.want != answer {
				t.Errorf("the page holds %d tier rows, answer %v; want them: %v", rows, answer, tt.want)
			}
			if tt.want && !strings.Contains(header.Get("Cache-Control"), "private") {
				t.Errorf("a page with a viewer's tiers is cacheable by others: Cache-Control %q", header.Get("Cache-Control"))
			}
		})
	}
}
