// Package ui holds Riskchart's go-app components and its routes. The server
// registers the same routes (to prerender pages) as the WebAssembly build.
package ui

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Routes registers every page of the app with go-app.
func Routes() {
	app.Route("/", func() app.Composer { return &ChartPage{} })
	app.Route("/tiers", func() app.Composer { return &RiskPage{show: "tiers"} })
	app.Route("/limits", func() app.Composer { return &RiskPage{show: "limits"} })
	app.Route("/embed/chart", func() app.Composer { return &EmbedPage{kind: "chart"} })
	app.Route("/embed/tiers", func() app.Composer { return &EmbedPage{kind: "tiers"} })
	app.Route("/embed/limits", func() app.Composer { return &EmbedPage{kind: "limits"} })
}
