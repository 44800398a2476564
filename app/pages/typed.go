package pages

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
)

// riskPanelSelector finds the risk panel's root (components.RiskPanel).
const riskPanelSelector = "aside.risk"

// typedBefore is what the user typed or picked in the server's risk panel
// before the app ran, and where the focus was: a page's mount replaces
// that panel with the app's, which would start empty. Every page with a
// risk panel (the chart page, /tiers, /limits, the panels' embeds) keeps it.
type typedBefore struct {
	fields  []browser.Field
	focused string
}

// take reads it from the server's panel; a page's OnInit, before go-app
// replaces the page.
func (t *typedBefore) take() { t.fields, t.focused = browser.ChangedFields(riskPanelSelector) }

// restore types it again into the app's panel, once, so that the panel's
// handlers see it; a page's OnMount. From a goroutine, since those handlers
// run on the mount's.
func (t *typedBefore) restore(ctx app.Context) {
	if len(t.fields) == 0 && t.focused == "" {
		return
	}
	fields, focused := t.fields, t.focused
	*t = typedBefore{}
	ctx.Async(func() { browser.RestoreFields(fields, focused) })
}
