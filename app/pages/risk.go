package pages

import (
	"net/url"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/venueapi"
)

// RiskPage is one risk panel on a page of its own (/tiers, /limits), for
// linking; the contract comes from ?contract_code= (BTC-USDT when absent),
// the zone and theme from ?tz= and ?theme=, as on the chart page.
type RiskPage struct {
	app.Compo

	show string // "tiers" or "limits"
	// v is what the URL names: the contract ("" when err), and the zone
	// and theme, read as the chart page reads them; the page's links and
	// forms carry it (View.PageQuery).
	v        components.View
	err      string // a contract_code that is not one
	entryErr string // a code typed in the entry that is not one

	contracts []venueapi.Offer // the server's list, for face values
	typed     typedBefore      // into the server's panel, before the app ran
	renders   renders
}

// riskPageContract reads the page's contract from its URL: absent is
// BTC-USDT, as on the chart page; any letter case is read as the venue's
// upper case (btc-usdt-cq is BTC-USDT-CQ); malformed is an error naming the
// parameter.
func riskPageContract(u *url.URL) (string, error) {
	code := strings.ToUpper(strings.TrimSpace(u.Query().Get("contract_code")))
	if code == "" {
		return "BTC-USDT", nil
	}
	if _, err := venueapi.ParseContractCode(code); err != nil {
		return "", err
	}
	return code, nil
}

// OnInit reads the panel, contract, zone and theme from the URL in the
// browser, before the first render, so that the page mounts its panel at
// once (docs/startup.md, "One render at mount").
func (p *RiskPage) OnInit() {
	if app.IsClient {
		p.readURL(browser.URL())
		// The server's page is in this theme already (server/internal/bundle/theme.go).
		browser.SetTheme(p.v.Theme)
		if list, ok := adoptContracts(); ok { // the list the server put in the page: the first render lists it
			p.contracts = list
		}
		p.typed.take()
	}
}

// OnNav reads the panel, contract, zone and theme from the URL. The
// navigation that follows the mount finds the page showing them already,
// and renders nothing again.
func (p *RiskPage) OnNav(ctx app.Context) {
	show, v, err := p.show, p.v, p.err
	p.readURL(ctx.Page().URL())
	browser.SetTheme(p.v.Theme)
	if p.err == "" {
		title := map[string]string{"tiers": "Risk-limit tiers", "limits": "Position limits"}[p.show]
		ctx.Page().SetTitle(title + " · " + p.v.Contract + " · Riskchart")
	}
	if p.show == show && p.v == v && p.err == err {
		ctx.PreventUpdate()
	}
}

// readURL takes the page's panel, its contract, or why there is none, and
// its zone and theme, read as the chart page reads them, from u. The panel
// is the path's: go-app keeps this page when the app goes from /tiers to
// /limits (the same type of page), and copies none of its unexported fields.
func (p *RiskPage) readURL(u *url.URL) {
	if show := strings.TrimPrefix(u.Path, "/"); show == "tiers" || show == "limits" {
		p.show = show
	}
	v := components.ViewFromURL(u)
	p.v, p.err = components.View{UTC: v.UTC, Theme: v.Theme}, "" // a risk page shows no period, scale or style
	code, err := riskPageContract(u)
	if err != nil {
		p.err = err.Error()
		return
	}
	p.v.Contract = code
}

// OnMount loads the contract list, for the picker and the panel, unless
// the page held it, and hands the panel what the user typed into the
// server's before the app ran.
func (p *RiskPage) OnMount(ctx app.Context) {
	p.typed.restore(ctx)
	if p.contracts == nil {
		loadContracts(ctx, func(list []venueapi.Offer) { p.contracts = list })
	}
	ctx.PreventUpdate() // the list lands by a dispatch of its own (docs/startup.md, "One render at mount")
}

// path is the page's own path.
func (p *RiskPage) path() string { return "/" + p.show }

// view is the page's view with contract code shown.
func (p *RiskPage) view(code string) components.View {
	v := p.v
	v.Contract = code
	return v
}

// picker is the page's contract list, showing code: the server's
// (firstPicker, pick nil) as the app's. A choice opens this page.
func (p *RiskPage) picker(code string, contracts []venueapi.Offer, pick func(app.Context, string)) *components.ContractPicker {
	return &components.ContractPicker{Contracts: contracts, Contract: code, OnPick: pick, View: p.view(code), Page: p.path()}
}

// Render draws the panel under a small header with links to its siblings.
func (p *RiskPage) Render() app.UI {
	p.renders.count()
	q := "?" + p.v.PageQuery()
	link := func(path, label string) app.UI {
		a := app.A().Class("chip").Href(path + q).Text(label)
		if path == p.path() {
			a = a.Aria("current", "page")
		}
		return a
	}
	pick := func(ctx app.Context, code string) {
		p.entryErr = ""
		ctx.Navigate(p.path() + "?" + p.view(strings.ToUpper(code)).PageQuery())
	}
	var body app.UI
	switch {
	case p.err != "":
		try := p.path() + "?" + p.view("BTC-USDT").PageQuery()
		body = app.P().ID("risk-page-error").Class("notice field-error").Attr("role", "alert").Body(
			app.Text(p.err+". Try "), app.A().Href(try).Text(p.path()+"?contract_code=BTC-USDT"), app.Text("."))
	case p.v.Contract != "":
		body = &components.RiskPanel{Contract: p.v.Contract, Show: p.show, Contracts: p.contracts, UTC: p.v.UTC}
	}
	return app.Div().Class("page risk-page").Body(
		app.Header().Class("bar").Body(
			app.A().Class("brand").Href("/"+q).Text("Riskchart"),
			app.Div().Class("risk-pickers").Body(
				p.picker(p.v.Contract, p.contracts, pick),
				&components.ContractEntry{Contract: p.v.Contract, OnEnter: pick, View: p.v, Page: p.path(),
					OnError: func(ctx app.Context, msg string) { p.entryErr = msg }},
			),
			app.Nav().Class("chips").Aria("label", "Risk views").Body(link("/tiers", "Tiers"), link("/limits", "Limits"), link("/", "Chart")),
		),
		app.If(p.entryErr != "", func() app.UI {
			return app.P().ID("contract-error").Class("field-error").Attr("role", "alert").Text(p.entryErr)
		}),
		body,
	)
}
