package ui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// ownQuery is the position-limit query of one contract: a swap by its
// code; a dated future by its code, with business type futures (the
// endpoint's rule 3); a -CW/-NW/-CQ/-NQ code by its pair and contract type.
func ownQuery(code string) venueapi.LimitQuery {
	c, err := venueapi.ParseContractCode(code)
	switch {
	case err != nil:
		return venueapi.LimitQuery{ContractCode: code} // Validate names the problem
	case c.Kind == venueapi.KindTypeCode:
		return venueapi.LimitQuery{Pair: c.Pair(), ContractType: c.Type, BusinessType: venueapi.BusinessFutures}
	case c.Kind == venueapi.KindFuture:
		return venueapi.LimitQuery{ContractCode: code, BusinessType: venueapi.BusinessFutures}
	}
	return venueapi.LimitQuery{ContractCode: code}
}

// describeQuery says in words what a position-limit query asks for.
func describeQuery(q venueapi.LimitQuery) string {
	var parts []string
	if q.ContractCode != "" {
		parts = append(parts, "contract "+q.ContractCode)
	} else {
		if q.Pair != "" {
			parts = append(parts, "pair "+q.Pair)
		}
		if q.ContractType != "" {
			parts = append(parts, "contract type "+string(q.ContractType))
		}
	}
	parts = append(parts, "business type "+q.Business())
	return strings.Join(parts, " · ")
}

// precedenceNote warns that the venue ignores pair and contract type when a
// contract code is given (the endpoint's rule 2); "" when it does not apply.
func precedenceNote(q venueapi.LimitQuery) string {
	if q.ContractCode == "" || (q.Pair == "" && q.ContractType == "") {
		return ""
	}
	return "A contract code wins over pair and contract type (the venue's rule): only " + q.ContractCode + " is asked for."
}

// filterField is the form field a validation error is about.
func filterField(err error) string {
	var pe *venueapi.ParamError
	if errors.As(err, &pe) {
		return pe.Param
	}
	return ""
}

// pair writes a quantity in two units, one under the other in a narrow
// table; its text reads "4000 cont · 380002 USDT" all the same.
func pair(a, b string) []app.UI {
	return []app.UI{app.Span().Class("unit-a").Text(a), app.Span().Class("sep").Text(" · "), app.Span().Class("unit-b").Text(b)}
}

// limitsOnShow is the table's rows and their state: the filter's answer
// when one is applied, else the selected contract's own limits.
func (r *RiskPanel) limitsOnShow() ([]venueapi.PositionLimit, fetchState) {
	if r.filtered {
		return r.found, r.foundState
	}
	return r.limits, r.limitsState
}

// renderLimits is the account's position limits and the filter form.
func (r *RiskPanel) renderLimits() app.UI {
	rows, st := r.limitsOnShow()
	trs := make([]app.UI, 0, len(rows)+1)
	for _, l := range rows {
		trs = append(trs, app.Tr().DataSet("contract", l.ContractCode).Body(
			app.Th().Scope("row").Text(l.ContractCode),
			app.Td().Class("num long").DataSet("label", "Long limit").Body(pair(l.BuyLimit.String()+" cont", l.BuyLimitValue.String()+" USDT")...),
			app.Td().Class("num short").DataSet("label", "Short limit").Body(pair(l.SellLimit.String()+" cont", l.SellLimitValue.String()+" USDT")...),
			app.Td().Class("num lever").DataSet("label", "Leverage").Text(fmt.Sprint(l.LeverRate)+"×"),
			app.Td().Class("num mark").DataSet("label", "Mark price (USDT)").Text(l.MarkPrice.String()),
		))
	}
	if len(rows) == 0 && !st.dataAt.IsZero() {
		trs = append(trs, app.Tr().Class("empty").Body(app.Td().ColSpan(5).Class("muted").Text("No contract matches "+describeQuery(r.limitQuery())+".")))
	}
	return app.Section().ID("limits").Aria("labelledby", "limits-title").Body(
		app.H2().ID("limits-title").Text("Position limits"),
		app.P().ID("limits-query").Class("muted note").Text("Showing "+describeQuery(r.limitQuery())+"."),
		stateLine("limits-state", st, limitsEvery, r.now),
		app.Div().Class("table-scroll").Body(
			app.Table().ID("limits-table").Class("grid").Body(
				app.Caption().Class("sr-only").Text("Your position limits, in contracts and in USDT"),
				app.THead().Body(app.Tr().Body(
					app.Th().Scope("col").Text("Contract"),
					app.Th().Scope("col").Text("Long limit"),
					app.Th().Scope("col").Text("Short limit"),
					app.Th().Scope("col").Text("Leverage"),
					app.Th().Scope("col").Text("Mark price (USDT)"),
				)),
				app.TBody().Body(trs...),
			),
		),
		r.renderFilter(),
	)
}

