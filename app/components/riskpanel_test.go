//go:build !js

package components

import (
	"html"
	"testing"

	"github.com/riskchart/riskchart/app/embedscope"
)

// linkOf is a BTC-USDT embed link of panels as the embed reads it: the
// signature, which only the server checks, is not this package's concern.
func linkOf(panels ...string) string {
	return embedscope.Join(embedscope.Encode(embedscope.Payload{Contracts: []string{"BTC-USDT"}, Panels: panels, Expires: 1}), []byte("signature"))
}

// An embedded panel whose link does not grant the account's limits for
// its contract shows them refused from its first render, the server's
// prerender included, and never asks for them; one whose link may grant
// them, or a panel outside an embed, asks and waits for the server's word.
func TestAnEmbedsLinkWithoutTheLimitsRefusesThemUnasked(t *testing.T) {
	for _, tc := range []struct {
		name     string
		embedded bool
		link     string
		withheld bool
	}{
		{"a link of the tiers alone", true, linkOf(embedscope.PanelTiers), true},
		{"no link", true, "", true},
		{"a malformed link", true, "not-a-link", true},
		{"a link of both panels", true, linkOf(embedscope.PanelTiers, embedscope.PanelLimits), false},
		{"outside an embed", false, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &RiskPanel{Contract: "BTC-USDT", Show: "limits", Embedded: tc.embedded, EmbedToken: tc.link}
			_, out := render(t, p)
			out = html.UnescapeString(out)
			if got := p.withheld != nil; got != tc.withheld {
				t.Errorf("limits withheld: %v, want %v", got, tc.withheld)
			}
			if tc.withheld {
				says(t, out, []string{`id="limits-noaccess"`, `id="risk-noaccess"`}, []string{"Loading"})
			} else {
				says(t, out, []string{"Loading"}, []string{`id="limits-noaccess"`, `id="risk-noaccess"`})
			}
			if asked := p.begin(false, true).limits; asked == tc.withheld {
				t.Errorf("a refresh asks for the limits: %v, want %v", asked, !tc.withheld)
			}
		})
	}
}
