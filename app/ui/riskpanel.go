package ui

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

// Refresh pace of the private data: tiers change rarely, limits follow the
// mark price.
const (
	tiersEvery  = time.Minute
	limitsEvery = 10 * time.Second
)

// RiskPanel shows a contract's risk-limit tiers, the account's position
// limits and the calculator that joins them. Every number is an exact
// decimal from the wire to the screen.
type RiskPanel struct {
	app.Compo

	// Contract is the contract code the panels show.
	Contract string
	// Show is "tiers", "limits" or "" for both and the calculator.
	Show string
	// Embedded marks a panel inside another site's iframe; EmbedToken is its
	// signed embed link (empty: none), the only access it has.
	Embedded   bool
	EmbedToken string
	// OnLoaded, when set, is told each time the data of a shown panel lands:
	// err is nil, errNoAccess when the server refused it, or what failed.
	OnLoaded func(ctx app.Context, err error)

	shown     string
	contracts []Contract

	tiers      []venueapi.Tier
	tiersState fetchState
	sortBy     string // column of the tier table
	sortDesc   bool

	limits      []venueapi.PositionLimit
	limitsState fetchState
	filter      venueapi.LimitQuery // the limits form; empty: the selected contract
	filterErr   string

	offlineAt time.Time // when the tiers and limits on show were saved, when offline

	size, leverage string
	touched        bool // the user has typed a size: an empty one is then an error
	unit           risk.Unit
	live           bool
}

// fetchState is what a panel shows of its last fetch: when, and how it went.
type fetchState struct {
	at       time.Time
	err      string
	stale    bool
	noAccess bool // the server refused the private data
}

// done records a fetch's outcome; have says whether older data is on show.
func (f *fetchState) done(err error, stale, have bool) {
	f.at = time.Now()
	f.noAccess = errors.Is(err, errNoAccess)
	if err != nil {
		f.err, f.stale = "Refresh failed: "+err.Error(), have
		return
	}
	f.err, f.stale = "", stale
}

// OnMount loads the data and starts refreshing it.
func (r *RiskPanel) OnMount(ctx app.Context) {
	r.unit, r.leverage, r.sortBy = risk.Contracts, "10", "tier"
	r.load(ctx, true, true)
	r.live = true
	ctx.Async(func() {
		list, err := fetchContracts(ctx)
		if err == nil {
			ctx.Dispatch(func(ctx app.Context) { r.contracts = list })
		}
	})
	ctx.Async(func() {
		for r.live {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			ctx.Dispatch(func(ctx app.Context) {
				now := time.Now()
				r.load(ctx, now.Sub(r.tiersState.at) >= tiersEvery, now.Sub(r.limitsState.at) >= limitsEvery)
			})
		}
	})
}

// OnDismount stops the refresh.
func (r *RiskPanel) OnDismount() { r.live = false }

// OnUpdate follows the page's contract.
func (r *RiskPanel) OnUpdate(ctx app.Context) {
	if r.shown != r.Contract {
		r.tiers, r.limits, r.tiersState.err, r.limitsState.err = nil, nil, "", ""
		r.load(ctx, true, true)
	}
}

func (r *RiskPanel) isSwap() bool {
	c, err := venueapi.ParseContractCode(r.Contract)
	return err == nil && c.Kind == venueapi.KindSwap
}

