package components

import (
	"errors"
	"html"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/embedmsg"
	"github.com/riskchart/riskchart/venueapi"
)

// What the dialog knows of whether the venue lists the contract on show.
const (
	venueUnchecked = iota // not asked yet, or being asked
	venueKnows
	venueUnknown
	venueUnanswered // the check failed: the snippets are offered, with a word of caution
)

// EmbedTool is the main page's Embed button and the dialog it opens: the
// iframe snippets of the three embeds for the view on show, ready to paste
// into another site's page.
type EmbedTool struct {
	app.Compo

	// View is the page's view: the snippets embed it.
	View View

	open     bool
	noPicker bool   // controls=0 in the snippets
	link     string // a signed embed link for the private panels, pasted by the user
	copied   string // the route whose snippet was just copied

	checked string // the contract last asked about
	known   int    // the venue's answer for checked
}

// check asks the venue, through the server's KLine path, whether it lists
// the contract on show: a snippet of a contract it does not know embeds
// nothing but an error.
func (t *EmbedTool) check(ctx app.Context) {
	code := t.View.Contract
	if code == t.checked {
		return
	}
	t.checked, t.known = code, venueUnchecked
	ctx.Async(func() {
		_, err := api.FetchKLine(ctx, venueapi.KLineQuery{ContractCode: code, Period: venueapi.Period1Min, Size: 1})
		ctx.Dispatch(func(ctx app.Context) {
			if code != t.checked {
				return
			}
			switch {
			case err == nil:
				t.known = venueKnows
			case errors.Is(err, api.ErrUnknownContract):
				t.known = venueUnknown
			default:
				t.known = venueUnanswered
			}
		})
	})
}

// OnUpdate checks a contract chosen while the dialog is open.
func (t *EmbedTool) OnUpdate(ctx app.Context) {
	if t.open {
		t.check(ctx)
	}
}

// Render draws the button and, when open, the dialog.
func (t *EmbedTool) Render() app.UI {
	return app.Div().Class("embed-tool").Body(
		app.Button().ID("embed-open").Class("button").Aria("expanded", t.open).Aria("controls", "embed-dialog").Text("Embed").
			OnClick(func(ctx app.Context, e app.Event) {
				if t.open {
					t.open = false // the focus is on this button already
					return
				}
				t.open, t.copied = true, ""
				t.checked = "" // ask again: a contract may have been listed or expired since
				t.check(ctx)
				ctx.Defer(func(app.Context) { browser.Focus("embed-dialog") })
			}),
		app.If(t.open, t.renderDialog),
	)
}

// close closes the dialog from within it (Escape, Close) and gives the
// focus back to the Embed button, as a dialog does, rather than to the
// page's body it would fall to when its element goes. The focus moves
// first: a deferred call would be dropped with the element whose handler
// asked for it.
func (t *EmbedTool) close() {
	browser.Focus("embed-open")
	t.open = false
}

// closeOnEscape closes the dialog when Escape is pressed in it.
func (t *EmbedTool) closeOnEscape(_ app.Context, e app.Event) {
	if e.Get("key").String() == "Escape" {
		t.close()
	}
}

// dialog is the dialog's element: focusable, so that opening it takes the
// focus into it and a screen reader reads its name.
func dialog() app.HTMLSection {
	return app.Section().ID("embed-dialog").Class("dialog embed-dialog").Attr("role", "dialog").Aria("label", "Embed this view").TabIndex(-1)
}

