package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

// Behind a trusted proxy the per-client rate counts the client named in the
// header RISKCHART_FORWARDED_HEADER names; the other header, which the
// proxy passes through as the browser sent it, buys a browser no fresh
// rate however often it changes (docs/deploy.md#behind-a-reverse-proxy).
func TestTheRateCountsTheClientInTheHeaderTheOperatorNames(t *testing.T) {
	for _, tc := range []struct {
		name, setting, named, other, client string
	}{
		{"X-Forwarded-For, the default", "", "X-Forwarded-For", "Forwarded", "198.51.100.1"},
		{"Forwarded", "forwarded", "Forwarded", "X-Forwarded-For", "for=198.51.100.1;proto=https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1", "RISKCHART_FORWARDED_HEADER": tc.setting,
				"RISKCHART_CLIENT_RATE": "0.01", "RISKCHART_CLIENT_BURST": "3"})
			forged := func(i int) string {
				if tc.other == "Forwarded" {
					return fmt.Sprintf("for=203.0.113.%d", i)
				}
				return fmt.Sprintf("203.0.113.%d", i)
			}
			for i := range 4 {
				res, b := s.do(t, http.MethodGet, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2",
					map[string]string{tc.named: tc.client, tc.other: forged(i + 1)})
				if want := http.StatusOK; i == 3 {
					want = http.StatusTooManyRequests
					if res.StatusCode != want {
						t.Fatalf("request %d, past the burst of 3, the browser naming itself in %s each time anew: HTTP %d %s, want %d", i+1, tc.other, res.StatusCode, b, want)
					}
				} else if res.StatusCode != want {
					t.Fatalf("request %d, within the burst: HTTP %d %s", i+1, res.StatusCode, b)
				}
			}
		})
	}
}
