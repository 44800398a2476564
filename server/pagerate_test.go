package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestPagesRenderedAreChargedToTheClientsRate: a page the server must render
// (a URL not seen before, however made up) costs its client a request of
// RISKCHART_CLIENT_RATE, as a venue path does; a page kept and the app's
// files do not (docs/deploy.md#behind-a-reverse-proxy).
func TestPagesRenderedAreChargedToTheClientsRate(t *testing.T) {
	s := startServer(t, map[string]string{"RISKCHART_CLIENT_RATE": "0.01", "RISKCHART_CLIENT_BURST": "3"})
	views := []string{
		"/?contract_code=BTC-USDT&period=1min",
		"/?contract_code=BTC-USDT&period=5min",
		"/tiers?contract_code=BTC-USDT",
		"/?contract_code=BTC-USDT&period=5min&made-up=1",
	}
	for i, v := range views {
		res, body := s.do(t, http.MethodGet, v, nil)
		want := http.StatusOK
		if i == len(views)-1 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Fatalf("page %d, %s: HTTP %d, want %d: %.200s", i+1, v, res.StatusCode, want, body)
		}
		if want == http.StatusTooManyRequests && (res.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "RISKCHART_CLIENT_RATE")) {
			t.Errorf("the refused render: Retry-After %q, body %.200s: want a wait and the setting named", res.Header.Get("Retry-After"), body)
		}
	}
	for _, p := range []string{views[0], views[2], "/app.js", "/wasm_exec.js", "/web/chart-boot.js"} {
		if res, _ := s.do(t, http.MethodGet, p, nil); res.StatusCode != http.StatusOK {
			t.Errorf("%s, with the client's rate spent: HTTP %d, want 200: a page kept or a file costs no request", p, res.StatusCode)
		}
	}
}
