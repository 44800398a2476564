// Package risk is the arithmetic of the risk views: which risk-limit tier a
// position falls in, its initial and maintenance margins, the largest
// position a leverage allows, whether it fits the account's limits at that
// leverage, and an estimated liquidation price. Every number is an exact
// decimal until a margin or price is rounded for show (docs/calculator.md
// has each formula with worked examples); nothing here touches the browser,
// so it is tested natively.
package risk

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Contract is what the arithmetic needs of a contract.
type Contract struct {
	FaceValue     decimal.Decimal // base asset per contract (GET /api/v1/contracts)
	MarkPrice     decimal.Decimal // USDT per base asset (the position-limit record)
	PriceDecimals int32           // the price tick is 10^-PriceDecimals USDT
}

// MarginPlaces is the precision of a margin in USDT, the settlement
// currency: four decimal places, rounded up, so that a margin is never
// understated (docs/calculator.md#rounding).
const MarginPlaces = 4

// ContractValue is the USDT value of one contract at the mark price.
func (c Contract) ContractValue() decimal.Decimal { return c.FaceValue.Mul(c.MarkPrice) }

// Unit is what a position size is typed in.
type Unit string

// Units of a typed position size.
const (
	Contracts Unit = "contracts"
	USDT      Unit = "usdt"
)

// FieldError is bad input on one field, shown next to that field. Its
// message is a whole sentence a trader reads ("Position size is beyond the
// last tier …"); Field only says where it goes.
type FieldError struct {
	Field, Rule string
}

func (e *FieldError) Error() string { return e.Rule }

// maxInputLen bounds what a person types: a longer "number" is a paste
// accident, and a huge exponent would cost big-integer arithmetic.
const maxInputLen = 40

// fieldWords is how a message names a field, and a number to show as an
// example of what to type there.
var fieldWords = map[string][2]string{
	"size":     {"Position size", "1500"},
	"leverage": {"Leverage", "10"},
	"entry":    {"Entry price", "95000.5"},
	"margin":   {"Margin", "250"},
}

func words(field string) (label, example string) {
	if w, ok := fieldWords[field]; ok {
		return w[0], w[1]
	}
	return field, "1500"
}

// ParseAmount reads a positive decimal typed into field as people write
// one: "1500", "0.25", "1000." and ".5"; commas grouping thousands
// ("1,000", "12,500.75"); an exponent ("1e3", "2.5E-2"). A comma that may be
// a decimal comma ("1,5") is refused with a message saying what to type,
// as is a sign, a space inside the number or any other mark.
func ParseAmount(field, s string) (decimal.Decimal, error) {
	label, example := words(field)
	notNumber := &FieldError{field, label + " must be a number, like " + example + " (1,500 and 1.5e3 are read too)"}
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return decimal.Zero, &FieldError{field, label + " is empty: enter a number, like " + example}
	case n > maxInputLen:
		return decimal.Zero, &FieldError{field, fmt.Sprintf("%s is %d characters long: at most %d are read", label, n, maxInputLen)}
	}
	negative := strings.HasPrefix(s, "-")
	mantissa, exp, hasExp := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	if !hasExp {
		mantissa, exp, hasExp = strings.Cut(strings.TrimPrefix(s, "-"), "E")
	}
	if strings.Contains(mantissa, ",") {
		plain, ok := ungroup(mantissa)
		if !ok {
			return decimal.Zero, &FieldError{field, label + " has a comma that is not a thousands mark: write decimals with a point (1.5) and thousands as 1,000 or 1000"}
		}
		mantissa = plain
	}
	if !plainNumber(mantissa) {
		return decimal.Zero, notNumber
	}
	if hasExp {
		switch n := exponentDigits(exp); {
		case n < 1:
			return decimal.Zero, notNumber
		case n > maxExponentDigits:
			return decimal.Zero, &FieldError{field, fmt.Sprintf("%s has an exponent of more than %d digits: at most %d are read, as in 1.5e3", label, maxExponentDigits, maxExponentDigits)}
		}
	}
	text := mantissa
	if hasExp {
		text += "e" + exp
	}
	d, err := decimal.NewFromString(text)
	if err != nil {
		return decimal.Zero, notNumber
	}
	if negative || !d.IsPositive() {
		return decimal.Zero, &FieldError{field, label + " must be more than zero"}
	}
	return d, nil
}

