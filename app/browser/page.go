package browser

import (
	"math"
	"net/url"
	"unicode/utf16"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// URL is the page's address.
func URL() *url.URL { return app.Window().URL() }

// Origin is the page's scheme and host.
func Origin() string {
	u := URL()
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// SetTheme applies theme ("light", "dark", or "auto": the system's) to the
// document and reports whether it is dark.
func SetTheme(theme string) bool {
	root := app.Window().Get("document").Get("documentElement")
	switch theme {
	case "light", "dark":
		root.Call("setAttribute", "data-theme", theme)
		return theme == "dark"
	default:
		root.Call("removeAttribute", "data-theme")
		mq := app.Window().Call("matchMedia", "(prefers-color-scheme: dark)")
		return mq.Truthy() && mq.Get("matches").Bool()
	}
}

// SetLang sets the document's language (screen readers, the browser's own
// controls).
func SetLang(lang string) {
	app.Window().Get("document").Get("documentElement").Set("lang", lang)
}

// ElementByID is the document's element with id; not Truthy when absent.
func ElementByID(id string) app.Value { return app.Window().GetElementByID(id) }

// Focus moves the focus to the element with id, when there is one.
func Focus(id string) {
	if el := ElementByID(id); el.Truthy() {
		el.Call("focus")
	}
}

// ClearValues empties the form fields with the ids given. go-app drops an
// empty value attribute, which leaves what was typed on screen.
func ClearValues(ids ...string) {
	for _, id := range ids {
		if f := ElementByID(id); f.Truthy() {
			f.Set("value", "")
		}
	}
}

// CopyText puts s on the clipboard, reporting whether the browser has one.
func CopyText(s string) bool {
	cb := app.Window().Get("navigator").Get("clipboard")
	if !cb.Truthy() {
		return false
	}
	cb.Call("writeText", s)
	return true
}

// Field is a form control's value as the user left it, by the control's id.
type Field struct{ ID, Value string }

// ChangedFields returns the controls with an id under the first element
// matching selector whose value differs from the one the page was written
// with (what the user typed or picked), and the id of the focused one, ""
// when the focus is elsewhere.
func ChangedFields(selector string) (fields []Field, focused string) {
	doc := app.Window().Get("document")
	root := doc.Call("querySelector", selector)
	if !root.Truthy() {
		return nil, ""
	}
	list := root.Call("querySelectorAll", "input[id], select[id], textarea[id]")
	for i := range list.Length() {
		el := list.Index(i)
		if changedFromPage(el) {
			fields = append(fields, Field{ID: el.Get("id").String(), Value: el.Get("value").String()})
		}
	}
	if active := doc.Get("activeElement"); active.Truthy() && root.Call("contains", active).Bool() && active.Get("id").String() != "" {
		focused = active.Get("id").String()
	}
	return fields, focused
}

// changedFromPage tells whether control el holds another value than its
// markup gave it.
func changedFromPage(el app.Value) bool {
	if el.Get("tagName").String() != "SELECT" {
		return el.Get("value").String() != el.Get("defaultValue").String()
	}
	options, picked := el.Get("options"), 0 // a list with no option marked selected starts on its first
	for i := range options.Length() {
		if options.Index(i).Get("defaultSelected").Bool() {
			picked = i
			break
		}
	}
	return el.Get("selectedIndex").Int() != picked
}

// RestoreFields writes fields into the page's controls of the same ids, as
// the user's typing or picking does (an input event, then a change event,
// so that the app's handlers see them), and focuses the control focused,
// its caret at the end.
func RestoreFields(fields []Field, focused string) {
	doc, event := app.Window().Get("document"), app.Window().Get("Event")
	for _, f := range fields {
		el := doc.Call("getElementById", f.ID)
		if !el.Truthy() || el.Get("value").String() == f.Value {
			continue
		}
		el.Set("value", f.Value)
		for _, name := range []string{"input", "change"} {
			el.Call("dispatchEvent", event.New(name, map[string]any{"bubbles": true}))
		}
	}
	if focused == "" {
		return
	}
	if el := doc.Call("getElementById", focused); el.Truthy() {
		el.Call("focus")
		if t := el.Get("type").String(); el.Get("tagName").String() == "INPUT" && (t == "text" || t == "search") {
			n := len(utf16.Encode([]rune(el.Get("value").String()))) // the caret counts UTF-16 units, as JavaScript's strings do
			el.Call("setSelectionRange", n, n)
		}
	}
}

// Below reports how far the foot of the element with id lies below the top
// of the element with id from, in CSS px rounded up (negative: above it),
// and false when either is missing. Reading it lays the page out.
func Below(id, from string) (int, bool) {
	el, ref := ElementByID(id), ElementByID(from)
	if !el.Truthy() || !ref.Truthy() {
		return 0, false
	}
	d := el.Call("getBoundingClientRect").Get("bottom").Float() - ref.Call("getBoundingClientRect").Get("top").Float()
	return int(math.Ceil(d)), true
}
