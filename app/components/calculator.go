package components

import (
	"errors"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

// Calculator takes a position size (in contracts or USDT) and a leverage,
// and answers with the tier, the initial and maintenance margins, the
// largest position the tiers allow at that leverage, whether the account's
// limits take it at that leverage, and an estimated liquidation price for
// an entry price and the margin put up (docs/calculator.md). Its parent
// gives it the data; it tells the parent the tier it lands in.
//
// Its figures are at the mark price, which comes with the account's
// position limits. Where those are not to be had (a page or an embed link
// without access to them, a failed fetch, or not landed yet), a typed entry
// price stands in for it, and the answer says so.
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
	// TiersErr and LimitsErr are why the last fetch of that data failed
	// while none is on show; "" when it did not.
	TiersErr, LimitsErr string
	// Unknown says the venue does not list the contract.
	Unknown bool
	// OnTier, when set, is told the tier of the position whenever it
	// changes; 0 when there is no answer.
	OnTier func(ctx app.Context, t venueapi.TierNumber)

	size, leverage string
	entry, margin  string // "" : the mark price, the initial margin
	touched        bool   // a size was typed: an empty one is then an error
	leverageTyped  bool   // else the account's own leverage is used
	unit           risk.Unit
	tier           venueapi.TierNumber // the tier last told
}

// OnInit starts with contracts at 10× (or the account's leverage), before
// the first render: the calculator has no OnMount, whose update would render
// the whole page a second time in Go's first run (docs/startup.md, "One
// render at mount"). With no size typed yet there is no tier to tell.
func (c *Calculator) OnInit() {
	c.unit, c.leverage = risk.Contracts, "10"
	c.followLeverage()
}

// OnUpdate follows the data the parent hands over.
func (c *Calculator) OnUpdate(ctx app.Context) { c.follow(ctx) }

// follow takes the account's leverage until one is typed, and tells the
// parent when the answer's tier has changed.
func (c *Calculator) follow(ctx app.Context) {
	c.followLeverage()
	c.tell(ctx)
}