// ungroup removes commas that group an integer part in threes ("12,500.75"
// → "12500.75"); ok is false for any other comma, and for a first group
// that starts with 0: "0,165" is a decimal comma, not 165.
func ungroup(s string) (string, bool) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	groups := strings.Split(whole, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 || groups[0][0] == '0' {
		return "", false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return "", false
		}
	}
	if strings.Contains(frac, ",") {
		return "", false
	}
	out := strings.Join(groups, "")
	if hasPoint {
		out += "." + frac
	}
	return out, true
}

// plainNumber reports whether s is digits with at most one point among them.
func plainNumber(s string) bool {
	digits, points := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

// maxExponentDigits bounds an exponent a person means: 1e99 is past any
// price or size, and a longer one, a typing accident, would cost big-integer
// arithmetic.
const maxExponentDigits = 2

// exponentDigits is the number of digits of an exponent, after an optional
// sign; -1 when s is not that.
func exponentDigits(s string) int {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	if s == "" {
		return -1
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return -1
		}
	}
	return len(s)
}

// ParseLeverage reads a whole leverage of at least 1.
func ParseLeverage(s string) (decimal.Decimal, error) {
	d, err := ParseAmount("leverage", s)
	if err != nil {
		return d, err
	}
	if !d.IsInteger() {
		return decimal.Zero, &FieldError{"leverage", "Leverage must be a whole number, like 10"}
	}
	return d, nil
}

// Position is a size in whole contracts and its USDT value at the mark price.
type Position struct {
	Contracts, USDT decimal.Decimal
}

// NewPosition converts a size typed in unit to both units. A USDT size buys
// the whole contracts it pays for (floor), as an order would; a contract
// size must be whole.
func NewPosition(size decimal.Decimal, unit Unit, c Contract) (Position, error) {
	value := c.ContractValue()
	if !value.IsPositive() {
		return Position{}, errors.New("the face value and mark price are not known yet")
	}
	switch unit {
	case USDT:
		n := wholeContracts(size, value)
		if !n.IsPositive() {
			return Position{}, &FieldError{"size", "Position size is less than one contract (" + value.String() + " USDT at the mark price)"}
		}
		return Position{Contracts: n, USDT: n.Mul(value)}, nil
	case Contracts:
		if !size.IsInteger() {
			return Position{}, &FieldError{"size", "Position size in contracts must be a whole number, like 15 (or choose USDT)"}
		}
		return Position{Contracts: size, USDT: size.Mul(value)}, nil
	}
	return Position{}, &FieldError{"unit", "Size unit must be contracts or USDT"}
}

// wholeContracts is the whole contracts usdt pays for at value a contract,
// exactly: Div rounds to 16 places, which can round a quotient just under a
// whole number up to it.
func wholeContracts(usdt, value decimal.Decimal) decimal.Decimal {
	q, _ := usdt.QuoRem(value, 0)
	return q
}

// In is the position measured in a tier band's volume unit.
func (p Position) In(volumeUnit string) decimal.Decimal {
	if volumeUnit == venueapi.UnitUSDT {
		return p.USDT
	}
	return p.Contracts
}

// Ladder is a contract's risk-limit tiers, ascending, in one volume unit.
//
// Band edges: a band holds the sizes above its min_volume up to and
// including its max_volume (min < size ≤ max), and tier 1 starts at 0
// inclusive, so a size exactly on a boundary belongs to the lower tier, as
// the venue family reads its ladders. The last tier is open-ended when its
// max_volume is not above its min_volume (a venue writes 0 there for "no
// top"); otherwise its max_volume is the largest position an account may
// hold, and a larger size is in no tier.
type Ladder []venueapi.Tier

