package ui

import (
	"errors"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

// ownLimit is the account's limit record of the selected contract: its mark
// price is the one the venue uses, and its limits are the account's.
func (r *RiskPanel) ownLimit() *venueapi.PositionLimit {
	for i := range r.limits {
		if r.limits[i].ContractCode == r.Contract {
			return &r.limits[i]
		}
	}
	return nil
}

// calculate runs the calculator on the typed size and leverage: first the
// fields' own rules, then what it waits for, then the arithmetic.
func (r *RiskPanel) calculate() (risk.Result, error) {
	size, err := risk.ParseAmount("size", r.size)
	if err != nil {
		return risk.Result{}, err
	}
	lev, err := risk.ParseLeverage(r.leverage)
	if err != nil {
		return risk.Result{}, err
	}
	c, limit, err := r.calcContract()
	if err != nil {
		return risk.Result{}, err
	}
	return risk.Calculate(r.ladder, limit, c, size, r.unit, lev)
}

// calcContract is what the calculator needs besides the typed numbers, or
// why it cannot answer yet.
func (r *RiskPanel) calcContract() (risk.Contract, *venueapi.PositionLimit, error) {
	switch {
	case r.ladderErr != "":
		return risk.Contract{}, nil, errors.New("the venue's tiers do not form a ladder")
	case len(r.ladder) == 0 && r.tiersState.noAccess:
		return risk.Contract{}, nil, errors.New("it needs the tiers, and this server gives no access to them")
	case len(r.ladder) == 0:
		return risk.Contract{}, nil, errors.New("waiting for the tiers")
	}
	var c risk.Contract
	for _, k := range r.contracts {
		if k.Code == r.Contract {
			c.FaceValue = k.FaceValue
		}
	}
	if !c.FaceValue.IsPositive() {
		if r.contracts == nil {
			return c, nil, errors.New("waiting for the face value of " + r.Contract)
		}
		return c, nil, errors.New("the server lists no face value for " + r.Contract)
	}
	limit := r.ownLimit()
	switch {
	case limit != nil:
		c.MarkPrice = limit.MarkPrice
		return c, limit, nil
	case r.limitsState.noAccess:
		return c, nil, errors.New("it needs the mark price from your position limits, and this server gives no access to them")
	}
	return c, nil, errors.New("waiting for the mark price (your position limits)")
}

// fitText says whether the position fits one side of the account's limits.
func fitText(f risk.Fit, limit, value string) string {
	switch f {
	case risk.Fits:
		return "fits (limit " + limit + " cont · " + value + " USDT)"
	case risk.Exceeds:
		return "exceeds the limit of " + limit + " cont · " + value + " USDT"
	}
	return "unknown"
}

// maxText is the largest position the tiers allow at a leverage, in the
// ladder's unit first, exact, then converted.
func maxText(m risk.Max, unit, lev string) string {
	switch {
	case !m.Allowed:
		return "none: no tier allows " + lev + "×"
	case m.Unbounded:
		return "no top: the last tier allows " + lev + "× and is open-ended"
	case unit == venueapi.UnitUSDT:
		return m.Volume.String() + " USDT (" + m.Position.Contracts.String() + " cont)"
	}
	return m.Volume.String() + " cont (" + m.Position.USDT.String() + " USDT)"
}

// renderCalculator is the calculator: a size in contracts or USDT and a
// leverage in, the tier, margin, largest position and limits' verdict out.
func (r *RiskPanel) renderCalculator() app.UI {
	res, err := r.calculate()
	_, _, whyNot := r.calcContract()
	var fe *risk.FieldError
	isField := errors.As(err, &fe)
	fieldErr := func(field string) app.UI {
		if !isField || fe.Field != field || (field == "size" && !r.touched) {
			return nil
		}
		return app.P().ID("calc-error-"+field).Class("field-error").Attr("role", "alert").Text(fe.Error())
	}
	var out []app.UI
	if err == nil {
		c, limit, _ := r.calcContract()
		long, short := "unknown", "unknown"
		if limit != nil {
			long = fitText(res.Long, limit.BuyLimit.String(), limit.BuyLimitValue.String())
			short = fitText(res.Short, limit.SellLimit.String(), limit.SellLimitValue.String())
		}
		item := func(id, label, value string) []app.UI {
			return []app.UI{app.Dt().Text(label), app.Dd().ID(id).Text(value)}
		}
		out = append(out, item("calc-tier", "Tier", strconv.Itoa(int(res.Tier.Tier))+" ("+bandText(r.tiers, res.Tier)+")")...)
		out = append(out, item("calc-position", "Position", res.Position.Contracts.String()+" cont · "+res.Position.USDT.String()+" USDT at mark "+c.MarkPrice.String())...)
		out = append(out, item("calc-tier-lever", "Tier's max lev.", res.Tier.MaxLever.String()+"×")...)
		out = append(out, app.Dt().Text("Maintenance margin"), app.Dd().ID("calc-margin").Body(
			app.Span().Text(res.Margin.String()+" USDT"),
			app.Span().ID("calc-margin-how").Class("how").Text(" = "+res.Position.Contracts.String()+" cont × "+c.MarkPrice.String()+
				" mark × "+c.FaceValue.String()+" face value × "+rateText(res.Tier.MaintenanceMarginRate)),
		))
		out = append(out, item("calc-max", "Largest at "+r.leverage+"×", maxText(res.Max, r.ladder.Unit(), r.leverage))...)
		out = append(out, item("calc-fits-long", "Long", long)...)
		out = append(out, item("calc-fits-short", "Short", short)...)
	}
	return app.Section().ID("calculator").Aria("labelledby", "calc-title").Body(
		app.H2().ID("calc-title").Text("Calculator"),
		app.Div().Class("calc-fields").Body(
			app.Div().Class("calc-field").Body(
				app.Label().For("calc-size").Text("Position size"),
				app.Div().Class("calc-size-row").Body(
					app.Input().ID("calc-size").Class("control").Attr("inputmode", "decimal").Attr("autocomplete", "off").Value(r.size).
						Aria("invalid", isField && fe.Field == "size" && r.touched).Aria("describedby", "calc-error-size").
						OnInput(func(ctx app.Context, e app.Event) { r.size, r.touched = ctx.JSSrc().Get("value").String(), true }),
					app.Select().ID("calc-unit").Class("control").Aria("label", "Size unit").Body(
						app.Option().Value(string(risk.Contracts)).Selected(r.unit == risk.Contracts).Text("contracts"),
						app.Option().Value(string(risk.USDT)).Selected(r.unit == risk.USDT).Text("USDT at mark"),
					).OnChange(func(ctx app.Context, e app.Event) { r.unit = risk.Unit(ctx.JSSrc().Get("value").String()) }),
				),
				fieldErr("size"),
				fieldErr("unit"),
			),
			app.Div().Class("calc-field").Body(
				app.Label().For("calc-leverage").Text("Leverage (×)"),
				app.Input().ID("calc-leverage").Class("control").Attr("inputmode", "numeric").Attr("autocomplete", "off").Value(r.leverage).
					Aria("invalid", isField && fe.Field == "leverage").Aria("describedby", "calc-error-leverage").
					OnInput(func(ctx app.Context, e app.Event) {
						r.leverage, r.leverageTyped = ctx.JSSrc().Get("value").String(), true
					}),
				fieldErr("leverage"),
			),
		),
		app.If(err == nil && res.LeverageTooBig, func() app.UI {
			return app.P().ID("calc-warning").Class("field-error").Attr("role", "alert").
				Text("Leverage " + r.leverage + "× is above the " + res.Tier.MaxLever.String() + "× tier " + strconv.Itoa(int(res.Tier.Tier)) + " allows.")
		}),
		app.If(whyNot == nil && !r.touched && r.size == "", func() app.UI {
			return app.P().ID("calc-hint").Class("muted").Text("Enter a position size to see its tier, margin and limits.")
		}),
		app.If(whyNot != nil, func() app.UI {
			return app.P().ID("calc-status").Class("muted").Text("The calculator cannot answer yet: " + whyNot.Error() + ".")
		}),
		app.Dl().ID("calc-result").Class("calc-result").Aria("live", "polite").Body(out...),
	)
}
