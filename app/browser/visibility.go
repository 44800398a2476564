package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// WhenVisible calls f each time the page comes into view, until stop.
func WhenVisible(f func()) (stop func()) {
	visible := app.FuncOf(func(app.Value, []app.Value) any {
		if app.Window().Get("document").Get("visibilityState").String() == "visible" {
			f()
		}
		return nil
	})
	// Our app.js wakes Go only when the page comes into view (not while it
	// is being left); go-app's own has no such helper.
	var listener app.Value
	if app.Window().Get("riskchartOnVisible").Truthy() {
		listener = app.Window().Call("riskchartOnVisible", visible)
	} else {
		listener = visible.JSValue()
		app.Window().Get("document").Call("addEventListener", "visibilitychange", listener)
	}
	return func() {
		app.Window().Get("document").Call("removeEventListener", "visibilitychange", listener)
		visible.Release()
	}
}
