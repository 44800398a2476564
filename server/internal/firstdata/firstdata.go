// Package firstdata hands what the gateway holds to the front end that
// prerenders a page, through the page request's context: the gateway knows
// its caches, who may see them and what each client may spend, the front
// end knows the page's view and whether it must render it.
package firstdata

import (
	"context"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// NavigationHeader marks the navigation of a page that the service worker
// (web/app-worker.js) sends on to the network: the page is being shown, as
// one the browser loads itself is (Sec-Fetch-Dest: document), while the
// worker's requests otherwise come as fetches, Sec-Fetch-Dest: empty, its
// shells among them, which carry no first data.
const NavigationHeader = "Riskchart-Navigation"

// ShellHeader marks the service worker's request for a shell it keeps until
// the next release (web/app-worker.js): never a page being shown, even
// without Sec-Fetch-Dest (a browser without Fetch Metadata, or a proxy that
// drops it), which a page the browser loads itself may lack.
const ShellHeader = "Riskchart-Shell"

// TiersPage is the tier ladder a page shows, as the gateway judges it: its
// contract, and for an embed the signed link in the page's URL, by which
// alone an embed's panel is judged ("" for none).
type TiersPage struct {
	Contract  string
	Embedded  bool
	EmbedLink string
}

// TiersLookup returns the tier path's answer for the page's contract, as
// the server holds it (decoded: the page draws the table from it and writes
// it once for the app), when the server holds it fresh and the tier path
// would answer the page's viewer for it; ok is false otherwise.
type TiersLookup func(page TiersPage) (env venueapi.TierEnvelope, ok bool)

type tiersKey struct{}

// WithTiers is ctx carrying lookup.
func WithTiers(ctx context.Context, lookup TiersLookup) context.Context {
	return context.WithValue(ctx, tiersKey{}, lookup)
}

// Tiers is the lookup ctx carries; ok is false when it carries none (the
// viewer may not see tiers, or no gateway is in front).
func Tiers(ctx context.Context) (lookup TiersLookup, ok bool) {
	lookup, ok = ctx.Value(tiersKey{}).(TiersLookup)
	return lookup, ok && lookup != nil
}

// RenderAdmit charges the rendering of a page to its client, as the gateway
// counts the client's requests: ok is false when the client's rate is spent,
// and wait is then how long until it may try again. A page sent as it was
// kept, or revalidated, is not rendered and costs nothing.
type RenderAdmit func() (ok bool, wait time.Duration)

type renderKey struct{}

// WithRender is ctx carrying admit.
func WithRender(ctx context.Context, admit RenderAdmit) context.Context {
	return context.WithValue(ctx, renderKey{}, admit)
}

// Render is the admission ctx carries; ok is false when it carries none (no
// gateway in front, or no per-client rate): every render is admitted.
func Render(ctx context.Context) (admit RenderAdmit, ok bool) {
	admit, ok = ctx.Value(renderKey{}).(RenderAdmit)
	return admit, ok && admit != nil
}