// renderFilter is the form that asks for other contracts' limits; it is
// checked with the endpoint's own rules before anything is sent.
func (r *RiskPanel) renderFilter() app.UI {
	bad := filterField(r.filterErr)
	switch bad {
	case "contract_code", "pair", "contract_type", "business_type":
	default:
		bad = "" // shown under the form
	}
	errorAt := func(param string) app.UI {
		if r.filterErr == nil || bad != param {
			return nil
		}
		return app.P().ID("filter-error").Class("field-error").Attr("role", "alert").Text(r.filterErr.Error())
	}
	input := func(id, param, label, value, list string, set func(string)) app.UI {
		in := app.Input().ID(id).Class("control").Value(value).Attr("spellcheck", "false").Attr("autocapitalize", "characters").
			Aria("invalid", bad == param && r.filterErr != nil).
			OnInput(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) })
		if list != "" {
			in = in.Attr("list", list)
		}
		return app.Div().Class("filter-field").Body(app.Label().For(id).Text(label), in, errorAt(param))
	}
	choice := func(id, param, label, value string, options [][2]string, set func(string)) app.UI {
		opts := make([]app.UI, len(options))
		for i, o := range options {
			opts[i] = app.Option().Value(o[0]).Selected(o[0] == value).Text(o[1])
		}
		return app.Div().Class("filter-field").Body(
			app.Label().For(id).Text(label),
			// The choice is read by position, not by the element's value: go-app
			// drops an empty value attribute, and an option without one has
			// its text for value ("any" for the empty contract type).
			app.Select().ID(id).Class("control").Aria("invalid", bad == param && r.filterErr != nil).Body(opts...).
				OnChange(func(ctx app.Context, e app.Event) {
					if i := ctx.JSSrc().Get("selectedIndex").Int(); i >= 0 && i < len(options) {
						set(options[i][0])
					}
				}),
			errorAt(param),
		)
	}
	codes := make([]app.UI, len(r.contracts))
	for i, c := range r.contracts {
		codes[i] = app.Option().Value(c.Code)
	}
	types := [][2]string{{"", "any"}}
	for _, t := range []venueapi.ContractType{venueapi.TypeSwap, venueapi.TypeThisWeek, venueapi.TypeNextWeek, venueapi.TypeQuarter, venueapi.TypeNextQuarter} {
		types = append(types, [2]string{string(t), string(t)})
	}
	business := [][2]string{{"", "default (swap)"}, {venueapi.BusinessSwap, "swap"}, {venueapi.BusinessFutures, "futures"}, {venueapi.BusinessAll, "all"}}
	d := r.draft
	note := precedenceNote(d)
	return app.Form().ID("limit-filter").Class("filter").Aria("label", "Filter position limits").OnSubmit(func(ctx app.Context, e app.Event) {
		e.PreventDefault()
		if err := r.draft.Validate(); err != nil {
			r.filterErr = err
			return
		}
		r.filterErr, r.filtered, r.filter = nil, true, r.draft
		r.found, r.foundState = nil, fetchState{}
		r.load(ctx, false, true)
	}).Body(
		input("filter-code", "contract_code", "Contract code", d.ContractCode, "filter-codes", func(s string) { r.draft.ContractCode = strings.TrimSpace(s) }),
		app.DataList().ID("filter-codes").Body(codes...),
		input("filter-pair", "pair", "Pair", d.Pair, "", func(s string) { r.draft.Pair = strings.TrimSpace(s) }),
		choice("filter-type", "contract_type", "Contract type", string(d.ContractType), types, func(s string) { r.draft.ContractType = venueapi.ContractType(s) }),
		choice("filter-business", "business_type", "Business type", d.BusinessType, business, func(s string) { r.draft.BusinessType = s }),
		app.If(note != "", func() app.UI { return app.P().ID("filter-note").Class("muted note").Text(note) }),
		errorAt(""),
		app.Div().Class("filter-actions").Body(
			app.Button().ID("filter-apply").Type("submit").Class("button").Text("Apply filter"),
			app.Button().ID("filter-reset").Type("button").Class("button").Text("Show "+r.Contract).Disabled(!r.filtered).
				OnClick(func(ctx app.Context, e app.Event) {
					r.filtered, r.filterErr, r.draft = false, nil, venueapi.LimitQuery{}
					// go-app drops an empty value (it removes the attribute,
					// which leaves what was typed on screen): the fields are
					// emptied here, as the draft is.
					for _, id := range []string{"filter-code", "filter-pair"} {
						if f := app.Window().GetElementByID(id); f.Truthy() {
							f.Set("value", "")
						}
					}
				}),
		),
	)
}
