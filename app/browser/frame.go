package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// ListenToParent calls f with the origin and the JSON text of each message
// the framing page posts, until stop. Only the framing page commands an
// embed, not another frame or window.
func ListenToParent(f func(origin, data string)) (stop func()) {
	listener := app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		ev := args[0]
		if !ev.Get("source").Equal(app.Window().Get("parent")) {
			return nil
		}
		f(ev.Get("origin").String(), app.Window().Get("JSON").Call("stringify", ev.Get("data")).String())
		return nil
	})
	app.Window().Call("addEventListener", "message", listener)
	return func() {
		app.Window().Call("removeEventListener", "message", listener)
		listener.Release()
	}
}

// PostToParent sends the framing page, at origin, a message encoded as JSON.
func PostToParent(msgJSON, origin string) {
	w := app.Window()
	w.Get("parent").Call("postMessage", w.Get("JSON").Call("parse", msgJSON), origin)
}

// ParentCandidates lists, in order of trust, where the framing page's origin
// can be read: the browser's own record, the claimed one, the referrer.
// None when the page is not framed.
func ParentCandidates(claimed string) []string {
	w := app.Window()
	if w.Get("parent").Equal(w.JSValue()) {
		return nil
	}
	var out []string
	if ao := w.Get("location").Get("ancestorOrigins"); ao.Truthy() && ao.Get("length").Int() > 0 {
		out = append(out, ao.Call("item", 0).String())
	}
	return append(out, claimed, w.Get("document").Get("referrer").String())
}

// ObserveSize calls f each time the element with id changes size, until
// stop; it does nothing in browsers without ResizeObserver.
func ObserveSize(id string, f func()) (stop func()) {
	resized := app.FuncOf(func(app.Value, []app.Value) any {
		f()
		return nil
	})
	var observer app.Value
	if ro := app.Window().Get("ResizeObserver"); ro.Truthy() {
		if root := ElementByID(id); root.Truthy() {
			observer = ro.New(resized)
			observer.Call("observe", root)
		}
	}
	return func() {
		if observer != nil && observer.Truthy() {
			observer.Call("disconnect")
		}
		resized.Release()
	}
}

// ScrollHeight is the content height of the element with id; ok is false
// when there is no such element.
func ScrollHeight(id string) (h int, ok bool) {
	root := ElementByID(id)
	if !root.Truthy() {
		return 0, false
	}
	return root.Get("scrollHeight").Int(), true
}
