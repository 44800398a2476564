package risk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// randomLadder is a ladder as the venue writes one (docs/venue.md, tier
// record): contiguous bands from 0, levers falling and rates rising tier
// by tier, the last open-ended or not.
func randomLadder(r *rand.Rand, unit string) []venueapi.Tier {
	n := 1 + r.IntN(8)
	tiers := make([]venueapi.Tier, n)
	lo, lever, rate := decimal.Zero, int64(50+r.IntN(150)), int64(1+r.IntN(10)) // rate in 0.1%
	for i := range tiers {
		hi := lo.Add(decimal.NewFromInt(int64(1 + r.IntN(100000))))
		if i == n-1 && r.IntN(2) == 0 {
			hi = decimal.Zero // open-ended
		}
		tiers[i] = venueapi.Tier{ContractCode: "X-USDT", MarginMode: "cross", Tier: venueapi.TierNumber(i + 1),
			MinVolume: lo, MaxVolume: hi, MaxLever: decimal.NewFromInt(lever),
			MaintenanceMarginRate: decimal.New(rate, -3), VolumeUnit: unit}
		lo, lever, rate = hi, max(1, lever-int64(1+r.IntN(40))), rate+int64(r.IntN(20))
	}
	return tiers
}

// sliceMargin is the maintenance margin charged slice by slice, each slice
// of the position at the rate of the band it lies in
// (docs/calculator.md#maintenance-margin), in USDT.
func sliceMargin(l Ladder, p Position, c Contract) decimal.Decimal {
	size := p.In(l.Unit())
	mm := decimal.Zero
	for i, t := range l {
		top := t.MaxVolume
		if l.Open(i) || size.LessThan(top) {
			top = size
		}
		if top.GreaterThan(t.MinVolume) {
			mm = mm.Add(top.Sub(t.MinVolume).Mul(t.MaintenanceMarginRate))
		}
		if !size.GreaterThan(t.MaxVolume) {
			break
		}
	}
	if l.Unit() == venueapi.UnitContract {
		mm = mm.Mul(c.ContractValue())
	}
	return mm
}

