package sandbox

import (
	"net/http"
	"net/url"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// rung is one tier of a ladder: up to a position value, a maximum leverage
// and a maintenance margin rate. The rate stays below half the initial
// margin (1 / leverage), as on the venue family's ladders.
type rung struct {
	upToUSDT int64 // upper bound of the band's position value
	lever    int64 // maximum leverage
	mmrBP    int64 // maintenance margin rate, basis points
}

// The two ladders: majors from 200x, the others from 75x.
var (
	majorLadder = []rung{
		{500_000, 200, 40}, {2_000_000, 100, 50}, {8_000_000, 50, 100}, {20_000_000, 20, 250},
		{50_000_000, 10, 500}, {100_000_000, 8, 600}, {200_000_000, 6, 800}, {400_000_000, 5, 1000},
	}
	altLadder = []rung{
		{100_000, 75, 65}, {500_000, 50, 100}, {2_000_000, 25, 200}, {5_000_000, 20, 250},
		{10_000_000, 10, 500}, {25_000_000, 5, 1000}, {50_000_000, 4, 1250}, {100_000_000, 3, 1600},
	}
)

// tiers is the ladder of market m: bands contiguous from 0, leverage falling
// and the margin rate rising tier by tier, in contracts (at the reference
// price, rounded down to two significant digits, as a venue writes them) or
// in USDT. The last band is finite: it is the largest position an account
// may hold, which is what the venue's last max_volume means.
func tiers(m Market, a asset) []venueapi.Tier {
	out := make([]venueapi.Tier, 0, len(a.ladder))
	perContract := decimal.New(a.refPrice, -a.priceDecimals).Mul(a.face) // USDT
	lower := decimal.Zero
	for i, t := range a.ladder {
		upper := decimal.NewFromInt(t.upToUSDT)
		if a.tierUnit == venueapi.UnitContract {
			upper = decimal.NewFromInt(twoDigits(upper.Div(perContract).IntPart()))
		}
		out = append(out, venueapi.Tier{
			ContractCode: m.Code, MarginMode: venueapi.MarginCross, Tier: venueapi.TierNumber(i + 1),
			MaxLever: decimal.NewFromInt(t.lever), MaintenanceMarginRate: decimal.New(t.mmrBP, -4),
			MinVolume: lower, MaxVolume: upper, VolumeUnit: a.tierUnit,
		})
		lower = upper
	}
	return out
}

// twoDigits rounds n down to two significant digits: 5263 → 5200.
func twoDigits(n int64) int64 {
	p := int64(1)
	for n/p >= 100 {
		p *= 10
	}
	return n / p * p
}

// serveTiers answers endpoint 1 (signed): the ladder of a listed swap.
func (s *Sandbox) serveTiers(w http.ResponseWriter, _ *http.Request, query url.Values) {
	q, err := venueapi.ParseTierQuery(query)
	if err != nil {
		s.writeParamError(w, venueapi.PathTiers, err)
		return
	}
	now := s.now()
	m, err := resolve(q.ContractCode, now)
	if err != nil {
		s.writeParamError(w, venueapi.PathTiers, err)
		return
	}
	a, _ := assetOf(m.Base)
	s.writeJSON(w, venueapi.PathTiers, venueapi.TierEnvelope{Code: venueapi.CodeOK, Message: "success", Data: tiers(m, a), Ts: now.UnixMilli()})
}