// followLeverage takes the account's leverage until one is typed.
func (c *Calculator) followLeverage() {
	if l := c.Limit; l != nil && !c.leverageTyped && l.LeverRate > 0 {
		c.leverage = strconv.Itoa(l.LeverRate)
	}
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

// liquidation reads the entry price and margin (the mark price and the
// initial margin when left empty) and estimates both sides' prices.
func (c *Calculator) liquidation(res risk.Result, k risk.Contract) (entry, margin decimal.Decimal, long, short risk.Liquidation, err error) {
	entry, margin = k.MarkPrice, res.Initial
	if c.entry != "" {
		if entry, err = risk.ParseAmount("entry", c.entry); err != nil {
			return
		}
	}
	if c.margin != "" {
		if margin, err = risk.ParseAmount("margin", c.margin); err != nil {
			return
		}
	}
	long, short = risk.Liquidations(c.Ladder, res, k, entry, margin)
	return
}

// calcContract is what the calculator needs besides the typed numbers, or
// why it cannot answer: what it waits for, or what failed and is retried.
func (c *Calculator) calcContract() (risk.Contract, *venueapi.PositionLimit, error) {
	switch {
	case c.Unknown:
		return risk.Contract{}, nil, errors.New(unknownContractText(c.Contract))
	case c.LadderErr != "":
		return risk.Contract{}, nil, errors.New("the venue's tiers do not form a ladder")
	case len(c.Ladder) == 0 && c.TiersDenied:
		return risk.Contract{}, nil, errors.New("it needs the tiers, and this server gives no access to them")
	case len(c.Ladder) == 0 && c.TiersErr != "":
		return risk.Contract{}, nil, errors.New("the tiers could not be loaded (" + c.TiersErr + "); they are asked for again in a few seconds")
	case len(c.Ladder) == 0:
		return risk.Contract{}, nil, errors.New("waiting for the tiers")
	}
	var k risk.Contract
	for _, o := range c.Contracts {
		if o.Code == c.Contract {
			k.FaceValue, k.PriceDecimals = o.FaceValue, o.PriceDecimals
		}
	}
	if !k.FaceValue.IsPositive() {
		if c.Contracts == nil {
			return k, nil, errors.New("waiting for the face value of " + c.Contract)
		}
		return k, nil, errors.New("the server lists no face value for " + c.Contract)
	}
	if limit := c.Limit; limit != nil {
		k.MarkPrice = limit.MarkPrice
		return k, limit, nil
	}
	if c.entry != "" { // the typed entry price stands in for the mark price
		price, err := risk.ParseAmount("entry", c.entry)
		k.MarkPrice = price
		return k, nil, err
	}
	return k, nil, errors.New(c.limitsWanting().status)
}

// wanting is how each part of the calculator says why the account's limits,
// and the mark price they carry, are not on hand: status is why it cannot
// answer without an entry price, note heads an answer at a typed entry
// price, rows ends the long and short rows; lasting is that they are not
// merely on their way (refused, or failed).
type wanting struct {
	status, note, rows string
	lasting            bool
}

// limitsWanting is why the account's limits are not on hand, in each
// part's words.
func (c *Calculator) limitsWanting() wanting {
	switch {
	case c.LimitsDenied:
		return wanting{
			status:  "it needs a price: the mark price comes with your position limits, which this page has no access to; type an entry price to reckon at it",
			note:    "Your position limits, which carry the mark price, are not shared with this page",
			rows:    "not shared with this page",
			lasting: true,
		}
	case c.LimitsErr != "":
		return wanting{
			status:  "the mark price (your position limits) could not be loaded (" + c.LimitsErr + "); it is asked for again shortly, or type an entry price to reckon at it",
			note:    "The mark price (your position limits) could not be loaded",
			rows:    "not loaded (" + c.LimitsErr + ")",
			lasting: true,
		}
	}
	return wanting{
		status: "waiting for the mark price (your position limits)",
		note:   "Until your position limits land with the mark price",
		rows:   "not loaded yet",
	}
}

// priceWord names the price the figures are at: the mark price, or the
// typed entry price standing in for it.
func priceWord(limit *venueapi.PositionLimit) string {
	if limit == nil {
		return "entry"
	}
	return "mark"
}

// fitText says whether the position fits one side's limit at the typed
// leverage, and which limit that is: the account's or the tiers' top;
// missing is why the account's limits are not known, when they are not.
func fitText(s risk.SideLimit, lev string, accountLev int, missing string) string {
	if s.NoTier {
		return "exceeds: no tier allows " + lev + "×"
	}
	which := "your limit"
	if s.ByTiers {
		which = "the tiers' top at " + lev + "×"
	} else if accountLev > 0 && !sameLeverage(lev, accountLev) {
		which = "your limit, given at your " + strconv.Itoa(accountLev) + "×"
	}
	switch s.Fit {
	case risk.Fits:
		return "fits at " + lev + "× (limit " + grouped(s.Limit) + " cont: " + which + ")"
	case risk.Exceeds:
		return "exceeds the limit at " + lev + "× of " + grouped(s.Limit) + " cont (" + which + ")"
	}
	if s.ByTiers {
		return "unknown: your limits are " + missing + "; the tiers allow up to " + grouped(s.Limit) + " cont at " + lev + "×"
	}
	return "unknown: your limits are " + missing
}

// sameLeverage says whether the typed leverage is the account's, however it
// was written ("10", "10.0" and "1e1" alike).
func sameLeverage(typed string, account int) bool {
	l, err := risk.ParseLeverage(typed)
	return err == nil && l.Equal(decimal.NewFromInt(int64(account)))
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
		return grouped(m.Volume) + " USDT (" + grouped(m.Position.Contracts) + " cont)"
	}
	return grouped(m.Volume) + " cont (" + grouped(m.Position.USDT) + " USDT)"
}

