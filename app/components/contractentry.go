package components

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// contractInput is the id of ContractEntry's field.
const contractInput = "contract-input"

// ContractEntry is the free-entry form (#contract-form) for any contract
// code, listed or not; the code is checked before it is taken.
type ContractEntry struct {
	app.Compo

	// Contract is the contract on show: the field empties when it changes.
	Contract string
	// OnEnter is told a well-formed code; OnError why a code is not one.
	OnEnter func(ctx app.Context, code string)
	OnError func(ctx app.Context, msg string)
	// View is the page's view: the form is a GET form to it, so that a code
	// entered before the app runs navigates to its chart. Page, when set, is
	// the path of a risk page (/tiers): the form goes there instead, holding
	// the view's zone and theme (View.PageQuery).
	View View
	Page string

	entry   string // the field as typed
	shown   string // the Contract on show when the field last emptied
	invalid bool   // the last code entered is not one: the page shows why (OnError)
}

// OnInit starts the field empty, in the server's page and in the app's
// first render alike, so that the app changes nothing on show: the picker
// beside it names the contract on show, and a code typed into it, before
// the app runs (the form then navigates) or after, needs nothing cleared
// first.
func (c *ContractEntry) OnInit() { c.shown = c.Contract }

// OnUpdate empties the field once the contract on show has changed: the
// code typed in it was taken, or another was chosen elsewhere. The render
// alone would not: go-app drops an empty value (browser.ClearValues).
func (c *ContractEntry) OnUpdate(ctx app.Context) {
	if c.Contract != c.shown {
		c.entry, c.shown, c.invalid = "", c.Contract, false
		browser.ClearValues(contractInput)
	}
}

func (c *ContractEntry) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	code := strings.ToUpper(strings.TrimSpace(c.entry)) // the venue's codes are upper case: btc-usdt-cq is BTC-USDT-CQ
	_, err := venueapi.ParseContractCode(code)
	c.invalid = err != nil
	if err != nil {
		if c.OnError != nil {
			c.OnError(ctx, "Not a contract code: use BASE-QUOTE (a swap), BASE-QUOTE-YYMMDD (a future) or BASE-QUOTE-CW/NW/CQ/NQ.")
		}
		return
	}
	if c.OnEnter != nil {
		c.OnEnter(ctx, code)
	}
}

// Render draws the form.
func (c *ContractEntry) Render() app.UI {
	form, fields := pageForm(c.Page, c.View, "contract_code")
	return form.ID("contract-form").Class("entry").OnSubmit(c.submit).Body(append([]app.UI{
		app.Label().For(contractInput).Class("sr-only").Text("Any contract code"),
		app.Input().ID(contractInput).Class("control").Type("text").Name("contract_code").Placeholder("e.g. BTC-USDT-CQ").Value(c.entry).
			Attr("autocapitalize", "characters").Attr("spellcheck", "false").Aria("invalid", c.invalid).Aria("describedby", "contract-error").
			OnInput(func(ctx app.Context, e app.Event) { c.entry = ctx.JSSrc().Get("value").String() }),
		app.Button().Type("submit").Class("button").Text("Show"),
	}, fields...)...)
}
