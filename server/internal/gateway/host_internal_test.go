package gateway

import (
	"net"
	"strings"
	"testing"
)

// FuzzSplitHostAnswersAsNetSplitHostPort: splitHost asks net.SplitHostPort
// only when a port may follow the name, and answers as if it always asked.
func FuzzSplitHostAnswersAsNetSplitHostPort(f *testing.F) {
	for _, s := range []string{"charts.example", "charts.example:8443", "[::1]", "[::1]:80", "::1", "127.0.0.1:", ":80", "[", "]:", "a]:1", "[a]b:1", "LOCALHOST.:", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		wantName, wantPort := strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
		if h, p, err := net.SplitHostPort(hostport); err == nil {
			wantName, wantPort = h, p
		}
		wantName = strings.TrimSuffix(strings.ToLower(wantName), ".")
		if name, port := splitHost(hostport); name != wantName || port != wantPort {
			t.Fatalf("splitHost(%q) = %q, %q; want %q, %q", hostport, name, port, wantName, wantPort)
		}
	})
}

// Every request's Host is split: one without a port, as a reverse proxy
// usually sends it, costs no allocation.
func TestSplittingAHostWithoutAPortAllocatesNothing(t *testing.T) {
	for _, host := range []string{"charts.example.com", "[2001:db8::1]", "charts.example.com:8443"} {
		if n := testing.AllocsPerRun(100, func() { splitHost(host) }); n != 0 {
			t.Errorf("splitHost(%q): %v allocations; want 0", host, n)
		}
	}
}
