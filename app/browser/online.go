package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// WhenOnline calls f each time the browser regains its network connection
// (the window's online event), until stop.
func WhenOnline(f func()) (stop func()) {
	online := app.FuncOf(func(app.Value, []app.Value) any {
		f()
		return nil
	})
	app.Window().Call("addEventListener", "online", online)
	return func() {
		app.Window().Call("removeEventListener", "online", online)
		online.Release()
	}
}
