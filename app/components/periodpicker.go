package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// PeriodPicker is a row of chips, one per candle period, the chosen one pressed.
type PeriodPicker struct {
	app.Compo

	// ID and Class are the row's; an empty ID is left out.
	ID, Class string
	// Period is the period on show.
	Period venueapi.Period
	// OnPick is told the period chosen.
	OnPick func(ctx app.Context, p venueapi.Period)
	// View, when set, is the page's view: the chips are then a GET form to
	// it, so that a click before the app runs navigates to the period.
	View *View
}

// pickable is the periods offered: one chip per series, so 1hour (the
// venue's other name for 60min, docs/venue.md) has none of its own.
func pickable() []venueapi.Period {
	var ps []venueapi.Period
	for _, pr := range venueapi.Periods() {
		if pr.Canonical() == pr {
			ps = append(ps, pr)
		}
	}
	return ps
}

// Render draws the chips.
func (p *PeriodPicker) Render() app.UI {
	chips := make([]app.UI, 0, 9)
	for _, pr := range pickable() {
		chips = append(chips, p.chip(pr))
	}
	if p.View != nil {
		form, fields := viewForm(*p.View, "period")
		if p.ID != "" {
			form = form.ID(p.ID)
		}
		return form.Class(p.Class).Attr("role", "group").Aria("label", "Period").Body(append(chips, fields...)...)
	}
	row := app.Div()
	if p.ID != "" {
		row = row.ID(p.ID)
	}
	return row.Class(p.Class).Attr("role", "group").Aria("label", "Period").Body(chips...)
}

// chip is one period's chip; in a form, it submits its period.
func (p *PeriodPicker) chip(pr venueapi.Period) app.HTMLButton {
	chip := app.Button().Class("chip").DataSet("period", string(pr)).Aria("pressed", pr == p.Period.Canonical()).
		Text(string(pr)).OnClick(func(ctx app.Context, e app.Event) {
		e.PreventDefault() // the app changes the view in place
		if p.OnPick != nil {
			p.OnPick(ctx, pr)
		}
	})
	if p.View != nil {
		chip = chip.Type("submit").Name("period").Value(string(pr))
	}
	return chip
}
