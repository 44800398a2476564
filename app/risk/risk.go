// Package risk is the arithmetic of the risk views: which risk-limit tier a
// position falls in, its maintenance margin, the largest position a leverage
// allows, and whether it fits the account's limits. Every number is an exact
// decimal; nothing here touches the browser, so it is tested natively.
package risk

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Contract is what the arithmetic needs of a contract.
type Contract struct {
	FaceValue decimal.Decimal // base asset per contract
	MarkPrice decimal.Decimal // USDT per base asset
}

// ContractValue is the USDT value of one contract at the mark price.
func (c Contract) ContractValue() decimal.Decimal { return c.FaceValue.Mul(c.MarkPrice) }

// Unit is what a position size is given in.
type Unit string

// Units of a position size.
const (
	Contracts Unit = "contracts"
	USDT      Unit = "usdt"
)

// FieldError is bad input, named by its field, shown next to it.
type FieldError struct {
	Field, Rule string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

// ParseAmount reads a positive decimal typed by a person.
func ParseAmount(field, s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return decimal.Zero, &FieldError{field, "enter a number"}
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

// ParseLeverage reads a whole leverage from 1 up.
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

// Position is a size in contracts and in USDT at the mark price.
type Position struct {
	Contracts, USDT decimal.Decimal
}

// NewPosition converts a size given in unit to both units. A USDT size buys
// the whole contracts it pays for (floor), as an order would.
func NewPosition(size decimal.Decimal, unit Unit, c Contract) (Position, error) {
	value := c.ContractValue()
	if !value.IsPositive() {
		return Position{}, errors.New("the mark price is not known yet")
	}
	if unit == USDT {
		n := size.Div(value).Floor()
		if !n.IsPositive() {
			return Position{}, &FieldError{"size", fmt.Sprintf("less than one contract (%s USDT)", value.String())}
		}
		return Position{Contracts: n, USDT: n.Mul(value)}, nil
	}
	if !size.IsInteger() {
		return Position{}, &FieldError{"size", "must be a whole number of contracts"}
	}
	return Position{Contracts: size, USDT: size.Mul(value)}, nil
}

// sizeIn is the position measured in a tier band's unit.
func (p Position) sizeIn(unit string) decimal.Decimal {
	if unit == venueapi.UnitUSDT {
		return p.USDT
	}
	return p.Contracts
}

// TierOf returns the tier a position falls in. Bands include their upper
// bound and exclude their lower one (min < size ≤ max), tier 1 from 0; a
// size on a boundary belongs to the lower tier, as the venue family reads
// its ladders. Beyond the last tier is an error: no tier allows it.
func TierOf(tiers []venueapi.Tier, p Position) (venueapi.Tier, error) {
	if len(tiers) == 0 {
		return venueapi.Tier{}, errors.New("no tiers")
	}
	for _, t := range tiers {
		if !p.sizeIn(t.VolumeUnit).GreaterThan(t.MaxVolume) {
			return t, nil
		}
	}
	last := tiers[len(tiers)-1]
	return venueapi.Tier{}, &FieldError{"size", fmt.Sprintf("beyond the last tier (%s %s)", last.MaxVolume, unitName(last.VolumeUnit))}
}

// MaintenanceMargin is size × mark price × face value × the tier's rate, in USDT.
func MaintenanceMargin(p Position, c Contract, t venueapi.Tier) decimal.Decimal {
	return p.Contracts.Mul(c.MarkPrice).Mul(c.FaceValue).Mul(t.MaintenanceMarginRate)
}

// MaxPosition is the largest position the tiers allow at a leverage: the top
// of the last tier whose maximum leverage is at least it. ok is false when
// no tier allows the leverage.
func MaxPosition(tiers []venueapi.Tier, leverage decimal.Decimal, c Contract) (p Position, unit string, ok bool) {
	for _, t := range tiers {
		if t.MaxLever.LessThan(leverage) {
			break
		}
		unit, ok = t.VolumeUnit, true
		if t.VolumeUnit == venueapi.UnitUSDT {
			p = Position{USDT: t.MaxVolume}
			if v := c.ContractValue(); v.IsPositive() {
				p.Contracts = t.MaxVolume.Div(v).Floor()
			}
		} else {
			p = Position{Contracts: t.MaxVolume, USDT: t.MaxVolume.Mul(c.ContractValue())}
		}
	}
	return p, unit, ok
}

// Result is the calculator's answer.
type Result struct {
	Position       Position
	Tier           venueapi.Tier
	LeverageTooBig bool // the chosen leverage is above the tier's maximum
	Margin         decimal.Decimal
	Max            Position // the largest position at the chosen leverage
	MaxUnit        string
	MaxOK          bool
	FitsLong       bool
	FitsShort      bool
}

// Calculate answers for a size and a leverage; limits may be nil (unknown).
func Calculate(tiers []venueapi.Tier, limits *venueapi.PositionLimit, c Contract, size decimal.Decimal, unit Unit, leverage decimal.Decimal) (Result, error) {
	p, err := NewPosition(size, unit, c)
	if err != nil {
		return Result{}, err
	}
	t, err := TierOf(tiers, p)
	if err != nil {
		return Result{}, err
	}
	r := Result{Position: p, Tier: t, LeverageTooBig: leverage.GreaterThan(t.MaxLever), Margin: MaintenanceMargin(p, c, t)}
	r.Max, r.MaxUnit, r.MaxOK = MaxPosition(tiers, leverage, c)
	if limits != nil {
		r.FitsLong = !p.Contracts.GreaterThan(limits.BuyLimit)
		r.FitsShort = !p.Contracts.GreaterThan(limits.SellLimit)
	}
	return r, nil
}

func unitName(u string) string {
	if u == venueapi.UnitUSDT {
		return "USDT"
	}
	return "contracts"
}
