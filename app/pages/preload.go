package pages

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// appPreload has the browser download app.wasm from the page's start, at a
// low priority, while the page's own scripts, styles and first data load at
// theirs; go-app's loader then finds it downloaded (web/loader-patch.js).
// On the start-up bench's mobile profile the app ran 0.5 s sooner
// (docs/performance.md).
var appPreload = app.Preload{As: "fetch", Href: "/web/app.wasm crossorigin=anonymous", FetchPriority: "low"}

// OnPreRender names, on the server, what the page will fetch first.
func (p *RiskPage) OnPreRender(ctx app.Context) { ctx.Page().SetPreloads(appPreload) }

// OnPreRender names, on the server, what the page will fetch first.
func (e *EmbedPage) OnPreRender(ctx app.Context) { ctx.Page().SetPreloads(appPreload) }