// load fetches tiers and/or limits; results land through Dispatch.
func (r *RiskPanel) load(ctx app.Context, tiers, limits bool) {
	r.shown = r.Contract
	code := r.Contract
	if tiers && r.isSwap() && r.Show != "limits" {
		r.tiersState.at = time.Now() // no second fetch while this one runs
		ctx.Async(func() {
			env, err := fetchTiers(ctx, code, headersOf(r.Embedded, r.EmbedToken))
			ctx.Dispatch(func(ctx app.Context) {
				if code != r.Contract {
					return
				}
				r.landed(ctx, &r.tiersState, err, err == nil && env.Stale, len(r.tiers) > 0, func() { r.tiers = env.Data })
			})
		})
	}
	if limits {
		r.limitsState.at = time.Now()
		q := r.limitQuery()
		ctx.Async(func() {
			env, err := fetchLimits(ctx, q, headersOf(r.Embedded, r.EmbedToken))
			ctx.Dispatch(func(ctx app.Context) {
				if code != r.Contract || q != r.limitQuery() {
					return
				}
				r.landed(ctx, &r.limitsState, err, err == nil && env.Stale, len(r.limits) > 0, func() { r.limits = env.Data })
			})
		})
	}
}

// landed applies a fetch's outcome: keep its data (set) and save it, or
// fall back to what browser storage holds when the server gave no answer.
func (r *RiskPanel) landed(ctx app.Context, st *fetchState, err error, stale, have bool, set func()) {
	st.done(err, stale, have)
	if r.OnLoaded != nil && (r.Show == "" || (r.Show == "tiers") == (st == &r.tiersState)) {
		defer r.OnLoaded(ctx, err)
	}
	if err != nil {
		r.fromStorage(ctx, err)
		return
	}
	set()
	r.offlineAt = time.Time{}
	r.save(ctx)
}

// denied reports whether the server refused the data of a panel on show.
func (r *RiskPanel) denied() bool {
	return r.tiersState.noAccess && r.Show != "limits" || r.limitsState.noAccess && r.Show != "tiers"
}

// savedRisk is the last tiers and limits seen for a contract, kept in
// browser storage (offline.go) for when the server cannot be reached.
type savedRisk struct {
	Tiers  []venueapi.Tier          `json:"tiers"`
	Limits []venueapi.PositionLimit `json:"limits"`
}

func (r *RiskPanel) storageKey() string { return "riskchart/risk/" + r.Contract }

func (r *RiskPanel) save(ctx app.Context) {
	if r.filter == (venueapi.LimitQuery{}) && (len(r.tiers) > 0 || len(r.limits) > 0) {
		keepLastSeen(ctx.LocalStorage(), r.storageKey(), savedRisk{Tiers: r.tiers, Limits: r.limits}, time.Now())
	}
}

// fromStorage shows the last data seen when the server gave no answer.
func (r *RiskPanel) fromStorage(ctx app.Context, err error) {
	var netErr *networkError
	if !errors.As(err, &netErr) {
		return
	}
	saved, at, ok := readLastSeen[savedRisk](ctx.LocalStorage(), r.storageKey())
	if !ok {
		return
	}
	if len(r.tiers) == 0 {
		r.tiers = saved.Tiers
	}
	if len(r.limits) == 0 {
		r.limits = saved.Limits
	}
	r.offlineAt = at
}

// limitQuery is the form's filter, or the selected contract (a future needs
// business type futures).
func (r *RiskPanel) limitQuery() venueapi.LimitQuery {
	if r.filter != (venueapi.LimitQuery{}) {
		return r.filter
	}
	q := venueapi.LimitQuery{ContractCode: r.Contract}
	if c, err := venueapi.ParseContractCode(r.Contract); err == nil && c.Kind != venueapi.KindSwap {
		q.BusinessType = venueapi.BusinessFutures
	}
	if c, err := venueapi.ParseContractCode(r.Contract); err == nil && c.Kind == venueapi.KindTypeCode {
		q = venueapi.LimitQuery{Pair: c.Pair(), ContractType: c.Type, BusinessType: venueapi.BusinessFutures}
	}
	return q
}

// contract is what the calculator knows of the selected contract.
func (r *RiskPanel) contract() (risk.Contract, *venueapi.PositionLimit) {
	var c risk.Contract
	for _, k := range r.contracts {
		if k.Code == r.Contract {
			c.FaceValue = k.FaceValue
		}
	}
	for i := range r.limits {
		if r.limits[i].ContractCode == r.Contract || len(r.limits) == 1 {
			c.MarkPrice = r.limits[i].MarkPrice
			return c, &r.limits[i]
		}
	}
	return c, nil
}

