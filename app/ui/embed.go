package ui

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// The postMessage protocol between an embed and the page that frames it
// (documented in the README). Every message is an object with a "type".
const (
	msgReady  = "riskchart:ready"  // embed → parent: drawn; carries the view
	msgHeight = "riskchart:height" // embed → parent: preferred height in px
	msgCandle = "riskchart:candle" // embed → parent: the candle hovered or clicked
	msgError  = "riskchart:error"  // embed → parent: what went wrong
	msgSet    = "riskchart:set"    // parent → embed: contract_code, period, theme
)

// localePattern is a BCP 47 language tag, loosely: "de", "pt-BR", "zh-Hant-TW".
var localePattern = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$`)

// EmbedPage is a route made for iframes (/embed/chart, /embed/tiers,
// /embed/limits): no page chrome, its state from the query string, and a
// postMessage channel to the parent page, whose origin must be allowed.
type EmbedPage struct {
	app.Compo

	kind     string // "chart", "tiers" or "limits"
	v        view
	controls bool
	token    string   // signed embed link, for private panels
	parent   string   // the parent's origin, once allowed
	allowed  []string // origins allowed to frame and to message
	dark     bool
	drawn    bool // the chart has drawn: ready is owed once the parent is known
	listener app.Func
}

// OnNav reads the view from the query string.
func (e *EmbedPage) OnNav(ctx app.Context) {
	u := ctx.Page().URL()
	e.v = viewFromURL(u)
	q := u.Query()
	e.controls = q.Get("controls") != "0"
	e.token = q.Get("embed")
	e.applyTheme()
	// The locale applies to the document's language (screen readers, the
	// browser's own controls); numbers stay exactly as the venue wrote them.
	if l := q.Get("locale"); localePattern.MatchString(l) {
		app.Window().Get("document").Get("documentElement").Set("lang", l)
	}
}

// OnMount learns the allowed origins, then greets the parent and listens.
func (e *EmbedPage) OnMount(ctx app.Context) {
	e.listener = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		ev := args[0]
		origin := ev.Get("origin").String()
		data := app.Window().Get("JSON").Call("stringify", ev.Get("data")).String()
		go ctx.Dispatch(func(ctx app.Context) { e.onMessage(ctx, origin, data) })
		return nil
	})
	app.Window().Call("addEventListener", "message", e.listener)
	ctx.Async(func() {
		a, err := fetchText(ctx, "GET", origin()+"/api/v1/embed", "", nil)
		var cfg struct {
			Origins []string `json:"origins"`
		}
		if err == nil {
			json.Unmarshal([]byte(a.body), &cfg)
		}
		ctx.Dispatch(func(ctx app.Context) {
			e.allowed = cfg.Origins
			e.parent = e.parentOrigin(ctx)
			e.postReady() // a chart drawn before the allow-list came owes it now
			e.postHeight()
		})
	})
}

// OnDismount stops listening.
func (e *EmbedPage) OnDismount() {
	app.Window().Call("removeEventListener", "message", e.listener)
	e.listener.Release()
}

// OnResize tells the parent the new preferred height.
func (e *EmbedPage) OnResize(ctx app.Context) { e.postHeight() }

// allows reports whether origin may frame and message this embed: this
// server's own origin, or one of the configured frame ancestors.
func (e *EmbedPage) allows(o string) bool {
	return o != "" && (o == origin() || slices.Contains(e.allowed, o))
}

// parentOrigin is the framing page's origin when it is allowed: from
// ?parent=, else from the referrer. Empty: the embed talks to nobody.
func (e *EmbedPage) parentOrigin(ctx app.Context) string {
	if app.Window().Get("parent").Equal(app.Window().JSValue()) {
		return "" // not framed
	}
	cands := []string{ctx.Page().URL().Query().Get("parent")}
	if ref := app.Window().Get("document").Get("referrer").String(); ref != "" {
		if u, err := url.Parse(ref); err == nil {
			cands = append(cands, u.Scheme+"://"+u.Host)
		}
	}
	for _, c := range cands {
		if e.allows(c) {
			return c
		}
	}
	return ""
}

func (e *EmbedPage) post(kind string, fields map[string]any) {
	if e.parent == "" {
		return
	}
	msg := map[string]any{"type": kind}
	for k, v := range fields {
		msg[k] = v
	}
	app.Window().Get("parent").Call("postMessage", msg, e.parent)
}

// postReady tells the parent what is drawn: a panel at once, a chart once
// it has drawn.
func (e *EmbedPage) postReady() {
	switch {
	case e.kind != "chart":
		e.post(msgReady, map[string]any{"route": e.kind, "contract_code": e.v.Contract})
	case e.drawn:
		e.post(msgReady, map[string]any{"route": "chart", "contract_code": e.v.Contract, "period": string(e.v.Period)})
	}
}

func (e *EmbedPage) postHeight() {
	h := app.Window().Get("document").Get("documentElement").Get("scrollHeight").Int()
	e.post(msgHeight, map[string]any{"height": h})
}

// onMessage obeys an allowed parent: another contract, period or theme.
func (e *EmbedPage) onMessage(ctx app.Context, from, data string) {
	if !e.allows(from) {
		return
	}
	var m struct {
		Type         string `json:"type"`
		ContractCode string `json:"contract_code"`
		Period       string `json:"period"`
		Theme        string `json:"theme"`
	}
	if json.Unmarshal([]byte(data), &m) != nil || m.Type != msgSet {
		return
	}
	if m.ContractCode != "" {
		if _, err := venueapi.ParseContractCode(m.ContractCode); err != nil {
			e.post(msgError, map[string]any{"message": err.Error()})
			return
		}
		e.v.Contract = m.ContractCode
	}
	if m.Period != "" {
		p, err := venueapi.ParsePeriod(m.Period)
		if err != nil {
			e.post(msgError, map[string]any{"message": err.Error()})
			return
		}
		e.v.Period = p
	}
	if m.Theme == "light" || m.Theme == "dark" || m.Theme == "auto" {
		e.v.Theme = m.Theme
		e.applyTheme()
	}
}

func (e *EmbedPage) applyTheme() {
	p := ChartPage{v: e.v}
	p.applyTheme()
	e.dark = p.dark
}

// Render fills the iframe with the chart or a panel.
func (e *EmbedPage) Render() app.UI {
	if e.v.Contract == "" {
		return app.Div().Class("embed")
	}
	var body app.UI
	switch e.kind {
	case "chart":
		body = &KLineChart{Contract: e.v.Contract, Period: e.v.Period, UTC: e.v.UTC, Dark: e.dark, Decimals: -1,
			OnDrawn: func(ctx app.Context) {
				e.drawn = true
				e.postReady()
				e.postHeight()
			},
			OnError: func(ctx app.Context, msg string) { e.post(msgError, map[string]any{"message": msg}) },
			OnCandle: func(ctx app.Context, c venueapi.Candle, clicked bool) {
				e.post(msgCandle, map[string]any{"clicked": clicked, "candle": map[string]any{
					"id": c.ID, "open": c.Open.String(), "high": c.High.String(), "low": c.Low.String(), "close": c.Close.String(),
					"vol": c.Vol.String(), "amount": c.Amount.String(), "trade_turnover": c.TradeTurnover.String(), "count": c.Count.String()}})
			}}
	default:
		body = &RiskPanel{Contract: e.v.Contract, Show: e.kind, Embedded: true, EmbedToken: e.token}
	}
	var controls app.UI
	if e.controls && e.kind == "chart" {
		chips := make([]app.UI, 0, 9)
		for _, pr := range venueapi.Periods() {
			chips = append(chips, app.Button().Class("chip").DataSet("period", string(pr)).Aria("pressed", pr == e.v.Period).Text(string(pr)).
				OnClick(func(ctx app.Context, ev app.Event) { e.v.Period = pr }))
		}
		controls = app.Div().Class("chips embed-controls").Attr("role", "group").Aria("label", "Period").Body(chips...)
	}
	return app.Div().Class("embed embed-"+e.kind).Body(controls, body)
}

// embedSnippet is the iframe a customer pastes to embed route with view v.
func embedSnippet(base, route string, v view) string {
	q := url.Values{"contract_code": {v.Contract}}
	if route == "chart" {
		q.Set("period", string(v.Period))
	}
	if v.Theme != "auto" {
		q.Set("theme", v.Theme)
	}
	if v.UTC {
		q.Set("tz", "utc")
	}
	src := base + "/embed/" + route + "?" + q.Encode()
	return `<iframe src="` + strings.ReplaceAll(src, "&", "&amp;") + `" title="Riskchart ` + route + ` of ` + v.Contract +
		`" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`
}
