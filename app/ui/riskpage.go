package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// RiskPage is one risk panel on a page of its own (/tiers, /limits), for
// linking; the contract comes from ?contract_code=.
type RiskPage struct {
	app.Compo

	show     string
	contract string
}

// OnNav reads the contract from the URL.
func (p *RiskPage) OnNav(ctx app.Context) {
	p.contract = viewFromURL(ctx.Page().URL()).Contract
}

// Render draws the panel under a small header.
func (p *RiskPage) Render() app.UI {
	if p.contract == "" {
		return app.Div().Class("page")
	}
	return app.Div().Class("page").Body(
		app.Header().Class("bar").Body(
			app.A().Class("brand").Href("/?contract_code="+p.contract).Text("Riskchart"),
			app.Span().Class("contract").Text(p.contract),
		),
		&RiskPanel{Contract: p.contract, Show: p.show},
	)
}
