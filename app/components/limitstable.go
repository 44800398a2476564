package components

import (
	"errors"
	"strconv"
	"strings"
	"time"

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
	if pe, ok := errors.AsType[*venueapi.ParamError](err); ok {
		return pe.Param
	}
	return ""
}

// pair writes a quantity in two units, one under the other in a narrow
// table; its text reads "4000 cont · 380002 USDT" all the same.
func pair(a, b string) []app.UI {
	return []app.UI{app.Span().Class("unit-a").Text(a), app.Span().Class("sep").Text(" · "), app.Span().Class("unit-b").Text(b)}
}

// LimitsTable is the account's position limits: the selected contract's
// own, or the answer to the filter form under the table.
type LimitsTable struct {
	app.Compo

	// Contract is the selected contract code.
	Contract string
	// Rows are the limits on show; State their freshness; Now the panel's
	// clock; UTC writes its times of day in UTC, as the view's zone.
	Rows  []venueapi.PositionLimit
	State fetchState
	Now   time.Time
	UTC   bool
	// Query is what the rows answer.
	Query venueapi.LimitQuery
	// Filtered says that the rows answer the filter, not the contract.
	Filtered bool
	// Contracts is the server's list, offered in the filter's code field.
	Contracts []venueapi.Offer
	// OnFilter is told a filter checked with the endpoint's own rules;
	// OnReset that the contract's own limits are wanted again.
	OnFilter func(ctx app.Context, q venueapi.LimitQuery)
	OnReset  func(ctx app.Context)
}

// Render draws the table and the filter form.
func (t *LimitsTable) Render() app.UI {
	rows, st := t.Rows, t.State
	if len(rows) == 0 && st.noAccess {
		return app.Section().ID("limits").Aria("labelledby", "limits-title").Body(
			app.H2().ID("limits-title").Text("Position limits"),
			app.P().ID("limits-noaccess").Class("muted").Text("Your position limits are not available here."))
	}
	trs := make([]app.UI, 0, len(rows)+1)
	for _, l := range rows {
		trs = append(trs, limitRow(l))
	}
	if len(rows) == 0 && !st.dataAt.IsZero() {
		trs = append(trs, app.Tr().Class("empty").Body(app.Td().ColSpan(5).Class("muted").Text("No contract matches "+describeQuery(t.Query)+".")))
	}
	return app.Section().ID("limits").Aria("labelledby", "limits-title").Body(
		app.H2().ID("limits-title").Text("Position limits"),
		app.P().ID("limits-query").Class("muted note").Text("Showing "+describeQuery(t.Query)+"."),
		stateLine("limits-state", st, limitsEvery, t.Now, t.UTC),
		limitsGrid(trs),
		&LimitFilter{Contract: t.Contract, Filtered: t.Filtered, Contracts: t.Contracts, OnFilter: t.OnFilter, OnReset: t.OnReset},
	)
}

// limitsGrid is the table of rows.
func limitsGrid(rows []app.UI) app.UI {
	return app.Div().Class("table-scroll").Body(
		app.Table().ID("limits-table").Class("grid").Body(
			app.Caption().Class("sr-only").Text("Your position limits, in contracts and in USDT"),
			limitsHeader(),
			app.TBody().Body(rows...),
		),
	)
}

// limitsHeader is the columns' headers.
func limitsHeader() app.UI {
	return app.THead().Body(app.Tr().Body(
		app.Th().Scope("col").Text("Contract"),
		app.Th().Scope("col").Class("num").Text("Long limit"),
		app.Th().Scope("col").Class("num").Text("Short limit"),
		app.Th().Scope("col").Class("num").Text("Leverage"),
		app.Th().Scope("col").Class("num").Text("Mark price (USDT)"),
	))
}

// limitRow is one contract's limits.
func limitRow(l venueapi.PositionLimit) app.UI {
	return app.Tr().DataSet("contract", l.ContractCode).Body(
		app.Th().Scope("row").Text(l.ContractCode),
		app.Td().Class("num long").DataSet("label", "Long limit").Body(pair(grouped(l.BuyLimit)+" cont", grouped(l.BuyLimitValue)+" USDT")...),
		app.Td().Class("num short").DataSet("label", "Short limit").Body(pair(grouped(l.SellLimit)+" cont", grouped(l.SellLimitValue)+" USDT")...),
		app.Td().Class("num lever").DataSet("label", "Leverage").Text(strconv.Itoa(l.LeverRate)+"×"),
		app.Td().Class("num mark").DataSet("label", "Mark price (USDT)").Text(grouped(l.MarkPrice)),
	)
}
