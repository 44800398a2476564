package components

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// filterErrorID is the id of the filter's error, under the field it is about.
const filterErrorID = "filter-error"

// LimitFilter is the form that asks for other contracts' limits; what is
// typed is checked with the endpoint's own rules before anything is sent.
type LimitFilter struct {
	app.Compo

	// Contract is the selected contract code, which Reset shows again.
	Contract string
	// Filtered says that a filter is applied.
	Filtered bool
	// Contracts is the server's list, offered in the code field.
	Contracts []venueapi.Offer
	// OnFilter is told a filter that passed the checks; OnReset that the
	// contract's own limits are wanted again.
	OnFilter func(ctx app.Context, q venueapi.LimitQuery)
	OnReset  func(ctx app.Context)

	draft     venueapi.LimitQuery // the form as typed
	filterErr error
}

// Render draws the form.
func (f *LimitFilter) Render() app.UI {
	bad := filterField(f.filterErr)
	switch bad {
	case "contract_code", "pair", "contract_type", "business_type":
	default:
		bad = "" // shown under the form
	}
	// erred says the field of param ("": the form) is the one the error is
	// about: it is marked invalid, and the error under it describes it,
	// read out on each visit.
	erred := func(param string) bool { return f.filterErr != nil && bad == param }
	errorAt := func(param string) app.UI {
		if !erred(param) {
			return nil
		}
		return app.P().ID(filterErrorID).Class("field-error").Attr("role", "alert").Text(f.filterErr.Error())
	}
	input := func(id, param, label, value, list string, set func(string)) app.UI {
		in := app.Input().ID(id).Class("control").Value(value).Attr("spellcheck", "false").Attr("autocapitalize", "characters").
			Aria("invalid", erred(param)).
			OnInput(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) })
		if list != "" {
			in = in.Attr("list", list)
		}
		if erred(param) {
			in = in.Aria("describedby", filterErrorID)
		}
		return app.Div().Class("filter-field").Body(app.Label().For(id).Text(label), in, errorAt(param))
	}
	choice := func(id, param, label, value string, options [][2]string, set func(string)) app.UI {
		opts := make([]app.UI, len(options))
		for i, o := range options {
			opts[i] = option(o[0], o[1], o[0] == value)
		}
		return app.Div().Class("filter-field").Body(
			app.Label().For(id).Text(label),
			// The choice is read by position, not by the element's value: go-app
			// drops an empty value attribute, and an option without one has
			// its text for value ("any" for the empty contract type).
			app.Select().ID(id).Class("control").Aria("invalid", erred(param)).Aria("describedby", either(erred(param), filterErrorID, "")).Body(opts...).
				OnChange(func(ctx app.Context, e app.Event) {
					if i := ctx.JSSrc().Get("selectedIndex").Int(); i >= 0 && i < len(options) {
						set(options[i][0])
					}
				}),
			errorAt(param),
		)
	}
	codes := codeOptions(f.Contracts)
	types := typeChoices()
	business := [][2]string{{"", "default (swap)"}, {venueapi.BusinessSwap, "swap"}, {venueapi.BusinessFutures, "futures"}, {venueapi.BusinessAll, "all"}}
	d := f.draft
	note := precedenceNote(d)
	return app.Form().ID("limit-filter").Class("filter").Aria("label", "Filter position limits").OnSubmit(func(ctx app.Context, e app.Event) {
		e.PreventDefault()
		if err := f.draft.Validate(); err != nil {
			f.filterErr = err
			return
		}
		f.filterErr = nil
		if f.OnFilter != nil {
			f.OnFilter(ctx, f.draft)
		}
	}).Body(
		input("filter-code", "contract_code", "Contract code", d.ContractCode, "filter-codes", func(s string) { f.draft.ContractCode = strings.TrimSpace(s) }),
		app.DataList().ID("filter-codes").Body(codes...),
		input("filter-pair", "pair", "Pair", d.Pair, "", func(s string) { f.draft.Pair = strings.TrimSpace(s) }),
		choice("filter-type", "contract_type", "Contract type", string(d.ContractType), types, func(s string) { f.draft.ContractType = venueapi.ContractType(s) }),
		choice("filter-business", "business_type", "Business type", d.BusinessType, business, func(s string) { f.draft.BusinessType = s }),
		app.If(note != "", func() app.UI { return app.P().ID("filter-note").Class("muted note").Text(note) }),
		errorAt(""),
		f.actions(),
	)
}

// actions are the filter's buttons: apply it, or show the contract's own
// limits again.
func (f *LimitFilter) actions() app.UI {
	// The filter is the app's to check and apply: it is in no URL. Before
	// app.wasm runs, web/app-start.js keeps its form from being sent, as a
	// GET form to the page itself, whose query it would replace with
	// nothing: the page's contract, zone and theme, and an embed's link,
	// its only access (README, "Embedding"), would be gone. What was typed
	// is typed again into the app's filter (pages/typed.go).
	return app.Div().Class("filter-actions").Body(
		app.Button().ID("filter-apply").Type("submit").Class("button").Text("Apply filter"),
		app.Button().ID("filter-reset").Type("button").Class("button").Text("Show "+f.Contract).Disabled(!f.Filtered).
			OnClick(func(ctx app.Context, e app.Event) {
				f.filterErr, f.draft = nil, venueapi.LimitQuery{}
				browser.ClearValues("filter-code", "filter-pair") // as the draft is
				if f.OnReset != nil {
					f.OnReset(ctx)
				}
			}),
	)
}

// codeOptions are the contract codes the code field offers: not a
// contract-type code (BTC-USDT-CQ), which the position limits do not take as
// a contract_code; its type is the filter's contract type.
func codeOptions(contracts []venueapi.Offer) []app.UI {
	codes := make([]app.UI, 0, len(contracts))
	for _, c := range contracts {
		if !venueapi.IsTypeCode(c.Code) {
			codes = append(codes, app.Option().Value(c.Code))
		}
	}
	return codes
}

// typeChoices are the contract types the filter offers, "any" first.
func typeChoices() [][2]string {
	types := [][2]string{{"", "any"}}
	for _, t := range []venueapi.ContractType{venueapi.TypeSwap, venueapi.TypeThisWeek, venueapi.TypeNextWeek, venueapi.TypeQuarter, venueapi.TypeNextQuarter} {
		types = append(types, [2]string{string(t), string(t)})
	}
	return types
}