// NewLadder checks the venue's tiers and orders them by tier number: they
// must be in one volume unit, with max_volume rising tier by tier, so that
// a size maps to exactly one tier.
func NewLadder(tiers []venueapi.Tier) (Ladder, error) {
	if len(tiers) == 0 {
		return nil, errors.New("the venue listed no tiers")
	}
	l := Ladder(slices.Clone(tiers))
	slices.SortFunc(l, func(a, b venueapi.Tier) int { return int(a.Tier) - int(b.Tier) })
	for i, t := range l {
		if t.VolumeUnit != venueapi.UnitContract && t.VolumeUnit != venueapi.UnitUSDT {
			return nil, fmt.Errorf("tier %d: unknown volume unit %q", t.Tier, t.VolumeUnit)
		}
		if t.VolumeUnit != l[0].VolumeUnit {
			return nil, fmt.Errorf("tier %d is in %s, tier %d in %s: one ladder has one unit", t.Tier, t.VolumeUnit, l[0].Tier, l[0].VolumeUnit)
		}
		if !t.MaxLever.IsPositive() || t.MaintenanceMarginRate.IsNegative() {
			return nil, fmt.Errorf("tier %d: max_lever %s and maintenance_margin_rate %s are not a leverage and a rate", t.Tier, t.MaxLever, t.MaintenanceMarginRate)
		}
		if i > 0 && t.Tier == l[i-1].Tier {
			return nil, fmt.Errorf("tier %d is listed twice", t.Tier)
		}
		if i > 0 && !l.Open(i) && !t.MaxVolume.GreaterThan(l[i-1].MaxVolume) {
			return nil, fmt.Errorf("tier %d tops at %s, not above tier %d's %s", t.Tier, t.MaxVolume, l[i-1].Tier, l[i-1].MaxVolume)
		}
	}
	return l, nil
}

// Unit is the ladder's volume unit: venueapi.UnitContract or UnitUSDT.
func (l Ladder) Unit() string { return l[0].VolumeUnit }

// Open reports whether tier i (an index) has no top: only the last tier can.
func (l Ladder) Open(i int) bool {
	return i == len(l)-1 && !l[i].MaxVolume.GreaterThan(l[i].MinVolume)
}

// TierOf returns the index of the tier a position falls in (see Ladder for
// the band edges). Beyond the top of a closed last tier is an error on the
// size field: no tier allows it.
func (l Ladder) TierOf(p Position) (int, error) {
	size := p.In(l.Unit())
	for i, t := range l {
		if l.Open(i) || !size.GreaterThan(t.MaxVolume) {
			return i, nil
		}
	}
	last := l[len(l)-1]
	return -1, &FieldError{"size", fmt.Sprintf("Position size is beyond the last tier (tier %d ends at %s %s)", last.Tier, last.MaxVolume, UnitName(last.VolumeUnit))}
}

// MaintenanceAmounts are the ladder's cumulative maintenance amounts, one
// per tier, in the ladder's unit: amount_1 = 0 and
// amount_k = amount_k-1 + floor_k × (rate_k − rate_k-1), floor_k being the
// band's min_volume. Deducted from size × rate_k, they make the maintenance
// margin continuous across band edges (docs/calculator.md#maintenance-margin).
func (l Ladder) MaintenanceAmounts() []decimal.Decimal {
	out := make([]decimal.Decimal, len(l))
	amount, rate := decimal.Zero, decimal.Zero
	for i, t := range l {
		amount = amount.Add(t.MinVolume.Mul(t.MaintenanceMarginRate.Sub(rate)))
		rate = t.MaintenanceMarginRate
		out[i] = amount
	}
	return out
}

// MaintenanceMargin is, in USDT and exact, size × rate − amount of tier i
// in the ladder's unit; a size in contracts is then worth face value × mark
// price a contract.
func (l Ladder) MaintenanceMargin(p Position, c Contract, i int) decimal.Decimal {
	mm := p.In(l.Unit()).Mul(l[i].MaintenanceMarginRate).Sub(l.MaintenanceAmounts()[i])
	if l.Unit() == venueapi.UnitContract {
		mm = mm.Mul(c.ContractValue())
	}
	return mm
}

// RoundMargin rounds a USDT margin up to MarginPlaces.
func RoundMargin(m decimal.Decimal) decimal.Decimal { return m.RoundCeil(MarginPlaces) }

