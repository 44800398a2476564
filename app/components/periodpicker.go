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
		chips = append(chips, app.Button().Class("chip").DataSet("period", string(pr)).Aria("pressed", pr == p.Period.Canonical()).
			Text(string(pr)).OnClick(func(ctx app.Context, e app.Event) {
			if p.OnPick != nil {
				p.OnPick(ctx, pr)
			}
		}))
	}
	row := app.Div()
	if p.ID != "" {
		row = row.ID(p.ID)
	}
	return row.Class(p.Class).Attr("role", "group").Aria("label", "Period").Body(chips...)
}