// marginHow is the maintenance margin's formula with the numbers put in;
// price names the price it is at (priceWord).
func marginHow(res risk.Result, k risk.Contract, unit, price string) string {
	rate := rateText(res.Tier.MaintenanceMarginRate)
	rounded := ", rounded up to " + strconv.Itoa(risk.MarginPlaces) + " decimals"
	if unit == venueapi.UnitUSDT {
		return " = " + grouped(res.Position.USDT) + " USDT × " + rate + " − " + grouped(res.Amount) + " USDT (tier " +
			strconv.Itoa(int(res.Tier.Tier)) + "'s maint. amount)" + rounded
	}
	return " = (" + grouped(res.Position.Contracts) + " cont × " + rate + " − " + grouped(res.Amount) + " cont (tier " +
		strconv.Itoa(int(res.Tier.Tier)) + "'s maint. amount)) × " + grouped(k.FaceValue) + " face value × " + grouped(k.MarkPrice) + " " + price + rounded
}

// liqText is one side's estimated liquidation price.
func liqText(l risk.Liquidation, side string) string {
	switch {
	case l.None:
		return side + ": none (the margin covers a fall to zero)"
	case l.AtOnce:
		return side + ": " + grouped(l.Price) + " (at once: the margin is below the maintenance margin at the entry price)"
	}
	return side + ": " + grouped(l.Price)
}

// Render draws the fields and the answer, or why there is none yet.
func (c *Calculator) Render() app.UI {
	res, err := c.calculate()
	k, limit, whyNot := c.calcContract()
	var entry, margin decimal.Decimal
	var long, short risk.Liquidation
	if err == nil {
		entry, margin, long, short, err = c.liquidation(res, k)
	}
	fe, _ := errors.AsType[*risk.FieldError](err)
	f := calcFieldErr{fe: fe, touched: c.touched}
	var out []app.UI
	if err == nil {
		out = c.answer(res, k, limit, entry, margin, long, short)
	}
	return app.Section().ID("calculator").Aria("labelledby", "calc-title").Body(
		app.H2().ID("calc-title").Text("Calculator"),
		app.Div().Class("calc-fields").Body(
			c.sizeField(f),
			c.leverageField(f),
			// The entry price can stand in for the mark price: the tier told may change with it.
			optionalField("calc-entry", "entry", "Entry price (USDT)", c.entryPlaceholder(), c.entry, func(ctx app.Context, v string) { c.entry = v; c.tell(ctx) }, f),
			optionalField("calc-margin-in", "margin", "Margin put up (USDT)", "initial margin", c.margin, func(_ app.Context, v string) { c.margin = v }, f),
		),
		c.warning(err == nil, res),
		c.atEntry(err == nil && limit == nil),
		c.hint(whyNot),
		c.status(whyNot),
		c.said(err == nil, res),
		app.Dl().ID("calc-result").Class("calc-result").Body(out...),
	)
}

// said is the answer in brief, a live region a screen reader reads out as
// the typing changes it: the tier and whether each side fits. The answer
// itself is none: its figures are at the mark price, and read out again at
// each refresh of it (the limits', every 10 s) while nothing was typed.
func (c *Calculator) said(answered bool, res risk.Result) app.UI {
	text := ""
	if answered {
		side := func(s risk.SideLimit) string {
			switch {
			case s.NoTier:
				return "no tier allows " + c.leverage + "×"
			case s.Fit == risk.Fits:
				return "fits"
			case s.Fit == risk.Exceeds:
				return "exceeds the limit"
			}
			return "limit unknown"
		}
		text = "Tier " + strconv.Itoa(int(res.Tier.Tier)) + " at " + c.leverage + "×: long " + side(res.Long) + ", short " + side(res.Short) + "."
	}
	return app.P().ID("calc-said").Class("sr-only").Attr("role", "status").Text(text)
}

// calcFieldErr is the field the calculator's error is about, if any.
type calcFieldErr struct {
	fe      *risk.FieldError
	touched bool // an untouched size field shows no error
}

// invalid says the error is about field.
func (f calcFieldErr) invalid(field string) bool { return f.fe != nil && f.fe.Field == field }

