//go:build !js

package components

import (
	"html"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

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

// The risk panels' offline notice writes the time the data was saved in
// the view's zone, as the tables' "Fetched" line beside it does (clock):
// in UTC, named, when the view is in UTC. The saved time comes back from
// storage in the offset it was saved with (browser.ReadLastSeen).
func TestTheRiskOfflineNoticeIsInTheViewsZone(t *testing.T) {
	saved := time.Date(2026, 7, 6, 23, 35, 46, 0, time.UTC).In(time.FixedZone("", -4*3600)) // as read back from a save in New York
	for _, tc := range []struct {
		name string
		utc  bool
		want string
	}{
		{"UTC view", true, "Offline, as of 2026-07-06 23:35:46 UTC"},
		{"local view", false, "Offline, as of " + saved.In(time.Local).Format("2006-01-02 15:04:05")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &RiskPanel{Contract: "BTC-USDT", UTC: tc.utc, offlineAt: saved}
			p.tiersState.dataAt = saved
			out := html.UnescapeString(app.HTMLString(p.Render()))
			if !strings.Contains(out, tc.want) {
				i := strings.Index(out, "Offline")
				t.Errorf("want %q, got %q", tc.want, out[i:min(len(out), i+60)])
			}
		})
	}
}
