package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// PushQuery puts rawQuery in the address bar as a new history entry, so
// that Back returns to the view before; the same query adds none.
func PushQuery(rawQuery string) {
	u := URL()
	if u.RawQuery == rawQuery {
		return
	}
	u.RawQuery = rawQuery
	app.Window().Get("history").Call("pushState", nil, "", u.String())
}

// OnPopState calls f when the user steps back or forward through the
// page's history entries; stop ends it.
func OnPopState(f func()) (stop func()) {
	fn := app.FuncOf(func(app.Value, []app.Value) any {
		f()
		return nil
	})
	app.Window().Call("addEventListener", "popstate", fn)
	return func() {
		app.Window().Call("removeEventListener", "popstate", fn)
		fn.Release()
	}
}
