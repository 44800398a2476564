package clientaddr_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
)

func TestTheClientIsTheRightmostHopNoTrustedProxyVouchesFor(t *testing.T) {
	trusted, err := clientaddr.ParsePrefixes("10.0.0.0/8, 192.0.2.7, ::1")
	if err != nil {
		t.Fatal(err)
	}
	r := clientaddr.New(trusted, clientaddr.XForwardedFor)
	for _, tc := range []struct {
		name, peer    string
		header        http.Header
		want          string
		wantForwarded bool
	}{
		{"no proxy: the peer", "203.0.113.5:1234", nil, "203.0.113.5", false},
		{"an untrusted peer's header is ignored", "203.0.113.5:1234", http.Header{"X-Forwarded-For": {"1.2.3.4"}}, "203.0.113.5", false},
		{"a trusted peer without a header is the client", "10.1.2.3:80", nil, "10.1.2.3", false},
		{"one trusted proxy", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"198.51.100.9"}}, "198.51.100.9", true},
		{"a forged left part is not believed", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"6.6.6.6, 198.51.100.9"}}, "198.51.100.9", true},
		{"a chain of trusted proxies", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"6.6.6.6, 198.51.100.9, 192.0.2.7, 10.9.9.9"}}, "198.51.100.9", true},
		{"several header lines read as one list", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"6.6.6.6, 198.51.100.9", "10.9.9.9"}}, "198.51.100.9", true},
		{"every hop trusted: the leftmost", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"10.4.4.4, 10.9.9.9"}}, "10.4.4.4", true},
		{"a hop with a port", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"198.51.100.9:5555"}}, "198.51.100.9", true},
		{"IPv6 through an IPv6 loopback proxy", "[::1]:80", http.Header{"X-Forwarded-For": {"2001:db8::7"}}, "2001:db8::7", true},
		{"an IPv4-mapped peer is its IPv4 address", "[::ffff:10.1.2.3]:80", http.Header{"X-Forwarded-For": {"198.51.100.9"}}, "198.51.100.9", true},
		{"garbage from a trusted hop: the last good hop", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"198.51.100.9, garbage"}}, "10.1.2.3", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &http.Request{RemoteAddr: tc.peer, Header: tc.header}
			if req.Header == nil {
				req.Header = http.Header{}
			}
			got, forwarded, ok := r.Client(req)
			if !ok || got != netip.MustParseAddr(tc.want) || forwarded != tc.wantForwarded {
				t.Errorf("Client = %v forwarded=%v ok=%v, want %s forwarded=%v", got, forwarded, ok, tc.want, tc.wantForwarded)
			}
		})
	}
}

// TestOnlyTheForwardingHeaderTheOperatorNamesIsRead: a trusted proxy writes
// one of X-Forwarded-For and Forwarded and passes the other through as the
// browser sent it, so the other names whatever the browser likes and is
// never read (docs/deploy.md#behind-a-reverse-proxy).
func TestOnlyTheForwardingHeaderTheOperatorNamesIsRead(t *testing.T) {
	trusted, err := clientaddr.ParsePrefixes("10.0.0.0/8, 192.0.2.7, ::1")
	if err != nil {
		t.Fatal(err)
	}
	xff, fwd := clientaddr.XForwardedFor, clientaddr.Forwarded
	for _, tc := range []struct {
		name          string
		reads         clientaddr.Header
		peer          string
		header        http.Header
		want          string
		wantForwarded bool
	}{
		{"X-Forwarded-For: read, a Forwarded beside it ignored", xff, "10.1.2.3:80",
			http.Header{"X-Forwarded-For": {"198.51.100.9"}, "Forwarded": {"for=6.6.6.6"}}, "198.51.100.9", true},
		{"X-Forwarded-For: a browser's Forwarded alone names nobody", xff, "10.1.2.3:80",
			http.Header{"Forwarded": {"for=203.0.113.9"}}, "10.1.2.3", false},
		{"Forwarded: read, the browser's own X-Forwarded-For beside it ignored", fwd, "10.1.2.3:80",
			http.Header{"X-Forwarded-For": {"203.0.113.9"}, "Forwarded": {"for=198.51.100.9"}}, "198.51.100.9", true},
		{"Forwarded: a browser's X-Forwarded-For alone names nobody", fwd, "10.1.2.3:80",
			http.Header{"X-Forwarded-For": {"203.0.113.9"}}, "10.1.2.3", false},
		{"Forwarded: an untrusted peer's header is ignored", fwd, "203.0.113.5:1234",
			http.Header{"Forwarded": {"for=198.51.100.9"}}, "203.0.113.5", false},
		{"Forwarded: the browser's own element, appended to, is not believed", fwd, "10.1.2.3:80",
			http.Header{"Forwarded": {"for=6.6.6.6, for=198.51.100.9"}}, "198.51.100.9", true},
		{"Forwarded: several header lines read as one list", fwd, "10.1.2.3:80",
			http.Header{"Forwarded": {"for=6.6.6.6", "for=198.51.100.9", "for=10.9.9.9"}}, "198.51.100.9", true},
		{"Forwarded: quoted IPv6 with a port", fwd, "10.1.2.3:80",
			http.Header{"Forwarded": {`for="[2001:db8::7]:4711";proto=https`}}, "2001:db8::7", true},
		{"Forwarded: the rightmost untrusted", fwd, "10.1.2.3:80",
			http.Header{"Forwarded": {"for=6.6.6.6, for=198.51.100.9;by=10.1.2.3, for=10.9.9.9"}}, "198.51.100.9", true},
		{"Forwarded: For in any case", fwd, "10.1.2.3:80",
			http.Header{"Forwarded": {"For=198.51.100.9"}}, "198.51.100.9", true},
		{"Forwarded: an obfuscated hop stops the walk", fwd, "10.1.2.3:80",
			http.Header{"Forwarded": {"for=_hidden"}}, "10.1.2.3", true},
		{"Forwarded: IPv6 through an IPv6 loopback proxy", fwd, "[::1]:80",
			http.Header{"Forwarded": {`for="[2001:db8::7]"`}, "X-Forwarded-For": {"203.0.113.9"}}, "2001:db8::7", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clientaddr.New(trusted, tc.reads)
			got, forwarded, ok := r.Client(&http.Request{RemoteAddr: tc.peer, Header: tc.header})
			if !ok || got != netip.MustParseAddr(tc.want) || forwarded != tc.wantForwarded {
				t.Errorf("reading %s: Client = %v forwarded=%v ok=%v, want %s forwarded=%v", tc.reads, got, forwarded, ok, tc.want, tc.wantForwarded)
			}
		})
	}
}

