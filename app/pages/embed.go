package pages

import (
	"errors"
	"net/url"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/app/embedmsg"
	"github.com/riskchart/riskchart/venueapi"
)

// EmbedRootID is the id of an embed's root element, which holds all it
// shows.
const EmbedRootID = "embed-root"

// EmbedPage is a route made for iframes (/embed/chart, /embed/tiers,
// /embed/limits): no page chrome, its state from the query string, and a
// postMessage channel (app/embedmsg) to the framing page, whose origin must
// be on the server's allow-list.
type EmbedPage struct {
	app.Compo

	kind     string // embedmsg.RouteChart, RouteTiers or RouteLimits
	v        components.View
	controls bool       // show the pickers (controls=0 hides them)
	notice   string     // which view parameters of the URL are not shown, and why (components.ViewNotice)
	winW     int        // the iframe's width, CSS px
	winH     int        // the iframe's height, CSS px; 0 unknown
	full     fullLayout // the chart's full layout as last measured
	first    frameSize  // where the first paint took the compact layout; zero: it did not
	token    string     // signed embed link (?embed=), the private panels' only access
	dark     bool

	contracts []venueapi.Offer // the server's list: a risk panel's face values, the chart's price precision
	typed     typedBefore      // into the server's risk panel, before the app ran

	allow   embedmsg.AllowList
	parent  string // the framing page's origin once known and allowed; empty: talk to nobody
	ready   string // the ready message owed or last sent
	readyOK bool   // ready has been sent
	height  int    // the height last sent
	candle  string // the candle message last sent: the pointer moves a lot
	renders renders

	stopListening func() // ends listening to the parent
	stopObserving func() // ends watching the content's size
}

// OnPreRender names, on the server, the KLine answer a chart embed's first
// paint draws, so that the browser fetches it while echarts.min.js loads
// rather than once the body's script asks (answerPreload).
func (e *EmbedPage) OnPreRender(ctx app.Context) {
	if e.kind == embedmsg.RouteChart {
		ctx.Page().SetPreloads(answerPreload(components.ViewFromURL(ctx.Page().URL())))
	}
}

// OnInit reads the view from the query string in the browser, before the
// first render, so that the page mounts its content at once
// (docs/startup.md, "One render at mount").
func (e *EmbedPage) OnInit() {
	if app.IsClient {
		e.readURL(browser.URL())
		e.fitSize(app.Window().Size())
		if s, ok := browser.FirstPaint(); ok && s.Compact && e.kind == embedmsg.RouteChart {
			e.first = e.frameSize()
		}
		if list, ok := adoptContracts(); ok { // the shown contract's entry, which the server put in the page (FirstOffer)
			e.contracts = list
		}
		e.typed.take()
	}
}

// OnNav reads the view from the query string. The navigation that follows
// the mount finds the page showing it already, and renders nothing again.
func (e *EmbedPage) OnNav(ctx app.Context) {
	was := e.shown()
	e.readURL(ctx.Page().URL())
	e.fitSize(ctx.Page().Size())
	if e.shown() == was {
		ctx.PreventUpdate()
	}
}

// readURL takes the view, the controls, the embed link, the theme and the
// locale from u.
func (e *EmbedPage) readURL(u *url.URL) {
	e.v = components.ViewFromURL(u)
	e.notice = components.ViewNotice(u)
	q := u.Query()
	e.controls = q.Get("controls") != "0"
	e.token = embedLink(q)
	e.dark = browser.SetTheme(e.v.Theme)
	// The locale is the document's language (screen readers, the browser's
	// own controls); numbers stay exactly as the venue wrote them.
	if l := q.Get("locale"); validLocale(l) {
		browser.SetLang(l)
	}
}

// embedShown is what of the page's state its URL and size decide.
type embedShown struct {
	v                       components.View
	notice, token           string
	controls, dark, compact bool
}

func (e *EmbedPage) shown() embedShown {
	return embedShown{v: e.v, notice: e.notice, token: e.token, controls: e.controls, dark: e.dark, compact: e.compact()}
}

// OnMount hands a risk panel what the user typed into the server's before
// the app ran, listens to the parent, watches the content's size, loads the
// whole contract list (the page may have carried the shown contract's entry
// alone: OnInit), and learns the allowed origins; ready and
// height go out once the parent is known.
func (e *EmbedPage) OnMount(ctx app.Context) {
	e.typed.restore(ctx)
	e.allow = embedmsg.NewAllowList(browser.Origin(), nil)
	e.stopListening = browser.ListenToParent(embedmsg.MaxMessage, func(from, data string) {
		ctx.Dispatch(func(ctx app.Context) { e.onMessage(ctx, from, data) })
	})
	e.stopObserving = browser.ObserveSize(EmbedRootID, func() {
		ctx.Dispatch(func(app.Context) { e.postHeight() })
	})
	loadContracts(ctx, func(list []venueapi.Offer) { e.contracts = list })
	ctx.Async(func() {
		origins := api.FetchEmbedOrigins(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			e.allow = embedmsg.NewAllowList(browser.Origin(), origins)
			e.parent = e.allow.Parent(browser.ParentCandidates(ctx.Page().URL().Query().Get("parent"))...)
			e.flushReady() // content drawn before the allow-list came owes it now
			e.announceWithoutData()
			e.postHeight()
		})
	})
	// What the mount keeps is for the parent, not for show: it renders
	// nothing again (docs/startup.md, "One render at mount").
	ctx.PreventUpdate()
}

