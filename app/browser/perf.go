package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Now is the page's clock in milliseconds since navigation.
func Now() float64 { return app.Window().Get("performance").Call("now").Float() }

// Measure records a User Timing entry from start to now, so that benchmarks
// (and the browser's performance tools) see how long an operation took.
func Measure(name string, start float64) {
	app.Window().Get("performance").Call("measure", name, map[string]any{"start": start, "end": Now()})
}

// MarkDrawn marks the app's chart as drawn, for benchmarks, and tells
// app.js, which registers the service worker only then.
func MarkDrawn() {
	app.Window().Get("performance").Call("mark", "riskchart:drawn")
	app.Window().Get("performance").Call("mark", "riskchart:app-drawn")
	app.Window().Call("dispatchEvent", app.Window().Get("Event").New("riskchart:app-drawn"))
}