func TestParseHeaderNamesTheTwoHeaders(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    clientaddr.Header
		wantErr bool
	}{
		{"X-Forwarded-For", clientaddr.XForwardedFor, false},
		{"x-forwarded-for", clientaddr.XForwardedFor, false},
		{"Forwarded", clientaddr.Forwarded, false},
		{"FORWARDED", clientaddr.Forwarded, false},
		{"", 0, true},
		{"X-Real-IP", 0, true},
		{"Forwarded-For", 0, true},
	} {
		got, err := clientaddr.ParseHeader(tc.in)
		switch {
		case tc.wantErr && (err == nil || err.Error() != "must be X-Forwarded-For or Forwarded"):
			t.Errorf("ParseHeader(%q) = %v, %v; want the error naming both headers", tc.in, got, err)
		case !tc.wantErr && (err != nil || got != tc.want):
			t.Errorf("ParseHeader(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if s := clientaddr.Forwarded.String() + " " + clientaddr.XForwardedFor.String(); s != "Forwarded X-Forwarded-For" {
		t.Errorf("the headers' names: %q", s)
	}
}

// TestClientDoesNotAllocate: Client runs on every request, under either
// setting.
func TestClientDoesNotAllocate(t *testing.T) {
	trusted, _ := clientaddr.ParsePrefixes("10.0.0.0/8")
	for _, tc := range []struct {
		reads  clientaddr.Header
		header http.Header
	}{
		{clientaddr.XForwardedFor, http.Header{"X-Forwarded-For": {"6.6.6.6, 198.51.100.9, 10.9.9.9"}, "Forwarded": {"for=6.6.6.6"}}},
		{clientaddr.Forwarded, http.Header{"Forwarded": {`for=6.6.6.6, for="2001:db8::7";proto=https, for=10.9.9.9`}, "X-Forwarded-For": {"6.6.6.6"}}},
		// With ports, as a proxy may write them.
		{clientaddr.Forwarded, http.Header{"Forwarded": {`for="198.51.100.9:4711", for="[2001:db8::7]:4711";proto=https, for="10.9.9.9:80"`}}},
		{clientaddr.Forwarded, http.Header{"Forwarded": {`for="[2001:db8::7]", for="[2001:db8::8]"`}}},
		{clientaddr.XForwardedFor, http.Header{"X-Forwarded-For": {"198.51.100.9:4711, [2001:db8::7]:4711, 10.9.9.9"}}},
	} {
		r := clientaddr.New(trusted, tc.reads)
		req := &http.Request{RemoteAddr: "10.1.2.3:80", Header: tc.header}
		if n := testing.AllocsPerRun(100, func() { r.Client(req) }); n != 0 {
			t.Errorf("reading %s: %v allocations a request, want none", tc.reads, n)
		}
	}
}

func TestWithoutTrustedProxiesNoHeaderIsBelieved(t *testing.T) {
	var r clientaddr.Resolver
	req := &http.Request{RemoteAddr: "127.0.0.1:9", Header: http.Header{"X-Forwarded-For": {"198.51.100.9"}}}
	if got, forwarded, _ := r.Client(req); got != netip.MustParseAddr("127.0.0.1") || forwarded {
		t.Errorf("Client = %v forwarded=%v, want the peer", got, forwarded)
	}
	req.RemoteAddr = "pipe"
	if _, _, ok := r.Client(req); ok {
		t.Error("a RemoteAddr that is no address gave an address")
	}
}

func TestParsePrefixesNamesTheEntryAndTheRule(t *testing.T) {
	for _, tc := range []struct{ in, wantErr string }{
		{"", ""},
		{"127.0.0.1/32,10.0.0.0/8", ""},
		{"::1, fd00::/8", ""},
		{"10.0.0.1/8", "entry 1 (\"10.0.0.1/8\") has bits set past its prefix length: write 10.0.0.0/8"},
		{"10.0.0.0/8,,", "entry 2 is empty"},
		{"nginx", "entry 1 (\"nginx\") must be a CIDR prefix"},
		{"10.0.0.0/33", "entry 1 (\"10.0.0.0/33\") must be a CIDR prefix"},
		{"fe80::1%eth0", "must be a CIDR prefix"},
	} {
		_, err := clientaddr.ParsePrefixes(tc.in)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("ParsePrefixes(%q) = %v, want %q", tc.in, err, tc.wantErr)
		}
	}
}

