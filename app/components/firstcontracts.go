package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// FirstContractPicker is the chart page's contract list as the server
// prerenders it when it holds the list: the picker the page draws for view
// v (ChartPage.Render), listing contracts, so that a choice made before
// app.wasm runs can be any of them.
func FirstContractPicker(v View, contracts []venueapi.Offer) app.UI {
	return &ContractPicker{Contracts: contracts, Contract: v.Contract, View: v}
}
