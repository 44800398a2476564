package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// option is a select's option, marked selected only when selected is true:
// go-app writes Selected(false) into a prerendered page as
// selected="false", which selects the option before the app runs, so the
// last such option would show as the choice.
func option(value, text string, selected bool) app.HTMLOption {
	o := app.Option().Value(value).Text(text)
	if selected {
		o = o.Selected(true)
	}
	return o
}

// either is yes when cond holds, else no: a label or a value that a Render
// picks, without building a map for it in every render.
func either(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
