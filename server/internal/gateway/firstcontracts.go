package gateway

import (
	"net/http"

	"github.com/riskchart/riskchart/server/internal/firstdata"
)

// withFirstContracts lets the pages with a contract picker carry the contract
// list, so that the picker lists every contract before app.wasm runs and the
// app does not fetch it, and an embed its contract's entry of it
// (docs/architecture.md, "The page before the app"); which page shows the
// picker, and which one contract, is the front end's to say
// (pages.FirstContractPicker, pages.FirstOffer, bundle/firstcontracts.go). The
// list is the server's configuration, public as its path is (no access rule
// guards venueapi.PathContracts), so every page load a browser shows gets it;
// the service worker's shells do not (shownNow): a shell is kept across
// restarts of the server until the next release, and the app would adopt a
// list the server may no longer offer instead of asking for it.
func (s *server) withFirstContracts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pageRead(r) && shownNow(r) && len(s.cfg.Contracts) > 0 {
			r = r.WithContext(firstdata.WithContracts(r.Context(), s.contractsBody))
		}
		next.ServeHTTP(w, r)
	})
}

// contractsBody is the contract path's answer: the list the server offers,
// and whether it holds a venue key for private data (encoded in New).
func (s *server) contractsBody() ([]byte, bool) { return s.contracts, true }
