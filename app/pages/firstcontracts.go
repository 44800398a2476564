package pages

import (
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/venueapi"
)

// FirstContractPicker is the contract picker the page at u draws when it
// opens, listing contracts: the server puts it in the page in place of the
// prerendered one, which lists the page's contract alone, so that a choice
// made before app.wasm runs can be any of them (docs/architecture.md,
// "first paint"). ok is false for a page without a picker (an embed, a
// malformed contract, a path that is no page).
func FirstContractPicker(u *url.URL, contracts []venueapi.Offer) (picker app.UI, ok bool) {
	for _, r := range routes {
		if r.path == u.Path {
			if p, has := r.page().(pickerPage); has {
				return p.firstPicker(u, contracts)
			}
			return nil, false
		}
	}
	return nil, false
}

// pickerPage is a page with a contract picker in its header.
type pickerPage interface {
	firstPicker(u *url.URL, contracts []venueapi.Offer) (app.UI, bool)
}

func (p *ChartPage) firstPicker(u *url.URL, contracts []venueapi.Offer) (app.UI, bool) {
	return chartPicker(components.ViewFromURL(u), contracts, nil), true
}

func (p *RiskPage) firstPicker(u *url.URL, contracts []venueapi.Offer) (app.UI, bool) {
	p.readURL(u)
	return p.picker(p.v.Contract, contracts, nil), p.err == ""
}