func age(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return "as of " + t.Format("15:04:05") + fmt.Sprintf(" (%ds ago)", int(time.Since(t).Seconds()))
}

// Render draws the panels.
func (r *RiskPanel) Render() app.UI {
	body := []app.UI{}
	if !r.offlineAt.IsZero() {
		body = append(body, app.P().ID("risk-offline").Class("notice").Attr("role", "status").
			Text("Offline, as of "+r.offlineAt.Format("2006-01-02 15:04:05")+": the last tiers and limits seen."))
	}
	if r.denied() {
		body = append(body, app.P().ID("risk-noaccess").Class("notice").Attr("role", "status").
			Text(r.noAccessText()))
	}
	if r.Show != "limits" {
		body = append(body, r.renderTiers())
	}
	if r.Show != "tiers" {
		body = append(body, r.renderLimits())
	}
	if r.Show == "" || r.Show == "tiers" {
		body = append(body, r.renderCalculator())
	}
	return app.Aside().Class("risk").Aria("label", "Risk limits of "+r.Contract).Body(body...)
}

func (r *RiskPanel) renderTiers() app.UI {
	head := app.H2().Text("Risk-limit tiers")
	if !r.isSwap() {
		return app.Section().ID("tiers").Body(head, app.P().Class("muted").Text("The venue publishes risk-limit tiers for swaps; "+r.Contract+" is not one."))
	}
	rows := append([]venueapi.Tier(nil), r.tiers...)
	key := func(t venueapi.Tier) decimal.Decimal {
		switch r.sortBy {
		case "lever":
			return t.MaxLever
		case "rate":
			return t.MaintenanceMarginRate
		case "band":
			return t.MaxVolume
		}
		return decimal.NewFromInt(int64(t.Tier))
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if r.sortDesc {
			return key(rows[j]).LessThan(key(rows[i]))
		}
		return key(rows[i]).LessThan(key(rows[j]))
	})
	current := -1
	if res, err := r.calculate(); err == nil {
		current = int(res.Tier.Tier)
	}
	th := func(col, label string) app.UI {
		sortState := "none"
		if r.sortBy == col {
			sortState = map[bool]string{false: "ascending", true: "descending"}[r.sortDesc]
		}
		return app.Th().Scope("col").Aria("sort", sortState).Body(
			app.Button().Class("sort").DataSet("sort", col).Text(label).OnClick(func(ctx app.Context, e app.Event) {
				if r.sortBy == col {
					r.sortDesc = !r.sortDesc
				} else {
					r.sortBy, r.sortDesc = col, false
				}
			}))
	}
	trs := make([]app.UI, 0, len(rows))
	for _, t := range rows {
		unit := "cont"
		if t.VolumeUnit == venueapi.UnitUSDT {
			unit = "USDT"
		}
		tr := app.Tr().DataSet("tier", int(t.Tier)).Body(
			app.Td().Class("num").Text(int(t.Tier)),
			app.Td().Class("num band").Text(t.MinVolume.String()+" – "+t.MaxVolume.String()+" "+unit),
			app.Td().Class("num lever").Text(t.MaxLever.String()+"×"),
			app.Td().Class("num rate").Text(t.MaintenanceMarginRate.Mul(decimal.NewFromInt(100)).String()+"%"),
		)
		if int(t.Tier) == current {
			tr = tr.Class("current").Aria("current", "true")
		}
		trs = append(trs, tr)
	}
	return app.Section().ID("tiers").Body(
		head,
		r.dataState(r.tiersState, len(r.tiers) > 0),
		app.Table().ID("tier-table").Class("grid").Body(
			app.Caption().Class("sr-only").Text("Risk-limit tiers of "+r.Contract),
			app.THead().Body(app.Tr().Body(th("tier", "Tier"), th("band", "Position band"), th("lever", "Max leverage"), th("rate", "Maint. margin"))),
			app.TBody().Body(trs...),
		),
	)
}

