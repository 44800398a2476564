package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
)

// TestAnAddressWithNoPageSaysSoInTheAppsLook asks the server for a
// mistyped page as a browser does and as a script does: the browser gets a
// 404 page linking the three pages, with nothing of the front end's own
// answer (its ETag named a page it did not give); the script, the plain 404.
func TestAnAddressWithNoPageSaysSoInTheAppsLook(t *testing.T) {
	s := startServer(t, nil)
	get := func(path, accept string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		res, err := http.DefaultClient.Do(req)
		return res, string(sandboxtest.Body(t, res, err))
	}
	res, body := get("/tier", "text/html,application/xhtml+xml,*/*;q=0.8")
	if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("Etag") != "" {
		t.Errorf("a browser at /tier: HTTP %d, %q, ETag %q; want 404, an HTML page and no ETag", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Etag"))
	}
	for _, want := range []string{"There is no page at <code>/tier</code>", `href="/tiers"`, `href="/limits"`, `href="/"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
	if res, body := get("/web/nope.js", "*/*"); res.StatusCode != http.StatusNotFound || strings.Contains(body, "<html") {
		t.Errorf("a script at /web/nope.js: HTTP %d\n%s", res.StatusCode, body)
	}
	if res, _ := get("/tiers", "text/html"); res.StatusCode != http.StatusOK {
		t.Errorf("/tiers: HTTP %d", res.StatusCode)
	}
}