func FuzzClient(f *testing.F) {
	f.Add("10.1.2.3:80", "6.6.6.6, 198.51.100.9", "", false)
	f.Add("[::1]:80", "", `for="[2001:db8::7]:4711"`, true)
	f.Add("10.1.2.3:80", "203.0.113.9", "for=198.51.100.9", true)
	trusted, _ := clientaddr.ParsePrefixes("10.0.0.0/8,::1")
	f.Fuzz(func(t *testing.T, peer, xff, fwd string, readForwarded bool) {
		reads, other := clientaddr.XForwardedFor, "Forwarded"
		if readForwarded {
			reads, other = clientaddr.Forwarded, "X-Forwarded-For"
		}
		r := clientaddr.New(trusted, reads)
		h := http.Header{}
		if xff != "" {
			h.Set("X-Forwarded-For", xff)
		}
		if fwd != "" {
			h.Set("Forwarded", fwd)
		}
		got, forwarded, ok := r.Client(&http.Request{RemoteAddr: peer, Header: h})
		if !ok {
			return
		}
		// The header not named changes nothing.
		h.Del(other)
		if again, fwdAgain, _ := r.Client(&http.Request{RemoteAddr: peer, Header: h}); again != got || fwdAgain != forwarded {
			t.Fatalf("reading %s, %s changed the client from %v to %v", reads, other, again, got)
		}
		if !got.IsValid() {
			t.Fatalf("an invalid address for peer %q", peer)
		}
		// Whatever the headers say, an untrusted peer is its own client.
		if p, err := netip.ParseAddrPort(peer); err == nil && !r.Trusted(p.Addr()) && (forwarded || got != p.Addr().Unmap()) {
			t.Fatalf("untrusted peer %q became %v", peer, got)
		}
	})
}

// A trusted proxy is trusted whatever form its peer address takes: a peer
// reached over IPv4 is its IPv4 address, IPv4-mapped or not, so a trusted
// prefix written in the mapped form must match it, as a mapped single
// address does; a proxy reached over a link-local address arrives with its
// interface's zone (fe80::1%eth0), which the operator cannot list
// (ParsePrefixes refuses zones), and is the same proxy.
func TestATrustedProxyIsTrustedWhateverFormItsAddressTakes(t *testing.T) {
	for _, tc := range []struct{ list, peer string }{
		{"::ffff:10.0.0.0/104", "10.1.2.3:80"},
		{"::ffff:10.0.0.0/104", "[::ffff:10.1.2.3]:80"},
		{"::ffff:192.0.2.7/128", "192.0.2.7:80"},
		{"::ffff:192.0.2.7", "192.0.2.7:80"},
		{"fe80::/10", "[fe80::1%eth0]:80"},
		{"fe80::1", "[fe80::1%eth0]:80"},
	} {
		trusted, err := clientaddr.ParsePrefixes(tc.list)
		if err != nil {
			t.Fatalf("ParsePrefixes(%q): %v", tc.list, err)
		}
		r := clientaddr.New(trusted, clientaddr.XForwardedFor)
		req := &http.Request{RemoteAddr: tc.peer, Header: http.Header{"X-Forwarded-For": {"198.51.100.9"}}}
		if got, forwarded, _ := r.Client(req); got != netip.MustParseAddr("198.51.100.9") || !forwarded {
			t.Errorf("trusted %q, peer %s: Client = %v forwarded=%v, want the forwarded client", tc.list, tc.peer, got, forwarded)
		}
	}
}