func (r *RiskPanel) dataState(st fetchState, have bool) app.UI {
	at, errMsg, stale := st.at, st.err, st.stale
	return app.Div().Class("data-state").Attr("role", "status").Body(
		app.Span().Class("age").Text(age(at)),
		app.If(stale, func() app.UI { return app.Span().Class("badge warn").Text("stale") }),
		app.If(errMsg != "" && !st.noAccess, func() app.UI { return app.Span().Class("field-error").Text(errMsg) }),
		app.If(!have && errMsg == "" && !st.noAccess, func() app.UI { return app.Span().Class("muted").Text("Loading…") }),
	)
}

func (r *RiskPanel) renderLimits() app.UI {
	trs := []app.UI{}
	for _, l := range r.limits {
		trs = append(trs, app.Tr().DataSet("contract", l.ContractCode).Body(
			app.Th().Scope("row").Text(l.ContractCode),
			app.Td().Class("num long").Text(l.BuyLimit.String()+" cont · "+l.BuyLimitValue.String()+" USDT"),
			app.Td().Class("num short").Text(l.SellLimit.String()+" cont · "+l.SellLimitValue.String()+" USDT"),
			app.Td().Class("num lever").Text(fmt.Sprint(l.LeverRate)+"×"),
			app.Td().Class("num mark").Text(l.MarkPrice.String()),
		))
	}
	field := func(id, label, value string, set func(string)) app.UI {
		return app.Label().For(id).Body(app.Span().Text(label), app.Input().ID(id).Class("control").Value(value).
			OnInput(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) }))
	}
	var f venueapi.LimitQuery = r.filter
	return app.Section().ID("limits").Body(
		app.H2().Text("Position limits"),
		r.dataState(r.limitsState, len(r.limits) > 0),
		app.Table().ID("limits-table").Class("grid").Body(
			app.Caption().Class("sr-only").Text("Your position limits"),
			app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Contract"), app.Th().Scope("col").Text("Long"),
				app.Th().Scope("col").Text("Short"), app.Th().Scope("col").Text("Leverage"), app.Th().Scope("col").Text("Mark price"))),
			app.TBody().Body(trs...),
		),
		app.Form().ID("limit-filter").Class("filter").OnSubmit(func(ctx app.Context, e app.Event) {
			e.PreventDefault()
			if err := r.filter.Validate(); err != nil {
				r.filterErr = err.Error()
				return
			}
			r.filterErr = ""
			r.limits = nil
			r.load(ctx, false, true)
		}).Body(
			field("filter-code", "Contract", f.ContractCode, func(s string) { r.filter.ContractCode = s }),
			field("filter-pair", "Pair", f.Pair, func(s string) { r.filter.Pair = s }),
			field("filter-type", "Type", string(f.ContractType), func(s string) { r.filter.ContractType = venueapi.ContractType(s) }),
			field("filter-business", "Business", f.BusinessType, func(s string) { r.filter.BusinessType = s }),
			app.Button().Type("submit").Class("button").Text("Filter"),
			app.If(r.filterErr != "", func() app.UI {
				return app.P().ID("filter-error").Class("field-error").Attr("role", "alert").Text(r.filterErr)
			}),
		),
		app.Button().ID("risk-refresh").Class("button").Text("Refresh now").OnClick(func(ctx app.Context, e app.Event) { r.load(ctx, true, true) }),
	)
}

// calculate runs the calculator on the current inputs.
func (r *RiskPanel) calculate() (risk.Result, error) {
	size, err := risk.ParseAmount("size", r.size)
	if err != nil {
		return risk.Result{}, err
	}
	lev, err := risk.ParseLeverage(r.leverage)
	if err != nil {
		return risk.Result{}, err
	}
	c, limits := r.contract()
	if len(r.tiers) == 0 || !c.FaceValue.IsPositive() || !c.MarkPrice.IsPositive() {
		return risk.Result{}, errors.New("waiting for tiers, face value and mark price")
	}
	return risk.Calculate(r.tiers, limits, c, size, r.unit, lev)
}