// alert is the error under field, or nil.
func (f calcFieldErr) alert(field string) app.UI {
	if !f.invalid(field) || (field == "size" && !f.touched) {
		return nil
	}
	return app.P().ID("calc-error-"+field).Class("field-error").Attr("role", "alert").Text(f.fe.Error())
}

// answer is the result's terms and values.
func (c *Calculator) answer(res risk.Result, k risk.Contract, limit *venueapi.PositionLimit, entry, margin decimal.Decimal, long, short risk.Liquidation) []app.UI {
	accountLev := 0
	if limit != nil {
		accountLev = limit.LeverRate
	}
	item := func(id, label, value string) []app.UI {
		return []app.UI{app.Dt().Text(label), app.Dd().ID(id).Text(value)}
	}
	unit, price := c.Ladder.Unit(), priceWord(limit)
	var out []app.UI
	out = append(out, item("calc-tier", "Tier", strconv.Itoa(int(res.Tier.Tier))+" ("+bandText(c.Tiers, res.Tier)+")")...)
	out = append(out, item("calc-position", "Position", grouped(res.Position.Contracts)+" cont · "+grouped(res.Position.USDT)+" USDT at "+price+" "+grouped(k.MarkPrice))...)
	out = append(out, item("calc-tier-lever", "Tier's max lev.", res.Tier.MaxLever.String()+"×")...)
	out = append(out, c.margins(res, k, unit, price)...)
	out = append(out, item("calc-max", "Largest at "+c.leverage+"×", maxText(res.Max, unit, c.leverage))...)
	missing := c.limitsWanting().rows
	out = append(out, item("calc-fits-long", "Long", fitText(res.Long, c.leverage, accountLev, missing))...)
	out = append(out, item("calc-fits-short", "Short", fitText(res.Short, c.leverage, accountLev, missing))...)
	return append(out, liquidationRow(entry, margin, long, short)...)
}

// margins is the initial and maintenance margins, with how each is worked out.
func (c *Calculator) margins(res risk.Result, k risk.Contract, unit, price string) []app.UI {
	return []app.UI{
		app.Dt().Text("Initial margin at " + c.leverage + "×"), app.Dd().ID("calc-initial").Body(
			app.Span().Text(grouped(res.Initial)+" USDT"),
			app.Span().ID("calc-initial-how").Class("how").Text(" = "+grouped(res.Position.USDT)+" USDT ÷ "+c.leverage+", rounded up to "+strconv.Itoa(risk.MarginPlaces)+" decimals"),
		),
		app.Dt().Text("Maintenance margin"), app.Dd().ID("calc-margin").Body(
			app.Span().Text(grouped(res.Margin)+" USDT"),
			app.Span().ID("calc-margin-how").Class("how").Text(marginHow(res, k, unit, price)),
		),
	}
}

// liquidationRow is both sides' estimated liquidation prices.
func liquidationRow(entry, margin decimal.Decimal, long, short risk.Liquidation) []app.UI {
	return []app.UI{
		app.Dt().Text("Liquidation price (isolated estimate)"), app.Dd().ID("calc-liq").Body(
			app.Span().ID("calc-liq-long").Class("liq").Text(liqText(long, "Long")),
			app.Span().Class("liq-sep").Text(" · "),
			app.Span().ID("calc-liq-short").Class("liq").Text(liqText(short, "Short")),
			app.Span().ID("calc-liq-how").Class("how").Text(" at entry "+grouped(entry)+" with "+grouped(margin)+
				" USDT of margin, where margin + PnL = maintenance margin. Cross margin also counts your balance, which this server does not see."),
		),
	}
}

