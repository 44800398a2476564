package components

import (
	"html"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/embedmsg"
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
}

// Render draws the button and, when open, the dialog.
func (t *EmbedTool) Render() app.UI {
	return app.Div().Class("embed-tool").Body(
		app.Button().ID("embed-open").Class("button").Aria("expanded", t.open).Aria("controls", "embed-dialog").Text("Embed").
			OnClick(func(ctx app.Context, e app.Event) { t.open, t.copied = !t.open, "" }),
		app.If(t.open, t.renderDialog),
	)
}

func (t *EmbedTool) renderDialog() app.UI {
	opts := snippetOptions{noPicker: t.noPicker, link: t.link}
	item := func(route, label string) app.UI {
		snippet := embedSnippet(browser.Origin(), route, t.View, opts)
		return app.Div().Class("embed-snippet").Body(
			app.Label().For("embed-"+route).Text(label),
			app.Textarea().ID("embed-"+route).Class("control").ReadOnly(true).Rows(3).Text(snippet),
			app.Button().Class("button").DataSet("copy", route).Text(map[bool]string{true: "Copied", false: "Copy"}[t.copied == route]).
				OnClick(func(ctx app.Context, e app.Event) {
					if browser.CopyText(snippet) {
						t.copied = route
					}
				}),
		)
	}
	return app.Section().ID("embed-dialog").Class("dialog embed-dialog").Attr("role", "dialog").Aria("label", "Embed this view").
		OnKeyDown(func(ctx app.Context, e app.Event) {
			if e.Get("key").String() == "Escape" {
				t.open = false
			}
		}).Body(
		app.P().Text("Paste a snippet into your page. Your site's origin must be in the server's RISKCHART_FRAME_ANCESTORS. "+
			"The private panels show data only with a signed embed link (riskchart embed-link)."),
		app.Label().Class("embed-option").Body(
			app.Input().ID("embed-no-picker").Type("checkbox").Checked(t.noPicker).
				OnChange(func(ctx app.Context, e app.Event) { t.noPicker = ctx.JSSrc().Get("checked").Bool() }),
			app.Text(" Without the pickers"),
		),
		app.Label().Class("embed-option").For("embed-link").Text("Signed embed link for the panels (optional)"),
		app.Input().ID("embed-link").Class("control").Type("text").Value(t.link).Attr("spellcheck", "false").
			OnInput(func(ctx app.Context, e app.Event) { t.link = ctx.JSSrc().Get("value").String() }),
		item(embedmsg.RouteChart, "Chart"), item(embedmsg.RouteTiers, "Risk-limit tiers"), item(embedmsg.RouteLimits, "Position limits"),
		app.Button().Class("button").Text("Close").OnClick(func(ctx app.Context, e app.Event) { t.open = false }),
	)
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
		if v.UTC {
			q.Set("tz", "utc")
		}
	} else if o.link != "" {
		q.Set("embed", o.link)
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
