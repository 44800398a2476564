package components

import (
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/studies"
)

// StudyMenu adds and removes the chart's studies: a disclosure button
// (<details>), then a checkbox per study and a period field to add an MA
// or an EMA of any length; all reachable with Tab, Space and Enter.
type StudyMenu struct {
	app.Compo

	Indicators string                                   // the view's studies (studies.FormatSpecs)
	OnChange   func(ctx app.Context, indicators string) // told the new list

	period    string // the period field's text
	open      bool   // the disclosure is open: its controls exist only then
	err       string // why the period is not one, or why no study was added
	periodBad bool   // err is about the period field
}

// studyErrorID is the id of the menu's error.
const studyErrorID = "study-error"

// menuStudies are the studies the menu offers a checkbox for, besides the
// view's own.
var menuStudies = []studies.Spec{{Kind: studies.MA, Period: 7}, {Kind: studies.MA, Period: 25}, {Kind: studies.EMA, Period: 99},
	{Kind: studies.BOLL}, {Kind: studies.VolMA, Period: studies.VolMAPeriod}, {Kind: studies.MACD}, {Kind: studies.RSI}}

// toggled returns list with spec added (on) or removed.
func toggled(list []studies.Spec, spec studies.Spec, on bool) []studies.Spec {
	list = slices.DeleteFunc(slices.Clone(list), func(s studies.Spec) bool { return s == spec })
	if on {
		list = append(list, spec)
	}
	return list
}

// withStudy returns list with spec added, or why not: a view draws at most
// studies.MaxSpecs studies, and a longer list in the URL would show none.
func withStudy(list []studies.Spec, spec studies.Spec) ([]studies.Spec, string) {
	if !slices.Contains(list, spec) && len(list) >= studies.MaxSpecs {
		return nil, "At most " + strconv.Itoa(studies.MaxSpecs) + " studies: remove one to add another."
	}
	return toggled(list, spec, true), ""
}

// Render draws the menu.
func (m *StudyMenu) Render() app.UI {
	current, _ := studies.ParseSpecs(m.Indicators)
	offered := slices.Clone(menuStudies)
	for _, s := range current {
		if !slices.Contains(offered, s) {
			offered = append(offered, s)
		}
	}
	return app.Details().ID("study-menu").Class("study-menu").Open(m.open).
		On("toggle", func(ctx app.Context, e app.Event) { m.open = ctx.JSSrc().Get("open").Bool() }).Body(
		app.Summary().Class("button").Text("Studies"),
		app.If(m.open, func() app.UI { return m.body(current, offered) }),
	)
}

// change tells the page the view's new list of studies.
func (m *StudyMenu) change(ctx app.Context, list []studies.Spec) {
	if m.OnChange != nil {
		m.OnChange(ctx, studies.FormatSpecs(list))
	}
}

// addHandler is the handler of the button that adds a study of kind at
// the typed period.
func (m *StudyMenu) addHandler(kind studies.Kind) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		current, _ := studies.ParseSpecs(m.Indicators)
		n, err := strconv.Atoi(m.period)
		m.periodBad = err != nil || n < 1 || n > studies.MaxPeriod
		if m.periodBad {
			m.err = "The period must be a whole number from 1 to " + strconv.Itoa(studies.MaxPeriod) + "."
			return
		}
		list, refused := withStudy(current, studies.Spec{Kind: kind, Period: n})
		if m.err = refused; refused != "" {
			return
		}
		m.change(ctx, list)
	}
}

// body is the open menu's controls.
func (m *StudyMenu) body(current, offered []studies.Spec) app.UI {
	return app.Div().Class("study-menu-body").Body(
		app.Range(offered).Slice(func(i int) app.UI {
			s := offered[i]
			id := "study-" + s.String()
			return app.Label().For(id).Class("study-option").Body(
				app.Input().Type("checkbox").ID(id).DataSet("study", s.String()).Checked(slices.Contains(current, s)).
					OnChange(func(ctx app.Context, e app.Event) {
						m.periodBad = false
						if !ctx.JSSrc().Get("checked").Bool() {
							m.err = ""
							m.change(ctx, toggled(current, s, false))
							return
						}
						list, refused := withStudy(current, s)
						if m.err = refused; refused != "" {
							ctx.JSSrc().Set("checked", false)
							return
						}
						m.change(ctx, list)
					}),
				app.Text(" "+s.Label()),
			)
		}),
		app.Div().Class("study-period").Body(
			app.Label().For("study-period").Text("Period"),
			app.Input().Type("number").ID("study-period").Class("control").Min(1).Max(studies.MaxPeriod).Value(m.period).
				Aria("invalid", m.periodBad).Aria("describedby", either(m.periodBad, studyErrorID, "")).
				OnInput(func(ctx app.Context, e app.Event) { m.period = ctx.JSSrc().Get("value").String() }),
			app.Button().ID("study-add-ma").Class("button").Text("Add MA").OnClick(m.addHandler(studies.MA)),
			app.Button().ID("study-add-ema").Class("button").Text("Add EMA").OnClick(m.addHandler(studies.EMA)),
		),
		app.If(m.err != "", func() app.UI { return app.P().ID(studyErrorID).Class("field-error").Attr("role", "alert").Text(m.err) }),
	)
}