// OnDismount stops listening and watching.
func (e *EmbedPage) OnDismount() {
	if e.stopListening != nil {
		e.stopListening()
	}
	if e.stopObserving != nil {
		e.stopObserving()
	}
}

// OnResize tells the parent the new preferred height (for browsers without
// ResizeObserver).
func (e *EmbedPage) OnResize(ctx app.Context) {
	e.fitSize(ctx.Page().Size())
	e.postHeight()
}

// fitSize keeps the iframe's size, which chooses the chart's layout.
func (e *EmbedPage) fitSize(w, h int) {
	e.winW, e.winH = w, h
}

// frameSize is an iframe's size, CSS px, and the studies it shows: what
// the layout of a chart embed depends on.
type frameSize struct {
	w, h    int
	studies string
}

// frameSize is the embed's now.
func (e *EmbedPage) frameSize() frameSize {
	return frameSize{w: e.winW, h: e.winH, studies: e.v.Look.Indicators}
}

// fullLayout is the chart's full layout as the chart measured it: the
// price pane's height, px, in a frame of that size with those studies.
type fullLayout struct {
	frameSize
	pane float64
}

// compact reports whether the chart is too low for the full layout: under
// the height the panes of the view's studies need (chartopt.CompactBelow),
// at the size and studies at which the first paint found it so (it
// measured the frame's price grid before it drew: web/chart-boot.js), or,
// once the chart has measured its full layout at this width with these
// studies, when that layout leaves the candles too little at this height
// (chartopt.MinPricePane): the lines over the chart are as many as the
// width makes them. The parent may change the studies (riskchart:set).
func (e *EmbedPage) compact() bool {
	if e.winH <= 0 {
		return false
	}
	k := e.v.Look.OscillatorPanes()
	if e.winH < chartopt.CompactBelow(k) {
		return true
	}
	if e.first.w > 0 && e.first == e.frameSize() {
		return true // a full layout drawn now would only be measured too low again
	}
	f := e.full
	if f.pane == 0 || f.w != e.winW || f.studies != e.v.Look.Indicators {
		return false
	}
	return chartopt.PricePaneAt(k, f.pane, e.winH-f.h) < chartopt.MinPricePane
}

// laidOut keeps the full layout's price pane as the chart measured it, in
// the iframe's size at that moment, and takes the compact layout when the
// pane is too low.
func (e *EmbedPage) laidOut(ctx app.Context, pane float64) {
	was := e.compact()
	e.fitSize(app.Window().Size())
	e.full = fullLayout{frameSize: e.frameSize(), pane: pane}
	if e.compact() != was {
		ctx.Update()
	}
}

// post sends one message to the parent, when there is an allowed one.
func (e *EmbedPage) post(msg any) { e.postJSON(embedmsg.Encode(msg)) }

// postJSON sends a message encoded already.
func (e *EmbedPage) postJSON(msg string) {
	if e.parent == "" {
		return
	}
	browser.PostToParent(msg, e.parent)
}

// announce owes the parent a ready message, sent at once when it is known
// and when it says something new.
func (e *EmbedPage) announce(msg embedmsg.Ready) {
	s := embedmsg.Encode(msg)
	if s == e.ready && e.readyOK {
		return
	}
	e.ready, e.readyOK = s, false
	e.flushReady()
}

func (e *EmbedPage) flushReady() {
	if e.ready == "" || e.readyOK || e.parent == "" {
		return
	}
	e.postJSON(e.ready)
	e.readyOK = true
}

// announceWithoutData announces a tiers embed of a future at once: the
// venue publishes tiers for swaps alone, so there is nothing to load.
func (e *EmbedPage) announceWithoutData() {
	if c, err := venueapi.ParseContractCode(e.v.Contract); e.kind == embedmsg.RouteTiers && err == nil && c.Kind != venueapi.KindSwap {
		e.announce(embedmsg.PanelReady(e.kind, e.v.Contract, true))
	}
}

// postHeight sends the content's preferred height when it has changed.
func (e *EmbedPage) postHeight() {
	if e.parent == "" {
		return // nobody to tell: no layout read
	}
	h, ok := browser.ScrollHeight(EmbedRootID)
	if !ok || h == e.height {
		return
	}
	e.height = h
	e.post(embedmsg.NewHeight(h))
}

