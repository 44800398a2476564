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
// made before app.wasm runs can be any of them (docs/architecture.md, "The
// page before the app"). ok is false for a page without a picker (an embed, a
// malformed contract, a path that is no page).
func FirstContractPicker(u *url.URL, contracts []venueapi.Offer) (picker app.UI, ok bool) {
	if p, has := pageAt(u.Path).(pickerPage); has {
		return p.firstPicker(u, contracts)
	}
	return nil, false
}

// FirstOffer is the contract the page at u shows alone, whose entry of the
// list the server puts in the page in place of the whole list: an embed
// shows one contract and no picker, and needs its entry before app.wasm
// runs, so that its first paint and the app's first draw write the prices
// in the contract's decimals (web/chart-boot.js) and its risk panel has the
// face value. The app still fetches the whole list, for a contract the
// parent may switch to. ok is false for the other pages.
func FirstOffer(u *url.URL) (code string, ok bool) {
	if _, embed := pageAt(u.Path).(*EmbedPage); embed {
		return components.ViewFromURL(u).Contract, true
	}
	return "", false
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
