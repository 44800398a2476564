package components

import (
	"errors"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

// Calculator takes a position size (in contracts or USDT) and a leverage,
// and answers with the tier, the maintenance margin, the largest position
// the tiers allow and whether the account's limits take it. Its parent
// gives it the data; it tells the parent the tier it lands in.
type Calculator struct {
	app.Compo

	// Contract is the contract code the calculator prices.
	Contract string
	// Tiers are the venue's tiers; Ladder the same, checked and ordered (nil
	// when they are not a ladder, LadderErr says why).
	Tiers     []venueapi.Tier
	Ladder    risk.Ladder
	LadderErr string
	// Contracts is the server's list, for face values; nil until it lands.
	Contracts []venueapi.Offer
	// Limit is the account's limit record of the contract: its mark price
	// and limits; nil until it lands.
	Limit *venueapi.PositionLimit
	// TiersDenied and LimitsDenied say that the server refuses that data.
	TiersDenied, LimitsDenied bool
	// OnTier, when set, is told the tier of the position whenever it
	// changes; 0 when there is no answer.
	OnTier func(ctx app.Context, t venueapi.TierNumber)

	size, leverage string
	touched        bool // a size was typed: an empty one is then an error
	leverageTyped  bool // else the account's own leverage is used
	unit           risk.Unit
	tier           venueapi.TierNumber // the tier last told
}

// OnMount starts with contracts at 10× (or the account's leverage).
func (c *Calculator) OnMount(ctx app.Context) {
	c.unit, c.leverage = risk.Contracts, "10"
	c.follow(ctx)
}

// OnUpdate follows the data the parent hands over.
func (c *Calculator) OnUpdate(ctx app.Context) { c.follow(ctx) }

// follow takes the account's leverage until one is typed, and tells the
// parent when the answer's tier has changed.
func (c *Calculator) follow(ctx app.Context) {
	if l := c.Limit; l != nil && !c.leverageTyped && l.LeverRate > 0 {
		c.leverage = strconv.Itoa(l.LeverRate)
	}
	c.tell(ctx)
}

// tell reports the tier to the parent when it differs from the last told;
// on the next turn, as the parent may be drawing.
func (c *Calculator) tell(ctx app.Context) {
	t := venueapi.TierNumber(0)
	if res, err := c.calculate(); err == nil {
		t = res.Tier.Tier
	}
	if t == c.tier || c.OnTier == nil {
		return
	}
	c.tier = t
	ctx.Dispatch(func(ctx app.Context) { c.OnTier(ctx, t) })
}

// calculate runs the calculator on the typed size and leverage: first the
// fields' own rules, then what it waits for, then the arithmetic.
func (c *Calculator) calculate() (risk.Result, error) {
	size, err := risk.ParseAmount("size", c.size)
	if err != nil {
		return risk.Result{}, err
	}
	lev, err := risk.ParseLeverage(c.leverage)
	if err != nil {
		return risk.Result{}, err
	}
	k, limit, err := c.calcContract()
	if err != nil {
		return risk.Result{}, err
	}
	return risk.Calculate(c.Ladder, limit, k, size, c.unit, lev)
}

// calcContract is what the calculator needs besides the typed numbers, or
// why it cannot answer yet.
func (c *Calculator) calcContract() (risk.Contract, *venueapi.PositionLimit, error) {
	switch {
	case c.LadderErr != "":
		return risk.Contract{}, nil, errors.New("the venue's tiers do not form a ladder")
	case len(c.Ladder) == 0 && c.TiersDenied:
		return risk.Contract{}, nil, errors.New("it needs the tiers, and this server gives no access to them")
	case len(c.Ladder) == 0:
		return risk.Contract{}, nil, errors.New("waiting for the tiers")
	}
	var k risk.Contract
	for _, o := range c.Contracts {
		if o.Code == c.Contract {
			k.FaceValue = o.FaceValue
		}
	}
	if !k.FaceValue.IsPositive() {
		if c.Contracts == nil {
			return k, nil, errors.New("waiting for the face value of " + c.Contract)
		}
		return k, nil, errors.New("the server lists no face value for " + c.Contract)
	}
	limit := c.Limit
	switch {
	case limit != nil:
		k.MarkPrice = limit.MarkPrice
		return k, limit, nil
	case c.LimitsDenied:
		return k, nil, errors.New("it needs the mark price from your position limits, and this server gives no access to them")
	}
	return k, nil, errors.New("waiting for the mark price (your position limits)")
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

// Render draws the fields and the answer, or why there is none yet.
func (c *Calculator) Render() app.UI {
	res, err := c.calculate()
	k, limit, whyNot := c.calcContract()
	var fe *risk.FieldError
	isField := errors.As(err, &fe)
	fieldErr := func(field string) app.UI {
		if !isField || fe.Field != field || (field == "size" && !c.touched) {
			return nil
		}
		return app.P().ID("calc-error-"+field).Class("field-error").Attr("role", "alert").Text(fe.Error())
	}
	var out []app.UI
	if err == nil {
		long, short := "unknown", "unknown"
		if limit != nil {
			long = fitText(res.Long, limit.BuyLimit.String(), limit.BuyLimitValue.String())
			short = fitText(res.Short, limit.SellLimit.String(), limit.SellLimitValue.String())
		}
		item := func(id, label, value string) []app.UI {
			return []app.UI{app.Dt().Text(label), app.Dd().ID(id).Text(value)}
		}
		out = append(out, item("calc-tier", "Tier", strconv.Itoa(int(res.Tier.Tier))+" ("+bandText(c.Tiers, res.Tier)+")")...)
		out = append(out, item("calc-position", "Position", res.Position.Contracts.String()+" cont · "+res.Position.USDT.String()+" USDT at mark "+k.MarkPrice.String())...)
		out = append(out, item("calc-tier-lever", "Tier's max lev.", res.Tier.MaxLever.String()+"×")...)
		out = append(out, app.Dt().Text("Maintenance margin"), app.Dd().ID("calc-margin").Body(
			app.Span().Text(res.Margin.String()+" USDT"),
			app.Span().ID("calc-margin-how").Class("how").Text(" = "+res.Position.Contracts.String()+" cont × "+k.MarkPrice.String()+
				" mark × "+k.FaceValue.String()+" face value × "+rateText(res.Tier.MaintenanceMarginRate)),
		))
		out = append(out, item("calc-max", "Largest at "+c.leverage+"×", maxText(res.Max, c.Ladder.Unit(), c.leverage))...)
		out = append(out, item("calc-fits-long", "Long", long)...)
		out = append(out, item("calc-fits-short", "Short", short)...)
	}
	return app.Section().ID("calculator").Aria("labelledby", "calc-title").Body(
		app.H2().ID("calc-title").Text("Calculator"),
		app.Div().Class("calc-fields").Body(
			app.Div().Class("calc-field").Body(
				app.Label().For("calc-size").Text("Position size"),
				app.Div().Class("calc-size-row").Body(
					app.Input().ID("calc-size").Class("control").Attr("inputmode", "decimal").Attr("autocomplete", "off").Value(c.size).
						Aria("invalid", isField && fe.Field == "size" && c.touched).Aria("describedby", "calc-error-size").
						OnInput(func(ctx app.Context, e app.Event) {
							c.size, c.touched = ctx.JSSrc().Get("value").String(), true
							c.tell(ctx)
						}),
					app.Select().ID("calc-unit").Class("control").Aria("label", "Size unit").Body(
						app.Option().Value(string(risk.Contracts)).Selected(c.unit == risk.Contracts).Text("contracts"),
						app.Option().Value(string(risk.USDT)).Selected(c.unit == risk.USDT).Text("USDT at mark"),
					).OnChange(func(ctx app.Context, e app.Event) {
						c.unit = risk.Unit(ctx.JSSrc().Get("value").String())
						c.tell(ctx)
					}),
				),
				fieldErr("size"),
				fieldErr("unit"),
			),
			app.Div().Class("calc-field").Body(
				app.Label().For("calc-leverage").Text("Leverage (×)"),
				app.Input().ID("calc-leverage").Class("control").Attr("inputmode", "numeric").Attr("autocomplete", "off").Value(c.leverage).
					Aria("invalid", isField && fe.Field == "leverage").Aria("describedby", "calc-error-leverage").
					OnInput(func(ctx app.Context, e app.Event) {
						c.leverage, c.leverageTyped = ctx.JSSrc().Get("value").String(), true
						c.tell(ctx)
					}),
				fieldErr("leverage"),
			),
		),
		app.If(err == nil && res.LeverageTooBig, func() app.UI {
			return app.P().ID("calc-warning").Class("field-error").Attr("role", "alert").
				Text("Leverage " + c.leverage + "× is above the " + res.Tier.MaxLever.String() + "× tier " + strconv.Itoa(int(res.Tier.Tier)) + " allows.")
		}),
		app.If(whyNot == nil && !c.touched && c.size == "", func() app.UI {
			return app.P().ID("calc-hint").Class("muted").Text("Enter a position size to see its tier, margin and limits.")
		}),
		app.If(whyNot != nil, func() app.UI {
			return app.P().ID("calc-status").Class("muted").Text("The calculator cannot answer yet: " + whyNot.Error() + ".")
		}),
		app.Dl().ID("calc-result").Class("calc-result").Aria("live", "polite").Body(out...),
	)
}
