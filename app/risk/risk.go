// Package risk is the arithmetic of the risk views: which risk-limit tier a
// position falls in, its maintenance margin, the largest position a leverage
// allows, and whether it fits the account's limits. Every number is an exact
// decimal; nothing here touches the browser, so it is tested natively.
package risk

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Contract is what the arithmetic needs of a contract.
type Contract struct {
	FaceValue decimal.Decimal // base asset per contract (GET /api/v1/contracts)
	MarkPrice decimal.Decimal // USDT per base asset (the position-limit record)
}

// ContractValue is the USDT value of one contract at the mark price.
func (c Contract) ContractValue() decimal.Decimal { return c.FaceValue.Mul(c.MarkPrice) }

// Unit is what a position size is typed in.
type Unit string

// Units of a typed position size.
const (
	Contracts Unit = "contracts"
	USDT      Unit = "usdt"
)

// FieldError is bad input, named by its field, shown next to that field.
type FieldError struct {
	Field, Rule string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

// maxInputLen bounds what a person types: a longer "number" is a paste
// accident, and a huge exponent would cost big-integer arithmetic.
const maxInputLen = 40

// ParseAmount reads a positive decimal typed into field: plain digits with
// an optional point ("1500", "0.25"); no exponent, sign or thousands mark.
func ParseAmount(field, s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return decimal.Zero, &FieldError{field, "enter a number"}
	case len(s) > maxInputLen:
		return decimal.Zero, &FieldError{field, "must be a number, like 1.5"}
	case strings.HasPrefix(s, "-") && plainNumber(s[1:]):
		return decimal.Zero, &FieldError{field, "must be more than zero"}
	case !plainNumber(s):
		return decimal.Zero, &FieldError{field, "must be a number, like 1.5"}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, &FieldError{field, "must be a number, like 1.5"}
	}
	if !d.IsPositive() {
		return decimal.Zero, &FieldError{field, "must be more than zero"}
	}
	return d, nil
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

// ParseLeverage reads a whole leverage of at least 1.
func ParseLeverage(s string) (decimal.Decimal, error) {
	d, err := ParseAmount("leverage", s)
	if err != nil {
		return d, err
	}
	if !d.IsInteger() {
		return decimal.Zero, &FieldError{"leverage", "must be a whole number, like 10"}
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
		n := size.Div(value).Floor()
		if !n.IsPositive() {
			return Position{}, &FieldError{"size", "less than one contract (" + value.String() + " USDT at the mark price)"}
		}
		return Position{Contracts: n, USDT: n.Mul(value)}, nil
	case Contracts:
		if !size.IsInteger() {
			return Position{}, &FieldError{"size", "must be a whole number of contracts"}
		}
		return Position{Contracts: size, USDT: size.Mul(value)}, nil
	}
	return Position{}, &FieldError{"unit", "must be contracts or USDT"}
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
	return -1, &FieldError{"size", fmt.Sprintf("beyond the last tier (tier %d ends at %s %s)", last.Tier, last.MaxVolume, UnitName(last.VolumeUnit))}
}

// MaintenanceMargin is contracts × mark price × face value × the tier's
// rate, in USDT, exact.
func MaintenanceMargin(p Position, c Contract, t venueapi.Tier) decimal.Decimal {
	return p.Contracts.Mul(c.MarkPrice).Mul(c.FaceValue).Mul(t.MaintenanceMarginRate)
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
		n := m.Volume.Div(value).Floor()
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

func fit(p Position, limit decimal.Decimal) Fit {
	if p.Contracts.GreaterThan(limit) {
		return Exceeds
	}
	return Fits
}

// Result is the calculator's answer for one size and leverage.
type Result struct {
	Position       Position
	TierIndex      int // in the ladder
	Tier           venueapi.Tier
	LeverageTooBig bool // the chosen leverage is above the tier's maximum
	Margin         decimal.Decimal
	Max            Max
	Long, Short    Fit
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
	r := Result{
		Position: p, TierIndex: i, Tier: t,
		LeverageTooBig: leverage.GreaterThan(t.MaxLever),
		Margin:         MaintenanceMargin(p, c, t),
		Max:            l.MaxPosition(leverage, c),
	}
	if limit != nil {
		r.Long, r.Short = fit(p, limit.BuyLimit), fit(p, limit.SellLimit)
	}
	return r, nil
}

// UnitName is how the UI names a tier band's volume unit.
func UnitName(volumeUnit string) string {
	if volumeUnit == venueapi.UnitUSDT {
		return "USDT"
	}
	return "contracts"
}
