package gateway

import (
	"net/http"
	"strings"
)

// notFoundPage is what a browser shows at an address the server has no
// page for: the app's look (both themes), the path asked for, and the
// three pages there are.
var notFoundPage = serverPage("not-found", `{{define "title"}}no such page{{end}}{{define "main"}}
<p>There is no page at <code>{{.}}</code>.</p>
<p class="muted">Riskchart has three:</p>
<ul><li><a href="/">the chart</a></li><li><a href="/tiers">the risk-limit tiers</a></li><li><a href="/limits">your position limits</a></li></ul>
{{end}}`)

// notFoundPathMax is how much of an unknown path the page repeats.
const notFoundPathMax = 200

// withNotFoundPage answers a browser's visit to an address nothing on the
// server serves (the front end's plain-text "404 page not found") with
// notFoundPage, still 404. A script's, a style's or an API client's
// request, which does not ask for HTML, keeps the plain answer.
func withNotFoundPage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead || !asksForHTML(r.Header.Values("Accept")) {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&notFoundWriter{ResponseWriter: w, r: r}, r)
	})
}

// asksForHTML reports whether a request's Accept field lines, read as one
// list (RFC 9110, 5.3), name text/html.
func asksForHTML(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "text/html") {
			return true
		}
	}
	return false
}

// notFoundWriter writes notFoundPage in place of a 404's body.
type notFoundWriter struct {
	http.ResponseWriter
	r        *http.Request
	replaced bool // the 404 went out with the page: the handler's own body is dropped
}

func (n *notFoundWriter) WriteHeader(code int) {
	if code != http.StatusNotFound || n.replaced {
		n.ResponseWriter.WriteHeader(code)
		return
	}
	n.replaced = true
	h := n.Header()
	h.Del("Content-Length")
	h.Del("Etag") // the front end's, of the answer it meant to give
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	n.ResponseWriter.WriteHeader(code)
	if n.r.Method == http.MethodHead {
		return
	}
	path := n.r.URL.Path
	if len(path) > notFoundPathMax {
		path = strings.ToValidUTF8(path[:notFoundPathMax], "") + "…"
	}
	notFoundPage.Execute(n.ResponseWriter, path)
}

func (n *notFoundWriter) Write(b []byte) (int, error) {
	if n.replaced {
		return len(b), nil
	}
	return n.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (n *notFoundWriter) Unwrap() http.ResponseWriter { return n.ResponseWriter }
