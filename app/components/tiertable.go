package components

import (
	"slices"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

// Columns the tier table sorts by.
const (
	sortTier  = "tier"
	sortBand  = "band"
	sortLever = "lever"
	sortRate  = "rate"
)

var hundred = decimal.NewFromInt(100)

// openTop reports whether t is the open-ended last tier of tiers (see
// risk.Ladder): the highest tier number, with no max_volume above its min.
func openTop(tiers []venueapi.Tier, t venueapi.Tier) bool {
	for _, o := range tiers {
		if o.Tier > t.Tier {
			return false
		}
	}
	return !t.MaxVolume.GreaterThan(t.MinVolume)
}

// sortTiers returns the tiers ordered by a column, ties by tier number; an
// open-ended band sorts above every closed one.
func sortTiers(tiers []venueapi.Tier, by string, desc bool) []venueapi.Tier {
	rows := slices.Clone(tiers)
	cmp := func(a, b venueapi.Tier) int {
		switch by {
		case sortBand:
			oa, ob := openTop(tiers, a), openTop(tiers, b)
			switch {
			case oa != ob && oa:
				return 1
			case oa != ob:
				return -1
			}
			return a.MaxVolume.Cmp(b.MaxVolume)
		case sortLever:
			return a.MaxLever.Cmp(b.MaxLever)
		case sortRate:
			return a.MaintenanceMarginRate.Cmp(b.MaintenanceMarginRate)
		}
		return 0
	}
	slices.SortStableFunc(rows, func(a, b venueapi.Tier) int {
		c := cmp(a, b)
		if c == 0 {
			c = int(a.Tier) - int(b.Tier)
		}
		if desc {
			return -c
		}
		return c
	})
	return rows
}

// unitShort is a band's unit as the table writes it: the venue's "cont", or USDT.
func unitShort(volumeUnit string) string {
	if volumeUnit == venueapi.UnitUSDT {
		return "USDT"
	}
	return "cont"
}

// bandText is a tier's position band with its unit: "0 – 5,200 cont",
// "5,000 – ∞ cont" for an open-ended last tier.
func bandText(tiers []venueapi.Tier, t venueapi.Tier) string {
	return bandRange(tiers, t) + " " + unitShort(t.VolumeUnit)
}

// bandRange is a band without its unit, for a table whose header names it:
// "0 – 5,200", "5,000 – ∞".
func bandRange(tiers []venueapi.Tier, t venueapi.Tier) string {
	top := grouped(t.MaxVolume)
	if openTop(tiers, t) {
		top = "∞"
	}
	return grouped(t.MinVolume) + " – " + top
}

// amounts are the ladder's cumulative maintenance amounts by tier number;
// nil when the tiers are not a ladder.
func amounts(tiers []venueapi.Tier) map[venueapi.TierNumber]decimal.Decimal {
	l, err := risk.NewLadder(tiers)
	if err != nil {
		return nil
	}
	out := make(map[venueapi.TierNumber]decimal.Decimal, len(l))
	for i, a := range l.MaintenanceAmounts() {
		out[l[i].Tier] = a
	}
	return out
}

// rateText is a maintenance margin rate as a percentage, exact: 0.005 is 0.5%.
func rateText(rate decimal.Decimal) string { return rate.Mul(hundred).String() + "%" }

// TierTable is a contract's risk-limit tier ladder, sortable by column,
// the calculator's tier marked.
type TierTable struct {
	app.Compo

	// Contract is the contract code the tiers are of.
	Contract string
	// Tiers are the venue's tiers, as it lists them.
	Tiers []venueapi.Tier
	// State is the tiers' freshness, drawn above the table.
	State fetchState
	// Now is the panel's clock, for the age of the data; UTC writes its
	// times of day in UTC, as the view's zone.
	Now time.Time
	UTC bool
	// Current is the calculator's tier, marked; 0: none.
	Current venueapi.TierNumber
	// LadderErr is why the tiers do not form a ladder; "" when they do.
	LadderErr string
	// Calculator says that a calculator beside the table marks its tier.
	Calculator bool

	sortBy   string // column of the table
	sortDesc bool
}

// column is the column the rows are sorted by: the tier number until a
// header is chosen, in the server's prerender as in the browser.
func (t *TierTable) column() string {
	if t.sortBy == "" {
		return sortTier
	}
	return t.sortBy
}

func (t *TierTable) isSwap() bool {
	c, err := venueapi.ParseContractCode(t.Contract)
	return err == nil && c.Kind == venueapi.KindSwap
}

// Render draws the ladder, or why there is none.
func (t *TierTable) Render() app.UI {
	head := app.H2().ID("tiers-title").Text("Risk-limit tiers")
	if !t.isSwap() {
		return app.Section().ID("tiers").Aria("labelledby", "tiers-title").Body(head,
			app.P().Class("muted").Text("The venue publishes risk-limit tiers for swaps; "+t.Contract+" is not one."))
	}
	if len(t.Tiers) == 0 && t.State.noAccess {
		return app.Section().ID("tiers").Aria("labelledby", "tiers-title").Body(head,
			app.P().ID("tiers-noaccess").Class("muted").Text("The risk-limit tiers of "+t.Contract+" are not available here."))
	}
	unit, short := "", "cont"
	if len(t.Tiers) > 0 {
		unit, short = risk.UnitName(t.Tiers[0].VolumeUnit), unitShort(t.Tiers[0].VolumeUnit)
	}
	return app.Section().ID("tiers").Aria("labelledby", "tiers-title").Body(
		head,
		stateLine("tiers-state", t.State, tiersEvery, t.Now, t.UTC),
		app.Div().Class("table-scroll").Body(
			app.Table().ID("tier-table").Class("grid").Body(
				app.Caption().Class("sr-only").Text("Risk-limit tiers of "+t.Contract),
				t.header(short),
				app.TBody().Body(t.rows()...),
			),
		),
		t.note(unit),
		t.ladderError(),
	)
}

// header is the columns' headers; all but the amount sort the rows.
func (t *TierTable) header(short string) app.UI {
	return app.THead().Body(app.Tr().Body(t.sortHeader(sortTier, "Tier"), t.sortHeader(sortBand, "Position band ("+short+")"), t.sortHeader(sortLever, "Max leverage"),
		t.sortHeader(sortRate, "Maint. margin rate"), app.Th().Scope("col").Text("Maint. amount ("+short+")")))
}

// sortHeader is a column's header: a click sorts by it, again the other way.
func (t *TierTable) sortHeader(col, label string) app.UI {
	sortState := "none"
	if t.column() == col {
		sortState = either(t.sortDesc, "descending", "ascending")
	}
	return app.Th().Scope("col").Aria("sort", sortState).Body(
		app.Button().Class("sort").DataSet("sort", col).Text(label).OnClick(func(ctx app.Context, e app.Event) {
			if t.column() == col {
				t.sortDesc = !t.sortDesc
			} else {
				t.sortBy, t.sortDesc = col, false
			}
		}))
}

// rows are the tiers in the chosen order.
func (t *TierTable) rows() []app.UI {
	rows := sortTiers(t.Tiers, t.column(), t.sortDesc)
	amount := amounts(t.Tiers)
	trs := make([]app.UI, 0, len(rows))
	for _, row := range rows {
		trs = append(trs, t.row(row, amount))
	}
	return trs
}

// row is one tier; the calculator's is highlighted.
func (t *TierTable) row(row venueapi.Tier, amount map[venueapi.TierNumber]decimal.Decimal) app.UI {
	amt := "—"
	if a, ok := amount[row.Tier]; ok {
		amt = grouped(a)
	}
	tr := app.Tr().DataSet("tier", int(row.Tier)).Body(
		app.Td().Class("num tier").Text(int(row.Tier)),
		app.Td().Class("num band").Text(bandRange(t.Tiers, row)),
		app.Td().Class("num lever").Text(row.MaxLever.String()+"×"),
		app.Td().Class("num rate").Text(rateText(row.MaintenanceMarginRate)),
		app.Td().Class("num amount").Text(amt),
	)
	if row.Tier == t.Current {
		tr = tr.Class("current").Aria("current", "true").Title("The calculator's position is in this tier")
	}
	return tr
}

// note says what the bands and the amounts are in, when there are tiers.
func (t *TierTable) note(unit string) app.UI {
	if unit == "" {
		return nil
	}
	how := "Bands in " + unit + " of position size. "
	if unit == "USDT" {
		how = "Bands in USDT of position value (contracts × face value × mark price). "
	}
	highlighted := ""
	if t.Calculator {
		highlighted = " Highlighted: the tier of the calculator's position."
	}
	return app.P().ID("tiers-note").Class("muted note").Text(how +
		"A size on a band's top belongs to that tier. Maintenance margin = size × rate − the tier's maint. amount, in " + unit +
		"." + highlighted)
}

// ladderError says why the calculator does not use the tiers, when it does not.
func (t *TierTable) ladderError() app.UI {
	if t.LadderErr == "" {
		return nil
	}
	return app.P().ID("tiers-invalid").Class("field-error").Text("The venue's tiers do not form a ladder, so the calculator will not use them: " + t.LadderErr)
}
