// Package pages holds Riskchart's go-app pages and their routes. The server
// registers the same routes (to prerender pages) as the WebAssembly build.
package pages

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
)

// routes is the app's route table: each page's path and component.
var routes = []struct {
	path string
	page func() app.Composer
}{
	{"/", func() app.Composer { return &ChartPage{} }},
	{"/tiers", func() app.Composer { return &RiskPage{show: "tiers"} }},
	{"/limits", func() app.Composer { return &RiskPage{show: "limits"} }},
	{"/embed/chart", func() app.Composer { return &EmbedPage{kind: "chart"} }},
	{"/embed/tiers", func() app.Composer { return &EmbedPage{kind: "tiers"} }},
	{"/embed/limits", func() app.Composer { return &EmbedPage{kind: "limits"} }},
}

// Routes registers every page of the app with go-app.
func Routes() {
	for _, r := range routes {
		app.Route(r.path, r.page)
	}
}

// pageAt is a new page of the route at path, nil for a path that is no
// page. The server asks it what a page shows before it prerenders it.
func pageAt(path string) app.Composer {
	for _, r := range routes {
		if r.path == path {
			return r.page()
		}
	}
	return nil
}

// renders counts a page's renders in the browser, and marks the second
// (browser.MarkRenderedAgain): a page's mount renders it once, and the
// second comes after Go's first run (docs/startup.md, "One render at
// mount").
type renders int

// count counts one render.
func (n *renders) count() {
	if !app.IsClient {
		return
	}
	if *n++; *n == 2 {
		browser.Mark(browser.MarkRenderedAgain)
	}
}

// Paths lists the paths of the app's pages, for those that must know them
// without routing (the service worker answers them with the app shell).
func Paths() []string {
	paths := make([]string, len(routes))
	for i, r := range routes {
		paths[i] = r.path
	}
	return paths
}
