package api

import (
	"errors"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/embedscope"
)

// An embedded panel is refused, unasked, exactly what its link surely does
// not grant, in the words of the server's own refusal; outside an embed
// nothing is withheld.
func TestWithheldIsWhatAnEmbedsLinkSurelyDoesNotGrant(t *testing.T) {
	tiers := embedscope.Join(embedscope.Encode(embedscope.Payload{Contracts: []string{"BTC-USDT"}, Panels: []string{embedscope.PanelTiers}, Expires: 1}), []byte("signature"))
	for _, tc := range []struct {
		name         string
		embedded     bool
		token, panel string
		contract     string
		withheld     bool
	}{
		{"outside an embed", false, "", embedscope.PanelLimits, "BTC-USDT", false},
		{"the panel its link names", true, tiers, embedscope.PanelTiers, "BTC-USDT", false},
		{"a panel its link leaves out", true, tiers, embedscope.PanelLimits, "BTC-USDT", true},
		{"a contract its link leaves out", true, tiers, embedscope.PanelTiers, "ETH-USDT", true},
		{"an embed without a link", true, "", embedscope.PanelTiers, "BTC-USDT", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Withheld(tc.embedded, tc.token, tc.panel, tc.contract)
			if (err != nil) != tc.withheld {
				t.Fatalf("Withheld = %v, want withheld %v", err, tc.withheld)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrNoAccess) || !strings.Contains(err.Error(), tc.panel+" of "+tc.contract) {
				t.Errorf("the refusal %q is no ErrNoAccess naming the %s of %s", err, tc.panel, tc.contract)
			}
			if got := Words(err); got != Words(ErrNoAccess) {
				t.Errorf("the page says %q, as for the server's refusal %q", got, Words(ErrNoAccess))
			}
		})
	}
}
