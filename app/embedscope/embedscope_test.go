package embedscope

import (
	"strings"
	"testing"
)

// token is a link of p with a signature no server made: Withholds reads
// the scope alone.
func token(p Payload) string { return Join(Encode(p), []byte("not checked here")) }

func TestALinkWithholdsWhatItsScopeDoesNotName(t *testing.T) {
	both := token(Payload{Contracts: []string{"BTC-USDT", "ETH-USDT"}, Panels: []string{PanelLimits, PanelTiers}, Expires: 1})
	tiers := token(Payload{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelTiers}, Expires: 1})
	many := []string{"BTC-USDT"} // a scope that grants, in a token too long to read
	for len(many) < MaxToken/8 {
		many = append(many, "ETH-USDT")
	}
	long := token(Payload{Contracts: many, Panels: []string{PanelTiers}, Expires: 1})
	for _, tc := range []struct {
		name, token, panel, contract string
		want                         bool
	}{
		{"granted", both, PanelLimits, "ETH-USDT", false},
		{"granted, expired long ago: the server's clock judges", both, PanelTiers, "BTC-USDT", false},
		{"another panel", tiers, PanelLimits, "BTC-USDT", true},
		{"another contract", tiers, PanelTiers, "ETH-USDT", true},
		{"no link", "", PanelTiers, "BTC-USDT", true},
		{"no signature", strings.Split(both, ".")[0], PanelTiers, "BTC-USDT", true},
		{"not base64url", "a+b/c.d", PanelTiers, "BTC-USDT", true},
		{"a scope that is no JSON", Join([]byte("tiers"), []byte("x")), PanelTiers, "BTC-USDT", true},
		{"too long", long, PanelTiers, "BTC-USDT", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Withholds(tc.token, tc.panel, tc.contract); got != tc.want {
				t.Errorf("Withholds(a token of %d bytes, %s, %s) = %v, want %v", len(tc.token), tc.panel, tc.contract, got, tc.want)
			}
		})
	}
}

func TestATokenSplitsIntoWhatWasJoined(t *testing.T) {
	p := Payload{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelTiers}, Expires: 1767225600}
	tok := Join(Encode(p), []byte{0xff, 0x00, 0x7e})
	if strings.ContainsAny(tok, "+/=?&#") {
		t.Errorf("the token %q is not URL-safe as it is", tok)
	}
	payload, sig, err := Split(tok)
	if err != nil {
		t.Fatal(err)
	}
	if string(sig) != "\xff\x00\x7e" {
		t.Errorf("the signature came back as %x", sig)
	}
	got, err := Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	if got.Expires != p.Expires || strings.Join(got.Contracts, ",") != "BTC-USDT" || strings.Join(got.Panels, ",") != PanelTiers {
		t.Errorf("the payload came back as %+v, want %+v", got, p)
	}
}
