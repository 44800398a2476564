// Command wasm is the Riskchart front end, built as web/app.wasm. It holds
// only the UI: server packages stay out of the WebAssembly build.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/pages"
)

func main() {
	browser.Mark(browser.MarkMain)
	pages.Routes()
	app.RunWhenOnBrowser()
}
