package gateway_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/venueapi"
)

// TestBrowsersBehindOneTrustedProxyEachHaveTheirOwnRate opens 300 charts at
// once through one reverse proxy, at the default per-client rate: each
// browser is known by the address the proxy names, so none is refused;
// without the proxy trusted, they share one budget and most are.
func TestBrowsersBehindOneTrustedProxyEachHaveTheirOwnRate(t *testing.T) {
	const browsers = 300
	now := newClock(10)
	opening := []string{ // what a chart asks for when it opens
		venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=300",
		venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2",
	}
	for _, tc := range []struct {
		name        string
		trusted     []netip.Prefix
		wantRefused func(n int64) bool
	}{
		{"the proxy trusted", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, func(n int64) bool { return n == 0 }},
		{"the proxy not trusted", nil, func(n int64) bool { return n >= browsers*int64(len(opening))-100 }}, // one burst of 100, then 429s
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStack(t, options{clock: now, gateway: func(c *gateway.Config) {
					c.TrustedProxies, c.ClientRate, c.ClientBurst = tc.trusted, 0, 0 // the defaults: 50 a second, bursts of 100
				}})
				var refused atomic.Int64
				concurrently(browsers, func(i int) {
					for _, p := range opening {
						a := s.get(t, p, "X-Forwarded-For", fmt.Sprintf("203.0.113.9, 198.51.%d.%d", i/250, i%250))
						switch a.status {
						case http.StatusOK:
						case http.StatusTooManyRequests:
							refused.Add(1)
						default:
							t.Errorf("browser %d: HTTP %d %s", i, a.status, a.body)
						}
					}
				})
				if n := refused.Load(); !tc.wantRefused(n) {
					t.Errorf("%d of %d requests refused", n, browsers*len(opening))
				}
			})
		})
	}
}

// TestABrowserBehindTheProxyPastItsOwnRateIsRefusedAlone: one address the
// proxy names spends its burst and gets 429 with Retry-After, while another
// behind the same proxy is still answered. Behind a proxy that writes
// Forwarded, the browser's own X-Forwarded-For, a new address each time,
// buys it nothing: only the header the operator names is read.
func TestABrowserBehindTheProxyPastItsOwnRateIsRefusedAlone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reads   clientaddr.Header
		names   func(client string) string // the header's value the proxy writes
		forgery string                     // the other header, as the browser sends it; "": none
	}{
		{"the proxy writes X-Forwarded-For", clientaddr.XForwardedFor, func(c string) string { return c }, ""},
		{"the proxy writes Forwarded, the browser its own X-Forwarded-For", clientaddr.Forwarded,
			func(c string) string { return "for=" + c + ";proto=https" }, "X-Forwarded-For"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) {
					c.TrustedProxies, c.ClientRate, c.ClientBurst = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, 5, 10
					c.ForwardedHeader = tc.reads
				}})
				header := tc.reads.String()
				get := func(client string, i int) reply {
					h := []string{header, tc.names(client)}
					if tc.forgery != "" {
						h = append(h, tc.forgery, fmt.Sprintf("203.0.113.%d", i+1))
					}
					return s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2", h...)
				}
				for i := range 10 {
					if a := get("198.51.100.1", i); a.status != http.StatusOK {
						t.Fatalf("request %d within the burst: HTTP %d", i+1, a.status)
					}
				}
				a := get("198.51.100.1", 10)
				if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" {
					t.Fatalf("past the burst: HTTP %d, Retry-After %q; want 429 with Retry-After", a.status, a.header.Get("Retry-After"))
				}
				if code, _ := a.errCode(t); code != venueapi.CodeRateLimited {
					t.Errorf("past the burst: code %d, want %d", code, venueapi.CodeRateLimited)
				}
				if a := get("198.51.100.2", 11); a.status != http.StatusOK {
					t.Errorf("another browser behind the proxy: HTTP %d", a.status)
				}
				// A header from an untrusted peer names nobody: that peer is the client.
				path := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2"
				other := s.from("127.0.0.5")
				for i := range 10 {
					req, _ := http.NewRequest(http.MethodGet, s.url+path, nil)
					req.Header.Set(header, tc.names(fmt.Sprintf("198.51.100.%d", 10+i)))
					send(t, other, req)
				}
				req, _ := http.NewRequest(http.MethodGet, s.url+path, nil)
				req.Header.Set(header, tc.names("198.51.100.99"))
				if a := send(t, other, req); a.status != http.StatusTooManyRequests {
					t.Errorf("an untrusted peer changing its header escaped its rate: HTTP %d", a.status)
				}
			})
		})
	}
}

// TestAProxiedRequestIsNotALoopbackViewer: a listener on loopback serves
// private data to this machine's browsers without a token; a request a
// trusted proxy forwards comes from elsewhere and needs one.
func TestAProxiedRequestIsNotALoopbackViewer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) {
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		}})
		path := venueapi.PathTiers + "?contract_code=BTC-USDT"
		if a := s.get(t, path); a.status != http.StatusOK || errCodeOf(t, a) != venueapi.CodeOK {
			t.Fatalf("a loopback browser: HTTP %d %s", a.status, a.body)
		}
		if a := s.get(t, path, "X-Forwarded-For", "198.51.100.1"); errCodeOf(t, a) != venueapi.CodeForbidden {
			t.Fatalf("a proxied browser without a token: HTTP %d %s, want code %d", a.status, a.body, venueapi.CodeForbidden)
		}
	})
}

func errCodeOf(t testing.TB, a reply) int {
	t.Helper()
	c, _ := a.errCode(t)
	return c
}

// TestAnIPv6ClientIsOneClientAcrossItsSlash64: one IPv6 host holds a whole
// /64 and may send each request from another address of it; the per-client
// rate counts the /64 (docs/architecture.md: "an IPv6 client counted as its
// /64. Every per-client bound (rate, streams, connections, fair share) keys
// on it"), so walking the /64 does not buy a fresh burst per request.
func TestAnIPv6ClientIsOneClientAcrossItsSlash64(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) {
			c.TrustedProxies, c.ClientRate, c.ClientBurst = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, 5, 10
		}})
		path := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2"
		refused := 0
		for i := range 30 {
			a := s.get(t, path, "X-Forwarded-For", fmt.Sprintf("2001:db8:1:2::%x", i+1))
			if a.status == http.StatusTooManyRequests {
				refused++
			}
		}
		if refused < 20 {
			t.Fatalf("30 requests from one /64, each from another address: %d refused, want all but the burst of 10", refused)
		}
		if a := s.get(t, path, "X-Forwarded-For", "2001:db8:1:3::1"); a.status != http.StatusOK {
			t.Errorf("another /64: HTTP %d, want its own rate", a.status)
		}
	})
}