// TestCalculatorProperties holds the calculator, over random ladders and
// inputs, to docs/calculator.md and docs/decisions.md#tier-boundary: the
// band a size lies in (min < size ≤ max), the margin slice by slice, the
// initial margin rounded up to 4 places, the largest position at a
// leverage, and liquidation prices on the tick towards the entry, where
// margin + PnL crosses the maintenance margin.
func TestCalculatorProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for run := range 3000 {
		unit := venueapi.UnitContract
		if run%2 == 1 {
			unit = venueapi.UnitUSDT
		}
		tiers := randomLadder(r, unit)
		l := mustLadder(t, tiers)
		ticks := int32(r.IntN(5))
		c := Contract{FaceValue: decimal.New(int64(1+r.IntN(1000)), -int32(r.IntN(4))),
			MarkPrice: decimal.New(int64(1+r.IntN(10_000_000)), -ticks), PriceDecimals: ticks}
		// sizes on and next to the band edges, and anywhere
		var size decimal.Decimal
		t0 := tiers[r.IntN(len(tiers))]
		switch r.IntN(3) {
		case 0:
			size = t0.MaxVolume
		case 1:
			size = t0.MaxVolume.Add(decimal.New(int64(r.IntN(3))-1, 0))
		default:
			size = decimal.NewFromInt(int64(1 + r.IntN(500000)))
		}
		sizeUnit := Contracts
		if r.IntN(2) == 0 {
			sizeUnit = USDT
			if unit == venueapi.UnitContract {
				size = size.Mul(c.ContractValue())
			}
		} else if unit == venueapi.UnitUSDT {
			size = size.Div(c.ContractValue()).Floor()
		}
		if !size.IsPositive() {
			continue
		}
		lev := decimal.NewFromInt(int64(1 + r.IntN(220)))
		name := fmt.Sprintf("run %d: %s %s at %s×, ladder %v", run, size, sizeUnit, lev, tiers)
		res, err := Calculate(l, nil, c, size, sizeUnit, lev)
		// Only two refusals are skipped: a USDT size that buys no whole
		// contract, and a size beyond a last tier that ends
		// (docs/calculator.md). Each is worked out here apart from
		// Calculate, so that a calculator refusing what it should answer
		// fails rather than leaving nothing checked.
		contracts := size
		if sizeUnit == USDT {
			contracts, _ = size.QuoRem(c.ContractValue(), 0)
		}
		inLadder := contracts
		if unit == venueapi.UnitUSDT {
			inLadder = contracts.Mul(c.ContractValue())
		}
		last := len(tiers) - 1
		lessThanAContract := !contracts.IsPositive()
		beyond := !lessThanAContract && !l.Open(last) && inLadder.GreaterThan(tiers[last].MaxVolume)
		if lessThanAContract || beyond {
			if err == nil {
				t.Fatalf("%s: answered %+v, want a refusal (less than a contract %v, beyond the last tier %v)", name, res, lessThanAContract, beyond)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: refused: %v", name, err)
		}
		checked++
		p := res.Position
		s := p.In(l.Unit())
		t1 := l[res.TierIndex]
		if !(s.GreaterThan(t1.MinVolume) || res.TierIndex == 0) || !(l.Open(res.TierIndex) || !s.GreaterThan(t1.MaxVolume)) {
			t.Fatalf("%s: size %s in tier %d (%s – %s)", name, s, t1.Tier, t1.MinVolume, t1.MaxVolume)
		}
		if want := sliceMargin(l, p, c); !res.MarginExact.Equal(want) {
			t.Fatalf("%s: MM %s, slice by slice %s", name, res.MarginExact, want)
		}
		if !res.Margin.Equal(res.MarginExact.RoundCeil(MarginPlaces)) {
			t.Fatalf("%s: MM shown %s for %s", name, res.Margin, res.MarginExact)
		}
		unitM := decimal.New(1, -MarginPlaces)
		if im := res.Initial; im.Mul(lev).LessThan(p.USDT) || im.Sub(unitM).Mul(lev).GreaterThanOrEqual(p.USDT) || im.Exponent() < -MarginPlaces {
			t.Fatalf("%s: IM %s is not %s / %s rounded up", name, im, p.USDT, lev)
		}
		// liquidations, at the mark price as entry with the initial margin or a random one
		entry := c.MarkPrice
		margin := res.Initial
		if r.IntN(2) == 0 {
			margin = decimal.New(int64(1+r.IntN(1_000_000)), -2)
		}
		long, short := Liquidations(l, res, c, entry, margin)
		tick := decimal.New(1, -ticks)
		nf := p.Contracts.Mul(c.FaceValue)
		amtC, amtU := decimal.Zero, decimal.Zero
		if l.Unit() == venueapi.UnitContract {
			amtC = res.Amount
		} else {
			amtU = res.Amount
		}
		mmAt := func(px decimal.Decimal) decimal.Decimal { // the tier's MM at price px
			return c.FaceValue.Mul(px).Mul(p.Contracts.Mul(t1.MaintenanceMarginRate).Sub(amtC)).Sub(amtU)
		}
		longGap := func(px decimal.Decimal) decimal.Decimal { return margin.Add(nf.Mul(px.Sub(entry))).Sub(mmAt(px)) }
		shortGap := func(px decimal.Decimal) decimal.Decimal { return margin.Add(nf.Mul(entry.Sub(px))).Sub(mmAt(px)) }
		if !long.None {
			if long.Price.Mod(tick).Sign() != 0 {
				t.Fatalf("%s: long %s off the tick %s", name, long.Price, tick)
			}
			// on the tick at or above the exact price: margin + PnL ≥ MM there, < MM a tick below
			if longGap(long.Price).IsNegative() || !longGap(long.Price.Sub(tick)).IsNegative() {
				t.Fatalf("%s: long %s is not the exact price rounded up to the tick (gap %s, a tick below %s)", name, long.Price, longGap(long.Price), longGap(long.Price.Sub(tick)))
			}
			if long.AtOnce != !longGap(entry).IsPositive() {
				t.Fatalf("%s: long at once %v, gap at entry %s", name, long.AtOnce, longGap(entry))
			}
		} else if longGap(decimal.Zero).IsNegative() {
			t.Fatalf("%s: long none, but at 0 margin + PnL − MM is %s", name, longGap(decimal.Zero))
		}
		if short.None {
			t.Fatalf("%s: short none", name)
		}
		if short.Price.Mod(tick).Sign() != 0 {
			t.Fatalf("%s: short %s off the tick %s", name, short.Price, tick)
		}
		if shortGap(short.Price).IsNegative() || !shortGap(short.Price.Add(tick)).IsNegative() {
			t.Fatalf("%s: short %s is not the exact price rounded down to the tick", name, short.Price)
		}
		if short.AtOnce != !shortGap(entry).IsPositive() {
			t.Fatalf("%s: short at once %v, gap at entry %s", name, short.AtOnce, shortGap(entry))
		}
		// the largest position at the leverage: within a tier allowing it,
		// and a contract more is not
		m := res.Max
		allows := func(n decimal.Decimal) bool {
			q := Position{Contracts: n, USDT: n.Mul(c.ContractValue())}
			i, err := l.TierOf(q)
			return err == nil && !l[i].MaxLever.LessThan(lev)
		}
		switch {
		case !m.Allowed:
			if allows(decimal.NewFromInt(1)) {
				t.Fatalf("%s: no tier allows %s×, but one contract is in a tier that does", name, lev)
			}
		case m.Unbounded:
			if !l.Open(len(l)-1) || l[len(l)-1].MaxLever.LessThan(lev) {
				t.Fatalf("%s: unbounded at %s×", name, lev)
			}
		default:
			if m.Position.Contracts.IsPositive() && !allows(m.Position.Contracts) || allows(m.Position.Contracts.Add(decimal.NewFromInt(1))) {
				t.Fatalf("%s: largest at %s× is %s cont", name, lev, m.Position.Contracts)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("%d of 3000 runs were answered and checked: too few to hold the calculator to anything", checked)
	}
	t.Logf("%d of 3000 runs answered and checked", checked)
}

// TestParseAmountCountsCharacters: the length rule counts what the trader
// typed in characters, as its message says (docs/calculator.md, "What a
// trader may type"): fourteen full-width digits, as an IME types them, are
// fourteen characters, not forty-two, and are no number rather than too long.
func TestParseAmountCountsCharacters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"１２３４５６７８９０１２３４", "Position size must be a number, like 1500"},
		{"1234567890123456789012345678901234567890", ""},
		{"12345678901234567890123456789012345678901", "Position size is 41 characters long: at most 40 are read"},
		{"１２３４５６７８９０１２３４５６７８９０１２３４５６７８９０１２３４５６７８９０１", "Position size is 41 characters long: at most 40 are read"},
	} {
		_, err := ParseAmount("size", tc.in)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ParseAmount(%q): %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("ParseAmount(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
