package gateway

import (
	"net/http"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// withFirstTiers lets a page with a tier ladder (the chart page, /tiers, the
// tiers embed) carry the tiers this server holds for its contract, so that the
// risk panel shows them before app.wasm runs (docs/architecture.md, "The page
// before the app"). Only for a viewer the tier path would answer (access.go),
// and only from the cache: a page never calls the venue.
func (s *server) withFirstTiers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pageRead(r) && shownNow(r) {
			r = r.WithContext(firstdata.WithTiers(r.Context(), s.firstTiersFor(r)))
		}
		next.ServeHTTP(w, r)
	})
}

// firstTiersFor is the lookup of page request r. The viewer is judged when
// the page asks, for the page's contract: a file or a page without tiers
// costs nothing.
func (s *server) firstTiersFor(r *http.Request) firstdata.TiersLookup {
	return func(page firstdata.TiersPage) (venueapi.TierEnvelope, bool) {
		if !s.mayViewFirstTiers(r, page) {
			return venueapi.TierEnvelope{}, false
		}
		return s.cachedTiers(page.Contract)
	}
}

// mayViewFirstTiers reports whether the tier path would answer the viewer
// of page request r for the page's tiers. A page of this server is judged as
// the chart page always was (mayViewPrivate). An embed is judged as its
// panel's calls from inside the frame are (tiersAccess, embedDenied): with
// public tiers for anyone, otherwise by the signed link in its URL, for the
// panel and contract the link covers. The cross-site refusal does not apply:
// loading an embed is the framing page's navigation, another site's as a
// rule, while the panel's own calls are same-origin; which sites may frame it
// at all is the frame-ancestors policy's to say. A request that is not a
// page load (shownNow) gets nothing anyway.
func (s *server) mayViewFirstTiers(r *http.Request, page firstdata.TiersPage) bool {
	if !page.Embedded {
		return s.mayViewPrivate(r)
	}
	return s.cfg.PublicTiers || s.linkAllows(page.EmbedLink, embedlink.PanelTiers, page.Contract)
}

// pageRead reports whether r reads a page: a GET, or a HEAD, which answers
// the headers of the GET (its ETag and length), so carries the same data.
func pageRead(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// shownNow reports whether r is a page load a browser shows (in a tab or a
// frame, or one the service worker sends on to the network, which marks it:
// firstdata.NavigationHeader), not a fetch of the page to keep: the service
// worker keeps "/" as the shell of every view, and a shell with one
// contract's tiers would show them for another.
func shownNow(r *http.Request) bool {
	if r.Header.Get(firstdata.ShellHeader) != "" {
		return false // a shell the worker keeps
	}
	if r.Header.Get(firstdata.NavigationHeader) != "" {
		return true
	}
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "", "document", "iframe", "frame":
		return true
	}
	return false
}

// mayViewPrivate is private's rule for a request without an embed header:
// on loopback anyone, otherwise a viewer token (a proxied request is not
// from this machine).
func (s *server) mayViewPrivate(r *http.Request) bool {
	return !(s.cfg.Public || s.forwarded(r)) || s.viewer(r)
}

// cachedTiers is the tier path's answer for contract when this process
// holds it fresh, as of when it was fetched. Its tiers are the cache's,
// shared: read, never written.
func (s *server) cachedTiers(contract string) (venueapi.TierEnvelope, bool) {
	e, ok, fresh := s.tiers.entry("tiers|" + contract)
	if !ok || !fresh || e.err != nil {
		return venueapi.TierEnvelope{}, false
	}
	held, isTiers := e.v.(*venueapi.TierEnvelope)
	if !isTiers || held == nil {
		return venueapi.TierEnvelope{}, false
	}
	env := *held // a copy of the envelope: its age is the page's own
	env.Stale, env.Ts = false, e.at.UnixMilli()
	return env, true
}
