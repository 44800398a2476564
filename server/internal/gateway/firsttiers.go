package gateway

import (
	"encoding/json"
	"net/http"

	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// withFirstTiers lets the chart page carry the tiers this server holds for
// its contract, so that the risk panel shows them before app.wasm runs
// (docs/architecture.md, "first paint"). Only for a viewer the tier path
// would answer (access.go), and only from the cache: a page never calls the
// venue.
func (s *server) withFirstTiers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/" && shownNow(r) && s.mayViewPrivate(r) {
			r = r.WithContext(firstdata.WithTiers(r.Context(), s.cachedTiers))
		}
		next.ServeHTTP(w, r)
	})
}

// shownNow reports whether r is a page load a browser shows, not a fetch of
// the page to keep: the service worker keeps "/" as the shell of every
// view, and a shell with one contract's tiers would show them for another.
func shownNow(r *http.Request) bool {
	dest := r.Header.Get("Sec-Fetch-Dest")
	return dest == "" || dest == "document"
}

// mayViewPrivate is private's rule for a request without an embed header:
// on loopback anyone, otherwise a viewer token (a proxied request is not
// from this machine).
func (s *server) mayViewPrivate(r *http.Request) bool {
	return !(s.cfg.Public || s.forwarded(r)) || s.viewer(r)
}

// cachedTiers is the tier path's answer for contract when this process
// holds it fresh, as of when it was fetched.
func (s *server) cachedTiers(contract string) ([]byte, bool) {
	e, ok, fresh := s.tiers.entry("tiers|" + contract)
	if !ok || !fresh || e.err != nil {
		return nil, false
	}
	held, isTiers := e.v.(*venueapi.TierEnvelope)
	if !isTiers || held == nil {
		return nil, false
	}
	env := *held // a copy: the cached one is shared
	env.Stale, env.Ts = false, e.at.UnixMilli()
	body, err := json.Marshal(env)
	return body, err == nil
}
