package gateway

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/riskchart/riskchart/venueapi"
)

// routes is the whole surface the server answers.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	// The venue's three paths, for browsers and any client of the venue.
	mux.Handle("GET "+venueapi.PathKLine, s.limited(s.handleKLine()))
	mux.Handle("GET "+venueapi.PathTiers, s.limited(s.tiersAccess(s.handleTiers())))
	mux.Handle("GET "+venueapi.PathPositionLimit, s.limited(s.private(s.handleLimits())))
	mux.Handle("POST "+venueapi.PathPositionLimit, s.limited(s.private(s.handleLimits())))
	// Any other method: 405 in the venue's envelope (the mux's own is plain text).
	mux.Handle(venueapi.PathKLine, s.limited(s.wrongMethod("GET, HEAD")))
	mux.Handle(venueapi.PathTiers, s.limited(s.wrongMethod("GET, HEAD")))
	mux.Handle(venueapi.PathPositionLimit, s.limited(s.wrongMethod("GET, HEAD, POST")))
	// Riskchart's own.
	mux.Handle("GET "+venueapi.PathContracts, s.handleContracts())
	mux.Handle("GET "+venueapi.PathEmbedConfig, s.handleEmbedConfig())
	// The stream is Riskchart's own route: its refusals carry ordinary HTTP
	// statuses (docs/decisions.md#gateway-error-statuses).
	mux.Handle("GET "+venueapi.PathStreamKLine, s.limited(s.handleStream())) // limited: each opening costs a request of the client's rate
	mux.Handle("GET /login", s.handleLoginPage())
	mux.Handle("POST /login", s.limited(s.handleLogin())) // limited: no token guessing at wire speed
	mux.Handle("GET /logout", s.handleLoginPage())        // the login page, with its sign-out button for a signed-in browser
	mux.Handle("POST /logout", s.handleLogout())
	// Operations.
	mux.Handle("GET /healthz", s.handleHealth())
	mux.Handle("GET /readyz", s.limited(s.handleReady())) // limited: a probe may be a venue call (ops.go)
	// With NoMetrics, /metrics is the front end's page for an address with none.
	if !s.cfg.NoMetrics {
		mux.Handle("GET /metrics", promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{}))
	}
	// The front end: pages, app.wasm, scripts, styles.
	// A page with a tier ladder may carry the tiers held for its contract
	// (firsttiers.go), and the chart page the contract list (firstcontracts.go).
	// A browser's visit to an address with no page gets a page saying so (notfound.go).
	mux.Handle("/", readOnly(withNotFoundPage(s.withRenderRate(s.withFirstContracts(s.withFirstTiers(s.cfg.App))))))
	return s.logged(s.secured(s.hostChecked(mux))) // hostChecked: only our own host names, see host.go
}

// readOnly answers a method other than GET and HEAD with 405: the front
// end's pages and files are read, never written, and a POST would otherwise
// render a page (a pattern "GET /" would conflict with the venue's paths
// that take every method).
func readOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "405 method not allowed: "+r.Method+" (the pages take GET and HEAD)", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}
