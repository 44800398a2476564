package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// ContractPicker is the list of the contracts the server offers
// (#contract-select), with the contract on show added when it is not listed.
type ContractPicker struct {
	app.Compo

	// Contracts is the server's list.
	Contracts []venueapi.Offer
	// Contract is the contract on show.
	Contract string
	// OnPick is told the contract chosen.
	OnPick func(ctx app.Context, code string)
}

// Render draws the select element.
func (p *ContractPicker) Render() app.UI {
	options := []app.UI{}
	listed := false
	for _, c := range p.Contracts {
		listed = listed || c.Code == p.Contract
		options = append(options, app.Option().Value(c.Code).Selected(c.Code == p.Contract).Text(c.Code))
	}
	if !listed {
		options = append(options, app.Option().Value(p.Contract).Selected(true).Text(p.Contract))
	}
	return app.Select().ID("contract-select").Class("control").Body(options...).OnChange(func(ctx app.Context, e app.Event) {
		if p.OnPick != nil {
			p.OnPick(ctx, ctx.JSSrc().Get("value").String())
		}
	})
}
