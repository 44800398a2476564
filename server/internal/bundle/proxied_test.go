package bundle

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
)

// TestTheFilesGoAppProxiesAreNeverFetchedFromTheRequestsHost: go-app's
// handler answers /robots.txt, /sitemap.xml and /ads.txt by fetching
// http://<the request's Host>/web/<name>, and keeps what it got, with that
// answer's Content-Type and Content-Encoding, for every later request. The
// gateway answers the loopback names on any port (docs/decisions.md#host-names),
// and every name with RISKCHART_ALLOWED_HOSTS=*, so one request naming
// another service's address would make the server fetch from it and serve
// its answer, as this origin's, to everyone: an HTML page, or a script that
// the policy's script-src 'self' lets run.
func TestTheFilesGoAppProxiesAreNeverFetchedFromTheRequestsHost(t *testing.T) {
	var fetched atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<script src="/sitemap.xml"></script>planted`)
	}))
	defer other.Close()
	front, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	client, err := venue.New(venue.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := gateway.New(gateway.Config{Venue: client, App: front})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	version := getWith(front, "/app.js", nil).Header().Get(VersionHeader) // go-app takes its paths under the version too
	for _, path := range []string{"/robots.txt", "/sitemap.xml", "/ads.txt", "/" + version + "/robots.txt"} {
		t.Run(path, func(t *testing.T) {
			get := func(host string) (int, string, string) {
				req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = host
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, res.Header.Get("Content-Type"), string(b)
			}
			before := fetched.Load()
			get(other.Listener.Addr().String()) // 127.0.0.1:<another service's port>
			status, ct, body := get(srv.Listener.Addr().String())
			if n := fetched.Load() - before; n != 0 || strings.Contains(body, "planted") {
				t.Errorf("GET %s with Host %s made the server fetch it %d times from that host; the next browser got HTTP %d, %s: %.80q",
					path, other.Listener.Addr(), n, status, ct, body)
			}
		})
	}
}
