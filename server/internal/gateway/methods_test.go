package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/venueapi"
)

func TestAWrongMethodOnAVenuePathIs405InTheVenuesEnvelope(t *testing.T) {
	s := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) { c.FrameAncestors = []string{"https://partner.example"} }})
	for _, tc := range []struct {
		method, path, wantAllow, wantKind string
	}{
		{"POST", venueapi.PathKLine, "GET, HEAD", "status"},
		{"DELETE", venueapi.PathKLine, "GET, HEAD", "status"},
		{"OPTIONS", venueapi.PathKLine, "GET, HEAD", "status"},
		{"PUT", venueapi.PathTiers, "GET, HEAD", "code"},
		{"POST", venueapi.PathTiers, "GET, HEAD", "code"},
		{"PUT", venueapi.PathPositionLimit, "GET, HEAD, POST", "status"},
		{"PATCH", venueapi.PathPositionLimit, "GET, HEAD, POST", "status"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			a := s.do(t, tc.method, tc.path+"?contract_code=BTC-USDT&period=1min", "")
			kind, code := envelopeOf(t, a)
			_, msg := a.errCode(t)
			if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != tc.wantAllow {
				t.Fatalf("HTTP %d Allow %q: %s; want 405, Allow %q", a.status, a.header.Get("Allow"), a.body, tc.wantAllow)
			}
			if kind != tc.wantKind || code != venueapi.CodeInvalidInput || !strings.Contains(msg, "method") || !strings.Contains(msg, tc.method) {
				t.Fatalf("%s envelope, code %d %q; want the %s envelope, 1030 naming the method", kind, code, msg, tc.wantKind)
			}
			if a.header.Get("Ratelimit-Remaining") == "" {
				t.Error("no ratelimit-* headers")
			}
			assertSecurityHeaders(t, a)
		})
	}
	if a := s.do(t, "HEAD", venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2", ""); a.status != http.StatusOK {
		t.Fatalf("HEAD: HTTP %d, want 200: GET's answer without its body", a.status)
	}
	if n := s.klineCalls() + s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit); n != 1 {
		t.Fatalf("the venue received %d calls, want 1 (the HEAD)", n)
	}
}