// sizeField is the position size and its unit.
func (c *Calculator) sizeField(f calcFieldErr) app.UI {
	return app.Div().Class("calc-field").Body(
		app.Label().For("calc-size").Text("Position size"),
		app.Div().Class("calc-size-row").Body(
			app.Input().ID("calc-size").Class("control").Attr("inputmode", "decimal").Attr("autocomplete", "off").Value(c.size).
				Aria("invalid", f.invalid("size") && c.touched).Aria("describedby", "calc-error-size").
				OnInput(func(ctx app.Context, e app.Event) {
					c.size, c.touched = ctx.JSSrc().Get("value").String(), true
					c.tell(ctx)
				}),
			app.Select().ID("calc-unit").Class("control").Aria("label", "Size unit").Body(
				option(string(risk.Contracts), "contracts", c.unit == risk.Contracts),
				// The answer names the price a USDT size is turned into contracts at.
				option(string(risk.USDT), "USDT", c.unit == risk.USDT),
			).OnChange(func(ctx app.Context, e app.Event) {
				c.unit = risk.Unit(ctx.JSSrc().Get("value").String())
				c.tell(ctx)
			}),
		),
		f.alert("size"),
		f.alert("unit"),
	)
}

// leverageField is the leverage.
func (c *Calculator) leverageField(f calcFieldErr) app.UI {
	return app.Div().Class("calc-field").Body(
		app.Label().For("calc-leverage").Text("Leverage (×)"),
		app.Input().ID("calc-leverage").Class("control").Attr("inputmode", "numeric").Attr("autocomplete", "off").Value(c.leverage).
			Aria("invalid", f.invalid("leverage")).Aria("describedby", "calc-error-leverage").
			OnInput(func(ctx app.Context, e app.Event) {
				c.leverage, c.leverageTyped = ctx.JSSrc().Get("value").String(), true
				c.tell(ctx)
			}),
		f.alert("leverage"),
	)
}

// optionalField is a price the calculator otherwise takes from elsewhere
// (placeholder says from where): the entry price, the margin put up.
func optionalField(id, field, label, placeholder, value string, set func(app.Context, string), f calcFieldErr) app.UI {
	return app.Div().Class("calc-field").Body(
		app.Label().For(id).Text(label),
		app.Input().ID(id).Class("control").Attr("inputmode", "decimal").Attr("autocomplete", "off").Value(value).
			Placeholder(placeholder).Aria("invalid", f.invalid(field)).Aria("describedby", "calc-error-"+field).
			OnInput(func(ctx app.Context, e app.Event) { set(ctx, ctx.JSSrc().Get("value").String()) }),
		f.alert(field),
	)
}

// warning says the leverage is above what the position's tier allows.
func (c *Calculator) warning(answered bool, res risk.Result) app.UI {
	if !answered || !res.LeverageTooBig {
		return nil
	}
	return app.P().ID("calc-warning").Class("field-error").Attr("role", "alert").
		Text("Leverage " + c.leverage + "× is above the " + res.Tier.MaxLever.String() + "× tier " + strconv.Itoa(int(res.Tier.Tier)) + " allows.")
}

// entryPlaceholder says what an empty entry price stands for: the mark
// price, or nothing when there is none to be had.
func (c *Calculator) entryPlaceholder() string {
	if c.Limit == nil && c.limitsWanting().lasting {
		return "required"
	}
	return "mark price"
}

// atEntry says, when shown, that the answer is at the typed entry price
// for want of the mark price, and why it is wanting.
func (c *Calculator) atEntry(shown bool) app.UI {
	if !shown {
		return nil
	}
	return app.P().ID("calc-at-entry").Class("muted").Text(c.limitsWanting().note + ": the figures are at the entry price you typed.")
}

// hint says what to type, until a size is.
func (c *Calculator) hint(whyNot error) app.UI {
	if whyNot != nil || c.touched || c.size != "" {
		return nil
	}
	return app.P().ID("calc-hint").Class("muted").Text("Enter a position size (whole contracts, or USDT) to see its tier, margins, limits and liquidation prices.")
}

// status says why the calculator cannot answer, when it cannot.
func (c *Calculator) status(whyNot error) app.UI {
	_, onField := errors.AsType[*risk.FieldError](whyNot)
	switch {
	case whyNot == nil, onField: // a field's rule is said under it
		return nil
	case c.Unknown:
		return app.P().ID("calc-status").Class("muted").Text(whyNot.Error())
	}
	return app.P().ID("calc-status").Class("muted").Text("The calculator cannot answer: " + whyNot.Error() + ".")
}
