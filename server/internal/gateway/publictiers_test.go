package gateway_test

import (
	"net/http"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// TestPublicTiersOpenTheLaddersAndNothingElse: with PublicTiers, the tier
// path answers a browser off loopback without a viewer token and an embed
// without a signed link; without it, both are refused; the position limits
// are refused either way, and another site's page gets no tiers.
func TestPublicTiersOpenTheLaddersAndNothingElse(t *testing.T) {
	stackWith := func(public bool) *stack {
		return newStack(t, options{gateway: func(c *gateway.Config) {
			c.Public, c.ViewerTokens = true, []venue.Secret{testViewer}
			c.AllowedHosts = []string{"charts.example"}
			c.PublicTiers = public
		}})
	}
	on, off := stackWith(true), stackWith(false)
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	limits := venueapi.PathPositionLimit + "?contract_code=BTC-USDT"
	embed := []string{venueapi.EmbedHeader, ""}
	for _, tc := range []struct {
		name    string
		s       *stack
		path    string
		header  []string
		refused bool
	}{
		{"on: tiers without a token", on, tiers, nil, false},
		{"on: tiers in an embed without a link", on, tiers, embed, false},
		{"on: tiers in an embed with a bad link", on, tiers, []string{venueapi.EmbedHeader, "not-a-link"}, false},
		{"on: tiers for another site's page", on, tiers, []string{"Sec-Fetch-Site", "cross-site"}, true},
		{"on: limits without a token", on, limits, nil, true},
		{"on: limits in an embed without a link", on, limits, embed, true},
		{"off: tiers without a token", off, tiers, nil, true},
		{"off: tiers in an embed without a link", off, tiers, embed, true},
		{"off: limits without a token", off, limits, nil, true},
		{"off: limits in an embed without a link", off, limits, embed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.s.get(t, tc.path, tc.header...)
			if a.status != http.StatusOK {
				t.Fatalf("HTTP %d %s", a.status, a.body)
			}
			code, msg := a.errCode(t)
			if (code == venueapi.CodeForbidden) != tc.refused {
				t.Fatalf("code %d %q, want refused: %v", code, msg, tc.refused)
			}
			if a.header.Get("Cache-Control") != "private, no-store" {
				t.Errorf("Cache-Control %q", a.header.Get("Cache-Control"))
			}
		})
	}
	if n := on.sb.Received(venueapi.PathPositionLimit) + off.sb.Received(venueapi.PathPositionLimit) + off.sb.Received(venueapi.PathTiers); n != 0 {
		t.Fatalf("refused requests reached the venue: %d calls", n)
	}
	if n := on.sb.Received(venueapi.PathTiers); n != 1 {
		t.Fatalf("the public tiers cost %d venue calls, want 1 (one cached ladder)", n)
	}
}
