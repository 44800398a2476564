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
	// View is the page's view: the list is in a GET form to it, which
	// web/app-start.js submits on a choice made before the app runs. Page,
	// when set, is the path of a risk page (/tiers): the form goes there
	// instead, holding the view's zone and theme (View.PageQuery).
	View View
	Page string
}

// Render draws the select element.
func (p *ContractPicker) Render() app.UI {
	options := []app.UI{}
	listed := false
	for _, c := range p.Contracts {
		listed = listed || c.Code == p.Contract
		options = append(options, option(c.Code, c.Code, c.Code == p.Contract))
	}
	if !listed {
		options = append(options, option(p.Contract, p.Contract, true))
	}
	form, fields := pageForm(p.Page, p.View, "contract_code")
	list := app.Select().ID("contract-select").Class("control").Name("contract_code").Body(options...).OnChange(func(ctx app.Context, e app.Event) {
		if p.OnPick != nil {
			p.OnPick(ctx, ctx.JSSrc().Get("value").String())
		}
	})
	if app.IsServer {
		// The server's list, in a page app.wasm has not taken over yet: a
		// choice submits its form (web/app-start.js). The app's has no mark.
		list = list.DataSet("submit", "change")
	}
	// The label is the form's own, so that the server's picker of every
	// contract, which takes the form's place (pages.FirstContractPicker), is
	// named as the app's is, on every page that has one.
	label := app.Label().For("contract-select").Class("sr-only").Text("Contract")
	return form.ID("contract-pick").Class("view-form").Body(append([]app.UI{label, list}, fields...)...)
}
