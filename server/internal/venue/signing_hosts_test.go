package venue_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// docs/decisions.md#canonical-host: the host signed is the one the Host
// header carries. net/http drops an IPv6 zone from the Host header and
// writes an internationalized name in its xn-- form, so a base URL with a
// zone must still sign what is sent, and one with a non-ASCII name is
// refused when the client is built rather than failing every signed call
// with 1253. Over real loopback, whatever host the URL names.
func TestSignedCallsSignTheHostAsTheHostHeaderCarriesIt(t *testing.T) {
	sandboxURL, _ := sandboxtest.Start(t, sandbox.Config{Keys: sandboxKeys})
	addr := strings.TrimPrefix(sandboxURL, "http://")
	for _, tt := range []struct {
		base, refused string // refused: what New's error must say; "" for none
	}{
		{"http://venue.test:9000", ""},
		{"http://[FE80::1]:9000", ""},
		{"http://[fe80::1%25eth0]:9000", ""},
		{"http://[fe80::1%25eth0]", ""},
		{"http://bücher.test", "xn--"},
		{"http://BÜCHER.test:9000", "xn--"},
		{"http://b%C3%BCcher.test", "xn--"},
	} {
		t.Run(tt.base, func(t *testing.T) {
			tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}}
			t.Cleanup(tr.CloseIdleConnections)
			c, err := venue.New(venue.Config{BaseURL: tt.base, HTTPClient: &http.Client{Transport: tr}, AccessKey: "ak", SecretKey: "sk", Retries: -1})
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("New: %v, want a refusal saying %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.PositionLimits(context.Background(), venueapi.LimitQuery{ContractCode: "BTC-USDT"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
