package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
)

// TestABrowsersVisitToNoPageGetsAPageSayingSo: the front end answers an
// unknown path with a plain-text 404; a browser's visit (it asks for HTML)
// gets the app's page naming the path and the three pages, 404 still. A
// script's or an API client's request keeps the plain answer, and what the
// front end serves passes untouched.
func TestABrowsersVisitToNoPageGetsAPageSayingSo(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.App = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/tiers" {
				w.Write([]byte("the tiers page"))
				return
			}
			http.NotFound(w, r)
		})
	}})
	browser := []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
	for _, tc := range []struct {
		name, method, path string
		accept             []string // one field line each
		status             int
		contentType        string
		has                []string
	}{
		{"a mistyped page", "GET", "/tier", browser, 404, "text/html; charset=utf-8",
			[]string{`There is no page at <code>/tier</code>`, `href="/"`, `href="/tiers"`, `href="/limits"`, `/web/style.css`}},
		{"a path with markup in it", "GET", "/%3Cscript%3Ealert(1)%3C/script%3E", browser, 404, "text/html; charset=utf-8",
			[]string{`<code>/&lt;script&gt;alert(1)&lt;/script&gt;</code>`}},
		{"a path too long to repeat", "GET", "/" + strings.Repeat("a", 5000), browser, 404, "text/html; charset=utf-8",
			[]string{"<code>/" + strings.Repeat("a", 199) + "…</code>"}},
		{"HEAD", "HEAD", "/tier", browser, 404, "text/html; charset=utf-8", nil},
		{"HTML on a second Accept line", "GET", "/tier", []string{"application/xhtml+xml", "text/html"}, 404, "text/html; charset=utf-8",
			[]string{`There is no page at <code>/tier</code>`}},
		{"a script", "GET", "/web/nope.js", []string{"*/*"}, 404, "text/plain; charset=utf-8", []string{"404 page not found"}},
		{"an API client", "GET", "/api/nope", []string{"application/json"}, 404, "text/plain; charset=utf-8", []string{"404 page not found"}},
		{"a page there is", "GET", "/tiers", browser, 200, "", []string{"the tiers page"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var header []string
			for _, line := range tc.accept {
				header = append(header, "Accept", line)
			}
			a := s.do(t, tc.method, tc.path, "", header...)
			if a.status != tc.status || (tc.contentType != "" && a.header.Get("Content-Type") != tc.contentType) {
				t.Fatalf("HTTP %d %q, want %d %q:\n%s", a.status, a.header.Get("Content-Type"), tc.status, tc.contentType, a.body)
			}
			for _, want := range tc.has {
				if !strings.Contains(string(a.body), want) {
					t.Errorf("no %s in\n%.600s", want, a.body)
				}
			}
			if tc.contentType == "text/html; charset=utf-8" && strings.Contains(string(a.body), "404 page not found") {
				t.Errorf("the plain answer is still in the page:\n%s", a.body)
			}
			if tc.method == "HEAD" && len(a.body) > 0 {
				t.Errorf("HEAD answered %d bytes", len(a.body))
			}
		})
	}
}

// TestThePagesAnswerOtherMethodsWith405: the front end's pages and files are
// read, never written; a POST or a DELETE is refused naming the methods
// there are, and the page is not rendered for it.
func TestThePagesAnswerOtherMethodsWith405(t *testing.T) {
	rendered := 0
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.App = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rendered++
			w.Write([]byte("a page"))
		})
	}})
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		for _, path := range []string{"/", "/tiers", "/?contract_code=BTC-USDT&period=1min", "/web/app.wasm", "/nope"} {
			a := s.do(t, method, path, "", "Accept", "text/html")
			if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: HTTP %d, Allow %q, want 405 and GET, HEAD", method, path, a.status, a.header.Get("Allow"))
			}
		}
	}
	if rendered != 0 {
		t.Errorf("the front end answered %d requests of other methods", rendered)
	}
	if a := s.do(t, "GET", "/tiers", "", "Accept", "text/html"); a.status != 200 || string(a.body) != "a page" {
		t.Errorf("GET /tiers: HTTP %d %q", a.status, a.body)
	}
}