// InitialMargin is the position's value over the leverage, rounded up to
// MarginPlaces (exactly: no intermediate rounding of the quotient).
func InitialMargin(p Position, leverage decimal.Decimal) decimal.Decimal {
	q, r := p.USDT.QuoRem(leverage, MarginPlaces)
	if r.IsPositive() {
		q = q.Add(decimal.New(1, -MarginPlaces))
	}
	return q
}

// Max is the largest position the tiers allow at a leverage.
type Max struct {
	Allowed   bool            // some tier allows the leverage
	Unbounded bool            // the open last tier allows it: the tiers set no top
	Volume    decimal.Decimal // the top, in the ladder's unit, exact
	Position  Position        // the top in whole contracts (floor) and their value
}

// MaxPosition is the top of the last tier whose maximum leverage is at
// least leverage: positions above it need a lower leverage.
func (l Ladder) MaxPosition(leverage decimal.Decimal, c Contract) Max {
	var m Max
	for i, t := range l {
		if t.MaxLever.LessThan(leverage) {
			break
		}
		m = Max{Allowed: true, Unbounded: l.Open(i), Volume: t.MaxVolume}
	}
	if !m.Allowed || m.Unbounded {
		m.Volume = decimal.Zero
		return m
	}
	value := c.ContractValue()
	switch {
	case l.Unit() == venueapi.UnitContract:
		m.Position = Position{Contracts: m.Volume, USDT: m.Volume.Mul(value)}
	case value.IsPositive():
		n := wholeContracts(m.Volume, value)
		m.Position = Position{Contracts: n, USDT: n.Mul(value)}
	}
	return m
}

// Fit says whether a position fits one side of the account's limits.
type Fit int

// Fits of a position against a limit.
const (
	FitUnknown Fit = iota // the account's limits are not known
	Fits
	Exceeds
)

// SideLimit is one side's limit at the typed leverage: the smaller of the
// account's limit (which the venue reports at the account's own leverage)
// and the largest position the tiers allow at the typed leverage.
type SideLimit struct {
	Fit      Fit
	Limit    decimal.Decimal // contracts; zero when no tier allows the leverage
	ByTiers  bool            // the tiers' top at the leverage is the smaller
	NoTier   bool            // no tier allows the leverage: nothing fits
	Account  decimal.Decimal // the account's own limit, contracts
	HasLimit bool            // the account's limit is known
}

// sideAt is one side's SideLimit for a position: a position above the
// tiers' top at the leverage exceeds whatever the account's limit says.
func sideAt(p Position, m Max, account *decimal.Decimal) SideLimit {
	s := SideLimit{}
	if account != nil {
		s.Account, s.HasLimit = *account, true
	}
	switch {
	case !m.Allowed:
		s.NoTier, s.Fit = true, Exceeds
		return s
	case !m.Unbounded && (!s.HasLimit || m.Position.Contracts.LessThan(s.Account)):
		s.Limit, s.ByTiers = m.Position.Contracts, true
	case s.HasLimit:
		s.Limit = s.Account
	default:
		return s // open-ended tiers and no account limit: nothing to compare
	}
	switch {
	case p.Contracts.GreaterThan(s.Limit):
		s.Fit = Exceeds
	case s.HasLimit:
		s.Fit = Fits
	}
	return s
}

// Result is the calculator's answer for one size and leverage.
type Result struct {
	Position       Position
	TierIndex      int // in the ladder
	Tier           venueapi.Tier
	LeverageTooBig bool            // the chosen leverage is above the tier's maximum
	Amount         decimal.Decimal // the tier's cumulative maintenance amount, in the ladder's unit
	MarginExact    decimal.Decimal // maintenance margin, USDT, exact
	Margin         decimal.Decimal // the same rounded up to MarginPlaces
	Initial        decimal.Decimal // initial margin at the leverage, USDT, rounded up
	Max            Max
	Long, Short    SideLimit
}

