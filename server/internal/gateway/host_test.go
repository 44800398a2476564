package gateway_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// withHost sends a GET of path to s with the Host header host ("" keeps the
// listener's address, as a browser on loopback sends it), and any header
// pairs.
func (s *stack) withHost(t *testing.T, host, path string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return send(t, s.from("127.0.0.1"), req)
}

func TestRequestsAreAnsweredOnlyForTheServersOwnHostNames(t *testing.T) {
	loopback := newStack(t, options{})
	public := newStack(t, options{gateway: func(c *gateway.Config) {
		c.PublicURL, _ = url.Parse("https://charts.example.com")
		c.AllowedHosts = []string{"10.0.0.5:8080", "Charts.Example.NET"}
	}})
	anyHost := newStack(t, options{gateway: func(c *gateway.Config) { c.AllowedHosts = []string{"*"} }})
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	kline := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2"
	for _, tc := range []struct {
		name     string
		s        *stack
		host     string
		path     string
		answered bool
	}{
		{"the listener's own address", loopback, "", tiers, true},
		{"localhost on another port (a local proxy)", loopback, "localhost:3000", tiers, true},
		{"localhost in capitals, with the root's dot", loopback, "LOCALHOST.", tiers, true},
		{"the IPv6 loopback", loopback, "[::1]:8080", tiers, true},
		{"a rebound name, for tiers", loopback, "rebind.evil.example", tiers, false},
		{"a rebound name with the port, for tiers", loopback, "rebind.evil.example:8080", tiers, false},
		{"a rebound name, for candles", loopback, "rebind.evil.example", kline, false},
		{"a rebound name, for a page", loopback, "rebind.evil.example", "/", false},
		{"a rebound name, for the metrics", loopback, "rebind.evil.example", "/metrics", false},
		{"a rebound name, for the contracts", loopback, "rebind.evil.example", venueapi.PathContracts, false},
		{"a rebound name, for the liveness probe", loopback, "rebind.evil.example", "/healthz", true},
		{"a rebound name, for the readiness probe", loopback, "rebind.evil.example", "/readyz", true},
		{"a name ending in localhost", loopback, "evil.localhost.example", tiers, false},
		{"the public URL's host", public, "charts.example.com", tiers, true},
		{"the public URL's host with a port", public, "charts.example.com:443", tiers, true},
		{"a name that starts with it", public, "charts.example.com.evil.example", tiers, false},
		{"an allowed host and its port", public, "10.0.0.5:8080", tiers, true},
		{"an allowed host on another port", public, "10.0.0.5:9090", tiers, false},
		{"an allowed host without its port", public, "10.0.0.5", tiers, false},
		{"an allowed name, any port, any case", public, "charts.example.net:8443", tiers, true},
		{"loopback still, behind a proxy that rewrites Host", public, "127.0.0.1:8080", tiers, true},
		{"any host when the operator says so", anyHost, "whatever.example", tiers, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.s.sb.Received(venueapi.PathTiers) + tc.s.klineCalls()
			a := tc.s.withHost(t, tc.host, tc.path)
			if tc.answered {
				if a.status == http.StatusMisdirectedRequest {
					t.Fatalf("HTTP 421 %s, want an answer", a.body)
				}
				return
			}
			code, msg := a.errCode(t)
			if a.status != http.StatusMisdirectedRequest || code != venueapi.CodeForbidden || !strings.Contains(msg, "RISKCHART_ALLOWED_HOSTS") ||
				a.header.Get("Content-Type") != "application/json" || a.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("HTTP %d %s (%s, %s), want 421 with the venue's envelope, code 403, naming the setting",
					a.status, a.body, a.header.Get("Content-Type"), a.header.Get("Cache-Control"))
			}
			if strings.Contains(string(a.body), `"data":[`) || string(a.body) == "app" {
				t.Fatalf("the refusal carries data: %s", a.body)
			}
			if a.header.Get("Content-Security-Policy") == "" || a.header.Get("X-Request-Id") == "" {
				t.Errorf("the refusal lacks the security headers or the request id: %v", a.header)
			}
			if after := tc.s.sb.Received(venueapi.PathTiers) + tc.s.klineCalls(); after != before {
				t.Fatalf("a refused request reached the venue: %d calls, want %d", after, before)
			}
		})
	}
}

func TestOffLoopbackTheServerNeedsTheHostNamesItAnswersFor(t *testing.T) {
	client, err := venue.New(venue.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	public := func(f func(*gateway.Config)) error {
		cfg := gateway.Config{Venue: client, Public: true, ViewerTokens: []venue.Secret{testViewer}}
		f(&cfg)
		_, err := gateway.New(cfg)
		return err
	}
	publicURL, _ := url.Parse("https://charts.example.com")
	for _, tc := range []struct {
		name    string
		config  func(*gateway.Config)
		wantErr string // "" for none
	}{
		{"neither a public URL nor allowed hosts", func(*gateway.Config) {}, "host names"},
		{"a public URL", func(c *gateway.Config) { c.PublicURL = publicURL }, ""},
		{"allowed hosts", func(c *gateway.Config) { c.AllowedHosts = []string{"charts.example.com"} }, ""},
		{"any host, said explicitly", func(c *gateway.Config) { c.AllowedHosts = []string{"*"} }, ""},
		{"an allowed host that is a URL", func(c *gateway.Config) { c.AllowedHosts = []string{"https://charts.example.com/"} }, `"https://charts.example.com/"`},
		{"a frame ancestor that widens the policy", func(c *gateway.Config) {
			c.AllowedHosts, c.FrameAncestors = []string{"charts.example.com"}, []string{"https://a.com;", "script-src", "*"}
		}, `"https://a.com;"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := public(tc.config)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("New: %v, want an error naming %s", err, tc.wantErr)
			}
		})
	}
	if err := public(func(*gateway.Config) {}); !errors.Is(err, gateway.ErrNoHostNames) {
		t.Fatalf("New: %v, want ErrNoHostNames", err)
	}
}

// FuzzHostCheck sends arbitrary Host headers: nothing panics, and a name
// that is none of the server's own is never answered.
func FuzzHostCheck(f *testing.F) {
	client, err := venue.New(venue.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		f.Fatal(err)
	}
	h, err := gateway.New(gateway.Config{Venue: client, AllowedHosts: []string{"charts.example:8443"},
		App: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("app")) })})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"127.0.0.1:8080", "localhost", "[::1]:1", "charts.example:8443", "evil.example", "", "[", ":", "LOCALHOST.:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		req := httptest.NewRequest("GET", "http://127.0.0.1/", nil)
		req.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if strings.Contains(strings.ToLower(host), "evil") && w.Code != http.StatusMisdirectedRequest {
			t.Fatalf("Host %q answered HTTP %d", host, w.Code)
		}
	})
}

// FuzzParseAllowedHosts feeds the setting arbitrary text: nothing panics,
// and what it accepts holds no URL syntax.
func FuzzParseAllowedHosts(f *testing.F) {
	for _, s := range []string{"charts.example.com", "a.example:8443,10.0.0.5", "*", "https://a.example", "[::1]:80", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		hosts, err := gateway.ParseAllowedHosts(list)
		if err != nil {
			return
		}
		for _, h := range hosts {
			if strings.ContainsAny(h, "/?#@ ,") {
				t.Fatalf("accepted %q from %q", h, list)
			}
		}
	})
}
