package gateway_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/embedlink"
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

// TestASignedEmbedLinkOpensWhatItScopesAndNothingElse: off loopback, an
// embed's request without a viewer token gets the panel and contract its
// signed link grants, until the link expires; any other panel, contract,
// a tampered or an expired link is refused, and costs the venue nothing.
func TestASignedEmbedLinkOpensWhatItScopesAndNothingElse(t *testing.T) {
	clk := newClock(10)
	links, err := embedlink.New(embedlink.Config{Key: bytes.Repeat([]byte("k"), embedlink.MinKeyLen), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	s := embedStack(t, clk, links)
	link, err := links.Issue(embedlink.Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{embedlink.PanelTiers}, Expires: clk.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	tampered := link[:len(link)-2] + map[bool]string{true: "AA", false: "BB"}[link[len(link)-2:] != "AA"]
	tiers := func(code string) string { return venueapi.PathTiers + "?contract_code=" + code }
	for _, tc := range []struct {
		name, path, link string
		advance          time.Duration
		refused          bool
	}{
		{"the tiers it grants", tiers("BTC-USDT"), link, 0, false},
		{"the tiers of another contract", tiers("ETH-USDT"), link, 0, true},
		{"the limits it does not grant", venueapi.PathPositionLimit + "?contract_code=BTC-USDT", link, 0, true},
		{"a tampered link", tiers("BTC-USDT"), tampered, 0, true},
		{"no link", tiers("BTC-USDT"), "", 0, true},
		{"the link once expired", tiers("BTC-USDT"), link, time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Advance(tc.advance)
			a := s.get(t, tc.path, venueapi.EmbedHeader, tc.link)
			if a.status != http.StatusOK {
				t.Fatalf("HTTP %d %s", a.status, a.body)
			}
			if code, msg := a.errCode(t); (code == venueapi.CodeForbidden) != tc.refused || (!tc.refused && code != venueapi.CodeOK) {
				t.Fatalf("code %d %q, want refused: %v", code, msg, tc.refused)
			}
		})
	}
	if n := s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit); n != 1 {
		t.Fatalf("the venue received %d private calls, want 1: the granted tiers alone", n)
	}
}

// TestAnEmbedLinksRefusalNamesTheHeaderAndTheRuleItBreaks: a refused embed
// call says which header held the link and which rule it broke (missing,
// malformed, tampered, expired, out of scope, longer than the longest
// lifetime), so that whoever embeds the panel knows what to fix.
func TestAnEmbedLinksRefusalNamesTheHeaderAndTheRuleItBreaks(t *testing.T) {
	clk := newClock(10)
	key := bytes.Repeat([]byte("k"), embedlink.MinKeyLen)
	long, err := embedlink.New(embedlink.Config{Key: key, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	links, err := embedlink.New(embedlink.Config{Key: key, MaxTTL: 2 * time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	s := embedStack(t, clk, links)
	issue := func(signer *embedlink.Signer, ttl time.Duration) string {
		link, err := signer.Issue(embedlink.Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{embedlink.PanelTiers}, Expires: clk.Now().Add(ttl)})
		if err != nil {
			t.Fatal(err)
		}
		return link
	}
	link, tooLong := issue(links, time.Hour), issue(long, 24*time.Hour)
	tampered := link[:len(link)-2] + map[bool]string{true: "AA", false: "BB"}[link[len(link)-2:] != "AA"]
	tiers := func(code string) string { return venueapi.PathTiers + "?contract_code=" + code }
	for _, tc := range []struct {
		name, path, link string
		advance          time.Duration
		names            string
	}{
		{"no link", tiers("BTC-USDT"), "", 0, "empty"},
		{"not a link", tiers("BTC-USDT"), "not-a-link", 0, "malformed"},
		{"a tampered link", tiers("BTC-USDT"), tampered, 0, "signature"},
		{"another contract", tiers("ETH-USDT"), link, 0, "does not grant ETH-USDT"},
		{"another panel", venueapi.PathPositionLimit + "?contract_code=BTC-USDT", link, 0, "does not grant the limits"},
		{"longer than the longest lifetime", tiers("BTC-USDT"), tooLong, 0, "may last at most 2h0m0s"},
		{"expired", tiers("BTC-USDT"), link, time.Hour, "expired at 2026-11-22T13:34:10Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Advance(tc.advance)
			a := s.get(t, tc.path, venueapi.EmbedHeader, tc.link)
			code, msg := a.errCode(t)
			if code != venueapi.CodeForbidden || !strings.Contains(msg, venueapi.EmbedHeader) || !strings.Contains(msg, tc.names) {
				t.Fatalf("code %d %q, want 403 naming %s and %q", code, msg, venueapi.EmbedHeader, tc.names)
			}
		})
	}
}

// TestAnEmbedAskingLimitsByPairIsToldTheLinkNamesContracts: a link grants
// contracts, so a limits call by pair (no contract_code) is refused naming
// contract_code and the rule, not "does not grant " and nothing.
func TestAnEmbedAskingLimitsByPairIsToldTheLinkNamesContracts(t *testing.T) {
	clk := newClock(10)
	links, err := embedlink.New(embedlink.Config{Key: bytes.Repeat([]byte("k"), embedlink.MinKeyLen), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	s := embedStack(t, clk, links)
	link, err := links.Issue(embedlink.Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{embedlink.PanelLimits}, Expires: clk.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, query string }{
		{"by pair", "?pair=BTC-USDT"},
		{"every contract", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, venueapi.PathPositionLimit+tc.query, venueapi.EmbedHeader, link)
			code, msg := a.errCode(t)
			if code != venueapi.CodeForbidden || !strings.Contains(msg, venueapi.EmbedHeader) || !strings.Contains(msg, "contract_code is required") {
				t.Fatalf("code %d %q, want 403 naming %s and contract_code", code, msg, venueapi.EmbedHeader)
			}
		})
	}
}

// embedStack is a stack off loopback (a public listener, a viewer token,
// one host name) whose embeds are judged by the links signs.
func embedStack(t *testing.T, clk *clock, links *embedlink.Signer) *stack {
	t.Helper()
	return newStack(t, options{clock: clk, gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens = true, []venue.Secret{testViewer}
		c.AllowedHosts = []string{"charts.example"}
		c.EmbedLinks = links
	}})
}
