package embedlink

import (
	"strings"
	"testing"
	"time"
)

func TestALinkGrantsExactlyItsScopeUntilItExpires(t *testing.T) {
	s, err := NewSigner([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tok, err := s.Issue(Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelTiers}, Expires: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := s.Check(tok)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		panel, contract string
		at              time.Time
		want            bool
	}{
		{PanelTiers, "BTC-USDT", now, true},
		{PanelLimits, "BTC-USDT", now, false},
		{PanelTiers, "ETH-USDT", now, false},
		{PanelTiers, "BTC-USDT", now.Add(time.Hour), false},
	} {
		if got := sc.Allows(tt.panel, tt.contract, tt.at); got != tt.want {
			t.Errorf("%s %s at %s: %v, want %v", tt.panel, tt.contract, tt.at, got, tt.want)
		}
	}
	body, sig, _ := strings.Cut(tok, ".")
	other, _ := NewSigner([]byte(strings.Repeat("x", 32)))
	for name, bad := range map[string]string{
		"a tampered scope": strings.ToUpper(body[:1]) + body[1:] + "A." + sig,
		"a tampered mac":   body + "." + sig[:len(sig)-2] + "AA",
		"no dot":           body,
		"another key's mac": func() string {
			t, _ := other.Issue(Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelTiers}, Expires: now.Add(time.Hour)})
			return t
		}(),
	} {
		if _, err := s.Check(bad); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
	if _, err := NewSigner([]byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}

func FuzzCheck(f *testing.F) {
	s, _ := NewSigner([]byte(strings.Repeat("k", 32)))
	tok, _ := s.Issue(Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelLimits}, Expires: time.Unix(2e9, 0)})
	f.Add(tok)
	f.Add("a.b")
	f.Fuzz(func(t *testing.T, token string) {
		sc, err := s.Check(token)
		if err == nil && token != tok {
			// Only a token this signer issued can pass; it must carry a scope.
			if len(sc.Contracts) == 0 {
				t.Fatalf("accepted %q with an empty scope", token)
			}
		}
	})
}