func (r *RiskPanel) renderCalculator() app.UI {
	res, err := r.calculate()
	var fe *risk.FieldError
	fieldErr := func(field string) app.UI {
		if errors.As(err, &fe) && fe.Field == field && r.touched {
			return app.Span().ID("calc-error-"+field).Class("field-error").Attr("role", "alert").Text(fe.Error())
		}
		return nil
	}
	out := []app.UI{}
	if err == nil {
		yes := map[bool]string{true: "fits", false: "exceeds the limit"}
		out = append(out,
			app.Dt().Text("Tier"), app.Dd().ID("calc-tier").Text(int(res.Tier.Tier)),
			app.Dt().Text("Position"), app.Dd().ID("calc-position").Text(res.Position.Contracts.String()+" cont · "+res.Position.USDT.String()+" USDT"),
			app.Dt().Text("Max leverage of the tier"), app.Dd().ID("calc-tier-lever").Text(res.Tier.MaxLever.String()+"×"),
			app.Dt().Text("Maintenance margin"), app.Dd().ID("calc-margin").Text(res.Margin.String()+" USDT"),
			app.Dt().Text("Largest position at this leverage"), app.Dd().ID("calc-max").Text(map[bool]string{true: res.Max.Contracts.String() + " cont · " + res.Max.USDT.StringFixed(2) + " USDT", false: "none: no tier allows this leverage"}[res.MaxOK]),
			app.Dt().Text("Long limit"), app.Dd().ID("calc-fits-long").Text(yes[res.FitsLong]),
			app.Dt().Text("Short limit"), app.Dd().ID("calc-fits-short").Text(yes[res.FitsShort]),
		)
	}
	return app.Section().ID("calculator").Body(
		app.H2().Text("Calculator"),
		app.Div().Class("calc-fields").Body(
			app.Label().For("calc-size").Text("Size"),
			app.Input().ID("calc-size").Class("control").Attr("inputmode", "decimal").Value(r.size).
				OnInput(func(ctx app.Context, e app.Event) { r.size, r.touched = ctx.JSSrc().Get("value").String(), true }),
			app.Select().ID("calc-unit").Class("control").Aria("label", "Size unit").Body(
				app.Option().Value(string(risk.Contracts)).Selected(r.unit == risk.Contracts).Text("contracts"),
				app.Option().Value(string(risk.USDT)).Selected(r.unit == risk.USDT).Text("USDT at mark"),
			).OnChange(func(ctx app.Context, e app.Event) { r.unit = risk.Unit(ctx.JSSrc().Get("value").String()) }),
			fieldErr("size"),
			app.Label().For("calc-leverage").Text("Leverage"),
			app.Input().ID("calc-leverage").Class("control").Attr("inputmode", "numeric").Value(r.leverage).
				OnInput(func(ctx app.Context, e app.Event) { r.leverage = ctx.JSSrc().Get("value").String() }),
			fieldErr("leverage"),
		),
		app.If(err == nil && res.LeverageTooBig, func() app.UI {
			return app.P().ID("calc-warning").Class("field-error").Attr("role", "alert").
				Text("This leverage is above the " + res.Tier.MaxLever.String() + "× the tier allows.")
		}),
		app.Dl().ID("calc-result").Class("calc-result").Aria("live", "polite").Body(out...),
	)
}

func (r *RiskPanel) noAccessText() string {
	if r.Embedded {
		return "No access: this embed has no valid link for the private data of " + r.Contract + "."
	}
	return "No access to private data on this server: it has no venue key, or you need a viewer token (sign in at /login). The chart works without it."
}
