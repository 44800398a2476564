package browser

import (
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// URL is the page's address.
func URL() *url.URL { return app.Window().URL() }

// Origin is the page's scheme and host.
func Origin() string {
	u := URL()
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// ReplaceQuery puts rawQuery in the address bar without a navigation, so
// that a reload or a shared link restores the view.
func ReplaceQuery(rawQuery string) {
	u := URL()
	u.RawQuery = rawQuery
	app.Window().Get("history").Call("replaceState", nil, "", u.String())
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
