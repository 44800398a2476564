package pages

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/venueapi"
)

// ChartPage is the page at "/": the chart, its controls and the risk panels.
// The view lives in the URL, so that reload or share restores it.
type ChartPage struct {
	app.Compo

	v         components.View
	contracts []venueapi.Offer
	entryErr  string // why the free entry is not a contract code
	notice    string // which view parameters of the URL are not shown, and why (components.ViewNotice)
	dark      bool   // resolved theme
	stopPop   func() // ends following Back and Forward

	typed typedBefore // into the server's risk panel, before the app ran

	renders renders
}

// OnPreRender names, on the server, what the page will fetch first, so that
// the browser loads it while app.wasm downloads and compiles (in a worker
// the page starts first: web/app-start.js).
func (p *ChartPage) OnPreRender(ctx app.Context) {
	p.v = components.ViewFromURL(ctx.Page().URL())
	p.notice = components.ViewNotice(ctx.Page().URL())
	ctx.Page().SetPreloads(
		answerPreload(p.v),
		app.Preload{As: "fetch", Href: api.PathContracts + " crossorigin=anonymous"},
	)
}

// answerPreload names the KLine answer the first paint of v draws
// (web/chart-boot.js asks for the same URL), for the browser to fetch while
// the head's scripts load; the server reads it in the head
// (bundle/answer.go). go-app writes what follows the href's space as the
// link's attributes: a fetch preload is used only by a request of its mode.
func answerPreload(v components.View) app.Preload {
	q := venueapi.KLineQuery{ContractCode: v.Contract, Period: v.Period, Size: components.LatestSize}
	return app.Preload{As: "fetch", Href: venueapi.PathKLine + "?" + q.Values().Encode() + " crossorigin=anonymous"}
}

// OnInit reads the view from the URL in the browser before the first
// render, so that the chart mounts with it and can adopt the first paint.
func (p *ChartPage) OnInit() {
	if app.IsClient {
		p.v = components.ViewFromURL(browser.URL())
		p.notice = components.ViewNotice(browser.URL())
		p.applyTheme()
		if list, ok := adoptContracts(); ok { // the list the server put in the page: the first render lists it
			p.contracts = list
		}
		p.typed.take()
	}
}

// OnMount loads the contract list, for the picker and the risk panel,
// unless the page carried it (OnInit), and hands the risk panel what the
// user typed into the server's before the app ran.
func (p *ChartPage) OnMount(ctx app.Context) {
	browser.Mark(browser.MarkMounted)
	p.typed.restore(ctx)
	if p.contracts == nil {
		loadContracts(ctx, func(list []venueapi.Offer) { p.contracts = list })
	}
	// Back and Forward restore the view of their history entry (changeView pushes one per change).
	p.stopPop = browser.OnPopState(func() {
		ctx.Dispatch(func(ctx app.Context) {
			u := browser.URL()
			p.v = components.ViewFromURL(u)
			p.notice = components.ViewNotice(u) // an entry the page was opened with may name a view it does not show
			p.applyTheme()
		})
	})
	// Nothing above changes what the page shows (the list comes later, by a
	// dispatch of its own): the mount renders nothing again
	// (docs/startup.md, "One render at mount").
	ctx.PreventUpdate()
}

// OnDismount stops following Back and Forward.
func (p *ChartPage) OnDismount() {
	if p.stopPop != nil {
		p.stopPop()
		p.stopPop = nil
	}
}

// changeView applies a control's change to the view on show (p.v, read at
// the click) and names the new view in the URL.
func (p *ChartPage) changeView(change func(v *components.View)) {
	change(&p.v)
	p.notice = "" // the URL now names the view on show
	p.applyTheme()
	browser.PushQuery(p.v.Query()) // a history entry: Back steps through views (history.go)
}

// applyTheme sets the document's theme: the user's choice, or the system's.
func (p *ChartPage) applyTheme() { p.dark = browser.SetTheme(p.v.Theme) }

// decimals is the price precision of the contract on show (priceDecimals).
func (p *ChartPage) decimals() int32 { return priceDecimals(p.contracts, p.v.Contract) }

// Render draws the page. The bar and its toggles are methods of their
// own, as the components' parts are (package components' doc).
func (p *ChartPage) Render() app.UI {
	p.renders.count()
	v := p.v
	if v.Contract == "" {
		v = components.DefaultView()
	}
	return app.Div().Class("page chart-page").Body(
		p.bar(v),
		app.If(p.notice != "", func() app.UI {
			return app.P().ID("view-notice").Class("notice view-notice").Attr("role", "status").Text(p.notice)
		}),
		app.Div().Class("layout").Body(
			app.Main().Class("main").Body(
				&components.KLineChart{Contract: v.Contract, Period: v.Period, UTC: v.UTC, Dark: p.dark, Decimals: p.decimals(), Look: v.Look},
			),
			&components.RiskPanel{Contract: v.Contract, UTC: v.UTC, Contracts: p.contracts},
		),
	)
}

// chartPicker is the chart page's contract list for view v, the server's
// (firstPicker, pick nil) as the app's.
func chartPicker(v components.View, contracts []venueapi.Offer, pick func(app.Context, string)) *components.ContractPicker {
	return &components.ContractPicker{Contracts: contracts, Contract: v.Contract, OnPick: pick, View: v}
}

// bar is the page's header: the contract, the period and the toggles.
func (p *ChartPage) bar(v components.View) app.UI {
	setContract := func(ctx app.Context, code string) {
		p.entryErr = ""
		p.changeView(func(v *components.View) { v.Contract = code })
	}
	return app.Header().Class("bar").Body(
		app.H1().Class("brand").Text("Riskchart"),
		chartPicker(v, p.contracts, setContract),
		&components.ContractEntry{Contract: v.Contract, OnEnter: setContract, View: v,
			OnError: func(ctx app.Context, msg string) { p.entryErr = msg }},
		&components.PeriodPicker{ID: "period-picker", Class: "chips", Period: v.Period, View: &v,
			OnPick: func(ctx app.Context, pr venueapi.Period) { p.changeView(func(v *components.View) { v.Period = pr }) }},
		p.toggles(v),
		app.If(p.entryErr != "", func() app.UI {
			return app.P().ID("contract-error").Class("field-error").Attr("role", "alert").Text(p.entryErr)
		}),
	)
}

// toggles are the zone and theme toggles, the jump to the latest candle,
// the studies, the embedding tool and the app's status.
func (p *ChartPage) toggles(v components.View) app.UI {
	return app.Div().Class("toggles").Body(
		// The handlers read p.v at the click: go-app keeps a
		// handler of the first render while its code is the same.
		&components.ZoneToggle{View: v, OnToggle: func(ctx app.Context) {
			p.changeView(func(v *components.View) { v.UTC = !v.UTC })
		}},
		&components.ThemeToggle{View: v, OnToggle: func(ctx app.Context) {
			p.changeView(func(v *components.View) { v.Theme = components.NextTheme(v.Theme) })
		}},
		app.Button().ID("jump-latest").Class("button").Text("Latest ⇥").Title("Jump to the latest candle").
			OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(components.ActionJumpToLatest) }),
		&components.StudyMenu{Indicators: v.Look.Indicators, OnChange: func(ctx app.Context, indicators string) {
			p.changeView(func(v *components.View) { v.Look.Indicators = indicators })
		}},
		&components.EmbedTool{View: v},
		&components.AppStatus{},
	)
}
