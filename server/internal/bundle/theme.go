package bundle

import (
	"bytes"
	"net/url"

	"github.com/riskchart/riskchart/app/components"
)

// withTheme is page with the theme its URL names (?theme=light or dark, read
// as the app reads it) on its <html> element, as the app sets it when it
// runs (browser.SetTheme): the first paint is then in that theme, and a
// dark embed in a dark page is not white until app.wasm runs. page is as it
// is when the URL names no theme ("auto": the stylesheets follow the
// system's colour scheme) or holds no <html> start tag.
func withTheme(u *url.URL, page []byte) []byte {
	theme := components.ViewFromURL(u).Theme
	if theme == "auto" {
		return page
	}
	at := 0 // just after the element's name in its start tag
	for {
		i := bytes.Index(page[at:], []byte("<html"))
		if i < 0 {
			return page
		}
		at += i + len("<html")
		if at == len(page) || page[at] == '>' || page[at] == ' ' {
			break // not <htmlx…>
		}
	}
	attr := ` data-theme="` + theme + `"` // "light" or "dark": nothing to escape
	out := make([]byte, 0, len(page)+len(attr))
	out = append(out, page[:at]...)
	out = append(out, attr...)
	return append(out, page[at:]...)
}