// onMessage obeys an allowed parent: another contract, period or theme.
func (e *EmbedPage) onMessage(ctx app.Context, from, data string) {
	if !e.allow.Allows(from) {
		return
	}
	set, err := embedmsg.ParseSet(data)
	switch {
	case errors.Is(err, embedmsg.ErrNotACommand):
		return
	case err != nil:
		e.post(embedmsg.NewError(err.Error()))
		return
	}
	if set.ContractCode != "" {
		e.v.Contract = set.ContractCode
		e.announceWithoutData()
	}
	if set.Period != "" {
		e.v.Period = set.Period
	}
	if set.Theme != "" {
		e.v.Theme = set.Theme
		e.dark = browser.SetTheme(e.v.Theme)
	}
	if set.Scale != "" {
		e.v.Look.Scale, _ = chartopt.ParseScale(set.Scale) // checked by ParseSet
	}
	if set.Style != "" {
		e.v.Look.Kind, _ = chartopt.ParseKind(set.Style)
	}
	switch set.Indicators {
	case "":
	case embedmsg.IndicatorsNone:
		e.v.Look.Indicators = ""
	default:
		e.v.Look.Indicators = set.Indicators
	}
}

// decimals is the price precision of the contract on show, -1 until the
// contract list has come: the chart then writes prices in the venue's
// digits, and again at the contract's once it has.
func (e *EmbedPage) decimals() int32 { return priceDecimals(e.contracts, e.v.Contract) }

// Render fills the iframe with the chart or a panel.
func (e *EmbedPage) Render() app.UI {
	e.renders.count()
	if e.v.Contract == "" {
		return app.Div().ID(EmbedRootID).Class("embed")
	}
	compact := e.kind == embedmsg.RouteChart && e.compact() // once a render: it reads the view's studies
	var body app.UI
	switch e.kind {
	case embedmsg.RouteChart:
		body = &components.KLineChart{Contract: e.v.Contract, Period: e.v.Period, UTC: e.v.UTC, Dark: e.dark, Decimals: e.decimals(), Compact: compact, Look: e.v.Look,
			OnDrawn: func(ctx app.Context) {
				e.announce(embedmsg.ChartReady(e.v.Contract, e.v.Period))
				e.postHeight()
			},
			OnLayout: e.laidOut,
			OnError:  func(ctx app.Context, msg string) { e.post(embedmsg.NewError(msg)) },
			OnCandle: func(ctx app.Context, c venueapi.Candle, clicked bool) {
				if s := embedmsg.Encode(embedmsg.NewCandle(c, clicked)); s != e.candle {
					e.candle = s
					e.postJSON(s)
				}
			}}
	default:
		body = &components.RiskPanel{Contract: e.v.Contract, UTC: e.v.UTC, Show: e.kind, Embedded: true, EmbedToken: e.token, Contracts: e.contracts, NoCalculator: !e.controls,
			OnLoaded: func(ctx app.Context, err error) {
				switch {
				case err == nil || errors.Is(err, api.ErrNoAccess):
					e.announce(embedmsg.PanelReady(e.kind, e.v.Contract, err == nil))
				default:
					e.post(embedmsg.NewError(err.Error()))
				}
				e.postHeight()
			}}
	}
	var head app.UI
	if e.kind == embedmsg.RouteChart {
		// What the chart shows, on the row of the period chips.
		var controls app.UI
		if e.controls {
			controls = &components.PeriodPicker{Class: "chips embed-controls", Period: e.v.Period,
				OnPick: func(ctx app.Context, pr venueapi.Period) { e.v.Period = pr }}
		}
		head = app.Div().Class("embed-head").Body(
			app.H1().ID("embed-title").Class("embed-title").Text(e.v.Contract+" · "+string(e.v.Period)),
			controls,
		)
	}
	class := "embed embed-" + e.kind
	if !e.controls {
		class += " no-controls"
	}
	if compact {
		class += " embed-compact"
	}
	return app.Div().ID(EmbedRootID).Class(class).Body(
		head,
		app.If(e.notice != "", func() app.UI {
			return app.P().ID("view-notice").Class("notice view-notice").Attr("role", "status").Text(e.notice)
		}),
		body,
	)
}

// embedLink is the signed embed link in an embed's query (?embed=).
func embedLink(q url.Values) string { return q.Get("embed") }

// validLocale reports whether s is a BCP 47 language tag, loosely: a
// language of 2 or 3 letters, then up to three subtags of 2 to 8 letters or
// digits ("de", "pt-BR", "zh-Hant-TW").
func validLocale(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) > 4 {
		return false
	}
	for i, p := range parts {
		lo, hi := 2, 8
		if i == 0 {
			hi = 3
		}
		if len(p) < lo || len(p) > hi {
			return false
		}
		for _, r := range p {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if !letter && (i == 0 || r < '0' || r > '9') {
				return false
			}
		}
	}
	return true
}
