package clientaddr

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseHopTakesAnAddressWithOrWithoutAPort(t *testing.T) {
	for _, tc := range []struct {
		hop, want string // want "": refused
	}{
		{"192.0.2.1", "192.0.2.1"},
		{"192.0.2.1:4711", "192.0.2.1"},
		{"192.0.2.1:0", "192.0.2.1"},
		{"192.0.2.1:65535", "192.0.2.1"},
		{"2001:db8::1", "2001:db8::1"},
		{"[2001:db8::1]", "2001:db8::1"},
		{"[2001:db8::1]:4711", "2001:db8::1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:80", "192.0.2.1"},
		{"", ""},
		{"192.0.2.1:", ""},
		{"192.0.2.1:65536", ""},
		{"192.0.2.1:99999999999999999999", ""},
		{"192.0.2.1:-1", ""},
		{"192.0.2.1:http", ""},
		{"[192.0.2.1]:80", ""},
		{"[192.0.2.1]", ""},
		{"[2001:db8::1]:", ""},
		{"[2001:db8::1]x", ""},
		{"[2001:db8::1", ""},
		{"2001:db8::1]", ""},
		{"2001:db8::1:80x", ""},
		{"fe80::1%eth0", ""},
		{"[fe80::1%eth0]:80", ""},
		{"_hidden", ""},
		{"unknown", ""},
	} {
		a, err := parseHop(tc.hop)
		if got := a.String(); tc.want == "" && err == nil || tc.want != "" && (err != nil || got != tc.want) {
			t.Errorf("parseHop(%q) = %v, %v; want %q", tc.hop, a, err, tc.want)
		}
	}
}

// FuzzParseHop holds parseHop to the standard library's parsers: it takes
// what netip.ParseAddr or netip.ParseAddrPort takes (without a zone), as
// they read it, a bracketed IPv6 address without a port as well, and
// nothing else.
func FuzzParseHop(f *testing.F) {
	for _, s := range []string{"192.0.2.1", "192.0.2.1:4711", "[2001:db8::1]:4711", "[2001:db8::1]", "2001:db8::1", "[192.0.2.1]:80", "_x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, ok := netip.Addr{}, false
		if a, err := netip.ParseAddr(s); err == nil {
			want, ok = a, true
		} else if ap, err := netip.ParseAddrPort(s); err == nil {
			want, ok = ap.Addr(), true
		} else if inner, found := strings.CutPrefix(s, "["); found && strings.HasSuffix(inner, "]") {
			if a, err := netip.ParseAddr(strings.TrimSuffix(inner, "]")); err == nil && !a.Is4() {
				want, ok = a, true
			}
		}
		ok = ok && want.Zone() == ""
		got, err := parseHop(s)
		if ok != (err == nil) || ok && got != want.Unmap() {
			t.Fatalf("parseHop(%q) = %v, %v; the standard library reads %v (taken: %v)", s, got, err, want, ok)
		}
	})
}
