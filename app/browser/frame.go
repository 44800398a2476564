package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// ListenToParent calls f with the origin and the JSON text of each message
// the framing page posts, until stop. Only the framing page commands an
// embed, not another frame or window. A message longer than limit as JSON,
// or one JSON cannot write (a cycle, a BigInt), is dropped: it is no
// command, and the error JSON.stringify throws would end the app.
func ListenToParent(limit int, f func(origin, data string)) (stop func()) {
	listener := app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		ev := args[0]
		if !ev.Get("source").Equal(app.Window().Get("parent")) {
			return nil
		}
		if data, ok := jsonText(ev.Get("data"), limit); ok {
			f(ev.Get("origin").String(), data)
		}
		return nil
	})
	app.Window().Call("addEventListener", "message", listener)
	return func() {
		app.Window().Call("removeEventListener", "message", listener)
		listener.Release()
	}
}

// jsonText writes v as JSON, false when JSON cannot write it or the text is
// over limit UTF-16 units, which JavaScript counts: the text is copied into
// Go only when it is within the limit.
func jsonText(v app.Value, limit int) (text string, ok bool) {
	defer func() {
		if recover() != nil { // the JavaScript error JSON.stringify threw
			text, ok = "", false
		}
	}()
	w := app.Window()
	s := w.Get("JSON").Call("stringify", v)
	// A string primitive has no properties Go can read (syscall/js panics):
	// its length is read from a String object made of it, not copied.
	if s.Type() != app.TypeString || w.Get("String").New(s).Get("length").Int() > limit {
		return "", false
	}
	return s.String(), true
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
