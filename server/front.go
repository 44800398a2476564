package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"time"

	"github.com/riskchart/riskchart/server/internal/embedlink"
)

// demoLinkPath answers the embed demo a signed link for its private panels,
// only where the server made one (demoLinks).
const demoLinkPath = "/embed/demo/link"

// logSummaryEvery is how often the log sums up what the server answered.
const logSummaryEvery = time.Minute

// demoContracts are the contracts the demo page's buttons switch between.
var demoContracts = []string{"BTC-USDT", "ETH-USDT"}

// withFrontExtras adds to the front end what browsers ask of every site:
// /favicon.ico (the app's 192 px icon, so that no page gets a 404 for it),
// and, when links is not nil, the demo page's embed link.
func withFrontExtras(front http.Handler, root string, links *embedlink.Signer, maxTTL time.Duration) http.Handler {
	icon := filepath.Join(root, "web", "icon-192.png")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/favicon.ico":
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Cache-Control", "public, max-age=86400")
			http.ServeFile(w, r, icon)
		case r.URL.Path == demoLinkPath && links != nil:
			tok, err := links.Issue(embedlink.Scope{Contracts: demoContracts, Panels: []string{embedlink.PanelTiers, embedlink.PanelLimits},
				Expires: time.Now().Add(min(24*time.Hour, maxTTL))})
			if err != nil {
				http.Error(w, "signing the demo's embed link failed", http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			json.NewEncoder(w).Encode(map[string]string{"link": tok})
		default:
			front.ServeHTTP(w, r)
		}
	})
}

// demoLinks reports whether the embed demo gets a link of the server's
// own: only with the embedded sandbox (its data is made up), on a loopback
// listener, and with no RISKCHART_EMBED_KEY (whose links the operator hands
// out). A real venue's private data never gets a link this way
// (docs/deploy.md#the-embed-demo).
func demoLinks(cfg config) bool {
	return cfg.VenueURL == "" && cfg.EmbedKey == "" && loopbackOnly(cfg.Addr)
}
