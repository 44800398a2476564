package ui

import (
	"context"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// Actions between the page's controls and its chart.
const (
	actionJumpToLatest = "chart/jump-to-latest"
	actionRetryChart   = "chart/retry"
)

// view is what the URL holds: reload or share restores it.
type view struct {
	Contract string
	Period   venueapi.Period
	UTC      bool
	Theme    string // "auto", "light" or "dark"
}

// defaultView is the view of a URL that names none.
func defaultView() view {
	return view{Contract: "BTC-USDT", Period: venueapi.Period1Min, Theme: "auto"}
}

// viewFromURL reads ?contract_code=&period=&tz=&theme=, falling back to
// BTC-USDT, 1min, the browser's zone and its colour scheme.
func viewFromURL(u *url.URL) view {
	q := u.Query()
	v := defaultView()
	if c := q.Get("contract_code"); c != "" {
		if _, err := venueapi.ParseContractCode(c); err == nil {
			v.Contract = c
		}
	}
	if p, err := venueapi.ParsePeriod(q.Get("period")); err == nil {
		v.Period = p
	}
	v.UTC = q.Get("tz") == "utc"
	switch t := q.Get("theme"); t {
	case "light", "dark":
		v.Theme = t
	}
	return v
}

func (v view) query() string {
	q := url.Values{"contract_code": {v.Contract}, "period": {string(v.Period)}}
	if v.UTC {
		q.Set("tz", "utc")
	} else {
		q.Set("tz", "local")
	}
	if v.Theme != "auto" {
		q.Set("theme", v.Theme)
	}
	return q.Encode()
}

// ChartPage is the page at "/": the chart, its controls and the risk panels.
type ChartPage struct {
	app.Compo

	v         view
	contracts []Contract
	entry     string // the free-entry field
	entryErr  string
	dark      bool // resolved theme
}

// OnPreRender names, on the server, what the page will fetch first, so that
// the browser loads it while app.wasm downloads and compiles.
func (p *ChartPage) OnPreRender(ctx app.Context) {
	p.v = viewFromURL(ctx.Page().URL())
	q := venueapi.KLineQuery{ContractCode: p.v.Contract, Period: p.v.Period, Size: latestSize}
	ctx.Page().SetPreloads(
		app.Preload{As: "fetch", Href: venueapi.PathKLine + "?" + q.Values().Encode() + " crossorigin=anonymous"},
		app.Preload{As: "fetch", Href: "/api/v1/contracts crossorigin=anonymous"},
	)
}

// OnInit reads the view from the URL in the browser before the first
// render, so that the chart mounts with it and can adopt the first paint.
func (p *ChartPage) OnInit() {
	if app.IsClient {
		p.v = viewFromURL(app.Window().URL())
		p.entry = p.v.Contract
		p.applyTheme()
	}
}

// OnMount loads the contract list.
func (p *ChartPage) OnMount(ctx app.Context) {
	ctx.Async(func() {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		list, err := fetchContracts(cctx)
		ctx.Dispatch(func(ctx app.Context) {
			if err == nil {
				p.contracts = list
			}
		})
	})
}

func (p *ChartPage) setView(ctx app.Context, v view) {
	p.v = v
	p.applyTheme()
	u := app.Window().URL()
	u.RawQuery = v.query()
	app.Window().Get("history").Call("replaceState", nil, "", u.String())
}

// applyTheme sets the document's theme: the user's choice, or the system's.
func (p *ChartPage) applyTheme() { p.dark = setDocumentTheme(p.v.Theme) }

// setDocumentTheme applies theme ("light", "dark", or "auto": the system's)
// to the document and reports whether it is dark.
func setDocumentTheme(theme string) bool {
	root := app.Window().Get("document").Get("documentElement")
	switch theme {
	case "light", "dark":
		root.Call("setAttribute", "data-theme", theme)
		return theme == "dark"
	default:
		root.Call("removeAttribute", "data-theme")
		mq := app.Window().Call("matchMedia", "(prefers-color-scheme: dark)")
		return mq.Truthy() && mq.Get("matches").Bool()
	}
}

func (p *ChartPage) decimals() int32 {
	for _, c := range p.contracts {
		if c.Code == p.v.Contract {
			return c.PriceDecimals
		}
	}
	return -1
}

func (p *ChartPage) submitContract(ctx app.Context, e app.Event) {
	e.PreventDefault()
	code := p.entry
	if _, err := venueapi.ParseContractCode(code); err != nil {
		p.entryErr = "Not a contract code: use BASE-QUOTE (a swap), BASE-QUOTE-YYMMDD (a future) or BASE-QUOTE-CW/NW/CQ/NQ."
		return
	}
	p.entryErr = ""
	v := p.v
	v.Contract = code
	p.setView(ctx, v)
}

// Render draws the page.
func (p *ChartPage) Render() app.UI {
	v := p.v
	if v.Contract == "" {
		v = defaultView()
	}
	periods := make([]app.UI, 0, 9)
	for _, pr := range venueapi.Periods() {
		periods = append(periods, app.Button().Class("chip").DataSet("period", string(pr)).Aria("pressed", pr == v.Period).
			Text(string(pr)).OnClick(func(ctx app.Context, e app.Event) {
			nv := p.v
			nv.Period = pr
			p.setView(ctx, nv)
		}))
	}
	options := []app.UI{}
	listed := false
	for _, c := range p.contracts {
		listed = listed || c.Code == v.Contract
		options = append(options, app.Option().Value(c.Code).Selected(c.Code == v.Contract).Text(c.Code))
	}
	if !listed {
		options = append(options, app.Option().Value(v.Contract).Selected(true).Text(v.Contract))
	}
	themeNext := map[string]string{"auto": "dark", "dark": "light", "light": "auto"}[v.Theme]
	return app.Div().Class("page chart-page").Body(
		app.Header().Class("bar").Body(
			app.H1().Class("brand").Text("Riskchart"),
			app.Label().For("contract-select").Class("sr-only").Text("Contract"),
			app.Select().ID("contract-select").Class("control").Body(options...).OnChange(func(ctx app.Context, e app.Event) {
				nv := p.v
				nv.Contract = ctx.JSSrc().Get("value").String()
				p.entry, p.entryErr = nv.Contract, ""
				p.setView(ctx, nv)
			}),
			app.Form().ID("contract-form").Class("entry").OnSubmit(p.submitContract).Body(
				app.Label().For("contract-input").Class("sr-only").Text("Any contract code"),
				app.Input().ID("contract-input").Class("control").Type("text").Placeholder("e.g. BTC-USDT-CQ").Value(p.entry).
					Attr("autocapitalize", "characters").Attr("spellcheck", "false").Aria("describedby", "contract-error").
					OnInput(func(ctx app.Context, e app.Event) { p.entry = ctx.JSSrc().Get("value").String() }),
				app.Button().Type("submit").Class("button").Text("Show"),
			),
			app.Div().ID("period-picker").Class("chips").Attr("role", "group").Aria("label", "Period").Body(periods...),
			app.Div().Class("toggles").Body(
				app.Button().ID("tz-toggle").Class("button").Aria("pressed", v.UTC).Title("Show times in UTC or in your zone").
					Text(map[bool]string{true: "UTC", false: "Local time"}[v.UTC]).OnClick(func(ctx app.Context, e app.Event) {
					nv := p.v
					nv.UTC = !nv.UTC
					p.setView(ctx, nv)
				}),
				app.Button().ID("theme-toggle").Class("button").Title("Theme: automatic, dark or light").
					Text("Theme: "+v.Theme).OnClick(func(ctx app.Context, e app.Event) {
					nv := p.v
					nv.Theme = themeNext
					p.setView(ctx, nv)
				}),
				app.Button().ID("jump-latest").Class("button").Text("Latest ⇥").Title("Jump to the latest candle").
					OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionJumpToLatest) }),
				&EmbedTool{View: v},
				&AppStatus{},
			),
			app.If(p.entryErr != "", func() app.UI {
				return app.P().ID("contract-error").Class("field-error").Attr("role", "alert").Text(p.entryErr)
			}),
		),
		app.Div().Class("layout").Body(
			app.Main().Class("main").Body(
				&KLineChart{Contract: v.Contract, Period: v.Period, UTC: v.UTC, Dark: p.dark, Decimals: p.decimals()},
			),
			&RiskPanel{Contract: v.Contract},
		),
	)
}
