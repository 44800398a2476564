package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// The start-up marks, in the order a start passes them; the start-up trace
// reads them by name (docs/performance.md, "Controls before the app, and the
// start-up marks"), so the names stay.
const (
	MarkMain          = "riskchart:main"            // app.wasm's main has started
	MarkMounted       = "riskchart:mounted"         // go-app has mounted the chart page
	MarkAdopted       = "riskchart:adopted"         // the app has taken over the first paint's chart
	MarkRiskFirstData = "riskchart:risk-first-data" // the risk panel's first tiers or limits are on show
	MarkRenderedAgain = "riskchart:rendered-again"  // go-app renders the page a second time, after Go's first run
)

// Now is the page's clock in milliseconds since navigation.
func Now() float64 { return app.Window().Get("performance").Call("now").Float() }

// Mark records a User Timing mark named name at now.
func Mark(name string) { app.Window().Get("performance").Call("mark", name) }

// Measure records a User Timing entry from start to now, so that benchmarks
// (and the browser's performance tools) see how long an operation took.
func Measure(name string, start float64) {
	app.Window().Get("performance").Call("measure", name, map[string]any{"start": start, "end": Now()})
}

// MarkDrawn marks the app's chart as drawn, for benchmarks, and tells
// app.js, which registers the service worker only then.
func MarkDrawn() {
	Mark("riskchart:drawn")
	Mark("riskchart:app-drawn")
	app.Window().Call("dispatchEvent", app.Window().Get("Event").New("riskchart:app-drawn"))
}

// Yield waits for a task of the browser's own (a zero-delay timer), so that
// what the browser has queued runs first. Go's first run in the page lasts
// until every goroutine waits: go-app's loader leaves, and the page's
// controls answer, only then (docs/startup.md#start-up-where-the-time-goes).
func Yield() {
	done := make(chan struct{})
	var fn app.Func
	fn = app.FuncOf(func(app.Value, []app.Value) any {
		fn.Release()
		close(done)
		return nil
	})
	app.Window().Call("setTimeout", fn, 0)
	<-done
}
