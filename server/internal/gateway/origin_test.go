package gateway_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/venueapi"
)

func TestPrivatePathsRefuseRequestsFromOtherSitesPages(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.FrameAncestors = []string{"https://partner.example", "https://*.embeds.example"}
		c.PublicURL, _ = url.Parse("https://charts.example.com")
	}})
	own := strings.TrimSuffix(s.url, "/") // http://127.0.0.1:port, the origin of a page this server served
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	limits := venueapi.PathPositionLimit + "?contract_code=BTC-USDT"
	for _, tc := range []struct {
		name     string
		header   []string
		answered bool
	}{
		{"curl or a venue client: neither header", nil, true},
		{"the browser on a page of this server", []string{"Sec-Fetch-Site", "same-origin"}, true},
		{"the browser, typed into the address bar", []string{"Sec-Fetch-Site", "none"}, true},
		{"this server's own origin", []string{"Sec-Fetch-Site", "same-origin", "Origin", own}, true},
		{"the public URL's origin, Host rewritten by a proxy", []string{"Origin", "https://charts.example.com"}, true},
		{"another site's page", []string{"Sec-Fetch-Site", "cross-site"}, false},
		{"another site's page, naming a frame ancestor", []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://partner.example"}, false},
		{"another origin of this site, unnamed", []string{"Sec-Fetch-Site", "same-site"}, false},
		{"another origin of this site that frames the pages", []string{"Sec-Fetch-Site", "same-site", "Origin", "https://partner.example"}, true},
		{"another origin of this site that does not", []string{"Sec-Fetch-Site", "same-site", "Origin", "https://blog.example.com"}, false},
		{"a frame ancestor, by an older browser", []string{"Origin", "https://partner.example"}, true},
		{"a subdomain under a wildcard ancestor", []string{"Origin", "https://a.embeds.example"}, true},
		{"the wildcard's own domain", []string{"Origin", "https://embeds.example"}, false},
		{"a frame ancestor's host over another scheme", []string{"Origin", "http://partner.example"}, false},
		{"a foreign origin, by an older browser", []string{"Origin", "https://evil.example"}, false},
		{"an opaque origin (a sandboxed frame, a file)", []string{"Origin", "null"}, false},
		{"an empty origin", []string{"Origin", ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, req := range []struct{ method, path, contentType, body string }{
				{"GET", tiers, "", ""},
				{"GET", limits, "", ""},
				// A form or a fetch in no-cors mode: no preflight asks first.
				{"POST", limits, "text/plain", `{"contract_code":"BTC-USDT"}`},
			} {
				before := s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit)
				header := append([]string{"Content-Type", req.contentType}, tc.header...)
				a := s.do(t, req.method, req.path, req.body, header...)
				code, msg := a.errCode(t)
				refused := code == venueapi.CodeForbidden && strings.Contains(msg, "other sites' pages")
				if refused == tc.answered {
					t.Fatalf("%s %s: HTTP %d %s, want answered %v", req.method, req.path, a.status, a.body, tc.answered)
				}
				if !refused {
					continue
				}
				if a.header.Get("Cache-Control") != "private, no-store" {
					t.Errorf("%s %s: Cache-Control %q", req.method, req.path, a.header.Get("Cache-Control"))
				}
				if after := s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit); after != before {
					t.Fatalf("%s %s: a refused request reached the venue", req.method, req.path)
				}
			}
		})
	}
	// Public data stays public: the chart of another site may show candles.
	if a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); a.status != http.StatusOK {
		t.Fatalf("candles for another site's page: HTTP %d %s", a.status, a.body)
	}
}

// FuzzParseFrameAncestors feeds the setting arbitrary text: nothing panics,
// and nothing it accepts can end the frame-ancestors directive or add a
// keyword to it.
func FuzzParseFrameAncestors(f *testing.F) {
	for _, s := range []string{"https://a.example", "https://*.a.example:8443 'self'", "https://a.com; script-src *", "'none'", "https:", "http://a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		sources, err := gateway.ParseFrameAncestors(list)
		if err != nil {
			return
		}
		for _, src := range sources {
			if src != "'self'" && (strings.ContainsAny(src, ";,'\" \t\n\r\f") || !strings.Contains(src, "://")) {
				t.Fatalf("accepted %q from %q", src, list)
			}
		}
	})
}