// Calculate answers for a size typed in unit and a leverage; limit is the
// account's position limit on the contract, nil when unknown.
func Calculate(l Ladder, limit *venueapi.PositionLimit, c Contract, size decimal.Decimal, unit Unit, leverage decimal.Decimal) (Result, error) {
	p, err := NewPosition(size, unit, c)
	if err != nil {
		return Result{}, err
	}
	i, err := l.TierOf(p)
	if err != nil {
		return Result{}, err
	}
	t := l[i]
	mm := l.MaintenanceMargin(p, c, i)
	r := Result{
		Position: p, TierIndex: i, Tier: t,
		LeverageTooBig: leverage.GreaterThan(t.MaxLever),
		Amount:         l.MaintenanceAmounts()[i],
		MarginExact:    mm,
		Margin:         RoundMargin(mm),
		Initial:        InitialMargin(p, leverage),
		Max:            l.MaxPosition(leverage, c),
	}
	var buy, sell *decimal.Decimal
	if limit != nil {
		buy, sell = &limit.BuyLimit, &limit.SellLimit
	}
	r.Long, r.Short = sideAt(p, r.Max, buy), sideAt(p, r.Max, sell)
	return r, nil
}

// Liquidation is an estimated liquidation price of one side.
type Liquidation struct {
	Price  decimal.Decimal // rounded to the price tick, towards the entry and never past it
	None   bool            // a long whose margin covers a fall to zero
	AtOnce bool            // the margin is below the maintenance margin at the entry
}

// Liquidations estimates, isolated-style, the prices at which a long and a
// short of the result's size, entered at entry with margin put up, have
// margin + PnL = maintenance margin, keeping the tier of the mark price
// (docs/calculator.md#liquidation-price-isolated-style-estimate). With n contracts of face value f,
// rate r and amount a in contracts or A in USDT (the other zero):
//
//	long:  P = (n·f·E − M − A) / (f·(n − n·r + a))
//	short: P = (n·f·E + M + A) / (f·(n + n·r − a))
func Liquidations(l Ladder, r Result, c Contract, entry, margin decimal.Decimal) (long, short Liquidation) {
	n, f, rate := r.Position.Contracts, c.FaceValue, r.Tier.MaintenanceMarginRate
	amtC, amtU := decimal.Zero, decimal.Zero
	if l.Unit() == venueapi.UnitContract {
		amtC = r.Amount
	} else {
		amtU = r.Amount
	}
	nr := n.Mul(rate)
	cost := n.Mul(f).Mul(entry)
	tick := c.PriceDecimals
	if den := f.Mul(n.Sub(nr).Add(amtC)); den.IsPositive() {
		num := cost.Sub(margin).Sub(amtU)
		if num.IsPositive() {
			long.Price = ceilTo(num, den, tick)
			// exactly, not from the price rounded towards the entry
			long.AtOnce = !num.LessThan(entry.Mul(den))
			if !long.AtOnce && long.Price.GreaterThan(entry) {
				long.Price = entry // an entry between two ticks: towards it, not past it
			}
		} else {
			long.None = true
		}
	} else {
		long.None = true
	}
	if den := f.Mul(n.Add(nr).Sub(amtC)); den.IsPositive() {
		num := cost.Add(margin).Add(amtU)
		short.Price = floorTo(num, den, tick)
		short.AtOnce = !num.GreaterThan(entry.Mul(den))
		if !short.AtOnce && short.Price.LessThan(entry) {
			short.Price = entry
		}
	}
	return long, short
}

// ceilTo is num/den rounded up to places decimal places, exactly: a
// quotient rounded first to some precision could land on a tick it had
// passed by less than that precision, one tick further from the entry.
// num and den are positive.
func ceilTo(num, den decimal.Decimal, places int32) decimal.Decimal {
	q, r := num.QuoRem(den, places)
	if r.IsPositive() {
		q = q.Add(decimal.New(1, -places))
	}
	return q
}

// floorTo is num/den rounded down to places decimal places, exactly; num
// and den are positive.
func floorTo(num, den decimal.Decimal, places int32) decimal.Decimal {
	q, _ := num.QuoRem(den, places)
	return q
}

// UnitName is how the UI names a tier band's volume unit.
func UnitName(volumeUnit string) string {
	if volumeUnit == venueapi.UnitUSDT {
		return "USDT"
	}
	return "contracts"
}