func (t *EmbedTool) renderDialog() app.UI {
	if t.known == venueUnknown {
		return dialog().OnKeyDown(t.closeOnEscape).Body(
			app.P().ID("embed-unknown").Attr("role", "status").Text(unknownContractText(t.View.Contract)+" There is nothing to embed: choose a listed contract first."),
			app.Button().Class("button").Text("Close").OnClick(func(app.Context, app.Event) { t.close() }),
		)
	}
	return dialog().OnKeyDown(t.closeOnEscape).Body(
		app.P().Text("Paste a snippet into your page. Your site's origin must be in the server's RISKCHART_FRAME_ANCESTORS. "+
			"The private panels show data only with a signed embed link (riskchart embed-link)."),
		app.If(t.known == venueUnanswered, func() app.UI {
			return app.P().ID("embed-unchecked").Class("muted").Text("Could not check that the venue lists " + t.View.Contract + ": the snippets may show an error.")
		}),
		t.pickerOption(),
		app.Label().Class("embed-option").For("embed-link").Text("Signed embed link for the panels (optional)"),
		app.Input().ID("embed-link").Class("control").Type("text").Value(t.link).Attr("spellcheck", "false").
			OnInput(func(ctx app.Context, e app.Event) { t.link = ctx.JSSrc().Get("value").String() }),
		t.snippet(embedmsg.RouteChart, "Chart"), t.snippet(embedmsg.RouteTiers, "Risk-limit tiers"), t.snippet(embedmsg.RouteLimits, "Position limits"),
		app.Button().Class("button").Text("Close").OnClick(func(app.Context, app.Event) { t.close() }),
	)
}

// pickerOption leaves the pickers out of the snippets.
func (t *EmbedTool) pickerOption() app.UI {
	return app.Label().Class("embed-option").Body(
		app.Input().ID("embed-no-picker").Type("checkbox").Checked(t.noPicker).
			OnChange(func(ctx app.Context, e app.Event) { t.noPicker = ctx.JSSrc().Get("checked").Bool() }),
		app.Text(" Without the pickers"),
	)
}

// snippet is route's snippet, with a button that copies it.
func (t *EmbedTool) snippet(route, label string) app.UI {
	snippet := embedSnippet(browser.Origin(), route, t.View, snippetOptions{noPicker: t.noPicker, link: t.link})
	return app.Div().Class("embed-snippet").Body(
		app.Label().For("embed-"+route).Text(label),
		app.Textarea().ID("embed-"+route).Class("control").ReadOnly(true).Rows(3).Text(snippet),
		app.Button().Class("button").DataSet("copy", route).Text(either(t.copied == route, "Copied", "Copy")).OnClick(t.copy),
	)
}

// copy puts the snippet of the button's route on the clipboard, as the
// dialog's choices and the view are at the click: go-app keeps a handler of
// the dialog's first render while its code is the same.
func (t *EmbedTool) copy(ctx app.Context, e app.Event) {
	route := ctx.JSSrc().Get("dataset").Get("copy").String()
	if browser.CopyText(embedSnippet(browser.Origin(), route, t.View, snippetOptions{noPicker: t.noPicker, link: t.link})) {
		t.copied = route
	}
}

// snippetOptions are the dialog's choices beyond the view.
type snippetOptions struct {
	noPicker bool   // hide the pickers (controls=0)
	link     string // the signed embed link of the private panels
}

// embedSnippet is the iframe a customer pastes to embed route with view v,
// served from base (this server's origin).
func embedSnippet(base, route string, v View, o snippetOptions) string {
	q := url.Values{"contract_code": {v.Contract}}
	if route == embedmsg.RouteChart {
		q.Set("period", string(v.Period))
		v.Look.setLook(q) // the studies, scale and style on show
	} else if o.link != "" {
		q.Set("embed", o.link)
	}
	if v.UTC { // the chart's axis, and a panel's times of day
		q.Set("tz", "utc")
	}
	if v.Theme != "auto" {
		q.Set("theme", v.Theme)
	}
	if o.noPicker {
		q.Set("controls", "0")
	}
	height := map[string]string{embedmsg.RouteChart: "480px", embedmsg.RouteTiers: "420px", embedmsg.RouteLimits: "320px"}[route]
	return `<iframe src="` + html.EscapeString(base+"/embed/"+route+"?"+q.Encode()) + `" title="` +
		html.EscapeString("Riskchart "+route+" of "+v.Contract) + `" style="width:100%;height:` + height + `;border:0" loading="lazy"></iframe>`
}
