package components

import (
	"maps"
	"net/url"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The chart page's controls are GET forms to the page's own view, so that a
// click before app.wasm runs navigates to the view it names, which the first
// paint then draws (docs/architecture.md, "The page before the app"). The app
// replaces the prerendered controls when it mounts; its handlers prevent the
// navigation and change the view in place.

// viewFields is view v as hidden form fields, but for the names the form's
// own controls set.
func viewFields(v View, except ...string) []app.UI { return hiddenFields(v.values(), except...) }

// hiddenFields is query q as hidden form fields, but for the names in except.
func hiddenFields(q url.Values, except ...string) []app.UI {
	var fields []app.UI
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if slices.Contains(except, k) {
			continue
		}
		for _, val := range q[k] {
			fields = append(fields, app.Input().Type("hidden").Name(k).Value(val))
		}
	}
	return fields
}

// viewForm is a GET form to the chart page, holding v but for the names its
// controls set. The fields go after the controls: their number changes with
// the view, and go-app replaces every element after a change in the list,
// which would take the focus (and a field's typing) from a control.
func viewForm(v View, sets ...string) (app.HTMLForm, []app.UI) {
	return app.Form().Method("get").Action("/"), viewFields(v, sets...)
}

// pageForm is a GET form to page, a risk page (/tiers, /limits), holding
// v's zone and theme when they are not the browser's (View.PageQuery) but
// for the names its controls set; when page is "", the chart page's form
// holding v (viewForm).
func pageForm(page string, v View, sets ...string) (app.HTMLForm, []app.UI) {
	if page != "" {
		return app.Form().Method("get").Action(page), hiddenFields(v.pageValues(), sets...)
	}
	return viewForm(v, sets...)
}

// NextTheme is the theme a click on the theme toggle moves to from t:
// auto, light, dark, and round again.
func NextTheme(t string) string {
	switch t {
	case "auto":
		return "light"
	case "light":
		return "dark"
	}
	return "auto"
}

// ZoneToggle (#tz-toggle) shows times in UTC or in the browser's zone.
type ZoneToggle struct {
	app.Compo

	// View is the view on show.
	View View
	// OnToggle is told of a click: the page moves its own view on, which
	// a second click before this toggle's next render must see.
	OnToggle func(ctx app.Context)
}

// Render draws the toggle in its form.
func (z *ZoneToggle) Render() app.UI {
	form, fields := viewForm(z.View, "tz")
	next := either(z.View.UTC, "local", zoneUTC)
	return form.Class("view-form").Body(append([]app.UI{app.Button().ID("tz-toggle").Class("button").Type("submit").Name("tz").Value(next).
		Aria("pressed", z.View.UTC).Title("Show times in UTC or in your zone").
		Text(either(z.View.UTC, "UTC", "Local time")).
		OnClick(func(ctx app.Context, e app.Event) {
			e.PreventDefault()
			if z.OnToggle != nil {
				z.OnToggle(ctx)
			}
		})}, fields...)...)
}

// ThemeToggle (#theme-toggle) moves the theme on: auto, light, dark.
type ThemeToggle struct {
	app.Compo

	// View is the view on show.
	View View
	// OnToggle is told of a click (see ZoneToggle).
	OnToggle func(ctx app.Context)
}

// Render draws the toggle in its form.
func (t *ThemeToggle) Render() app.UI {
	form, fields := viewForm(t.View, "theme")
	return form.Class("view-form").Body(append([]app.UI{app.Button().ID("theme-toggle").Class("button").Type("submit").Name("theme").Value(NextTheme(t.View.Theme)).
		Title("Theme: automatic, light or dark").Text("Theme: " + t.View.Theme).
		OnClick(func(ctx app.Context, e app.Event) {
			e.PreventDefault()
			if t.OnToggle != nil {
				t.OnToggle(ctx)
			}
		})}, fields...)...)
}
