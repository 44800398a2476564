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

	period    string         // the period field's text
	open      bool           // the disclosure is open: its controls exist only then
	kept      []studies.Spec // the studies besides menuStudies offered since the menu opened (offered)
	err       string         // why the period is not one, or why no study was added
	periodBad bool           // err is about the period field
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
	offered := m.offered(current)
	return app.Details().ID("study-menu").Class("study-menu").Open(m.open).
		On("toggle", func(ctx app.Context, e app.Event) {
			m.open = ctx.JSSrc().Get("open").Bool()
			m.kept = nil
			if m.open {
				current, _ := studies.ParseSpecs(m.Indicators)
				m.kept = m.offered(current)[len(menuStudies):]
			}
		}).Body(
		app.Summary().Class("button").Text("Studies"),
		app.If(m.open, func() app.UI { return m.body(current, offered) }),
	)
}

// offered are the studies the open menu has a box for: menuStudies, then
// those of the view's own it has offered since it opened, even if removed
// since, then the view's others. A box stays where it is while the menu is
// open: unticking a study does not move the boxes after it under the
// pointer, and a study unticked by mistake is ticked again where it was.
func (m *StudyMenu) offered(current []studies.Spec) []studies.Spec {
	offered := append(slices.Clone(menuStudies), m.kept...)
	for _, s := range current {
		if !slices.Contains(offered, s) {
			offered = append(offered, s)
		}
	}
	return offered
}

// change tells the page the view's new list of studies.
func (m *StudyMenu) change(ctx app.Context, list []studies.Spec) {
	if m.open {
		m.kept = m.offered(list)[len(menuStudies):]
	}
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

// toggle adds or removes the study of the checkbox changed. It reads the
// view's list and the box's study at the change, not at the render: go-app
// keeps a handler of the menu's first render while its code is the same,
// and the view has changed since with each study ticked or removed.
func (m *StudyMenu) toggle(ctx app.Context, e app.Event) {
	box := ctx.JSSrc()
	spec, err := studies.ParseSpecs(box.Get("dataset").Get("study").String())
	if err != nil || len(spec) != 1 {
		return // not a box the menu wrote
	}
	current, _ := studies.ParseSpecs(m.Indicators)
	m.periodBad = false
	if !box.Get("checked").Bool() {
		m.err = ""
		m.change(ctx, toggled(current, spec[0], false))
		return
	}
	list, refused := withStudy(current, spec[0])
	if m.err = refused; refused != "" {
		box.Set("checked", false)
		return
	}
	m.change(ctx, list)
}

// body is the open menu's controls.
func (m *StudyMenu) body(current, offered []studies.Spec) app.UI {
	return app.Div().Class("study-menu-body").Body(
		app.Range(offered).Slice(func(i int) app.UI {
			s := offered[i]
			id := "study-" + s.String()
			return app.Label().For(id).Class("study-option").Body(
				app.Input().Type("checkbox").ID(id).DataSet("study", s.String()).Checked(slices.Contains(current, s)).
					OnChange(m.toggle),
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
