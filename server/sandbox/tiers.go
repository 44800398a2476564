package sandbox

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// ladder is the venue family's tier shape: position value bands in USDT,
// each with its maximum leverage and maintenance margin rate.
var ladder = []struct {
	upToUSDT int64  // upper bound of the band's position value
	lever    int64  // maximum leverage
	mmr      string // maintenance margin rate
}{
	{500_000, 100, "0.005"},
	{2_000_000, 50, "0.01"},
	{10_000_000, 25, "0.02"},
	{30_000_000, 10, "0.05"},
	{80_000_000, 5, "0.1"},
	{150_000_000, 3, "0.15"},
	{300_000_000, 2, "0.25"},
	{1_000_000_000, 1, "0.5"},
}

// tiers is the ladder of a swap: bands contiguous from 0, max leverage
// falling and the margin rate rising tier by tier. Assets with usdtTiers
// write bands in USDT; the others in contracts at the reference price. The
// last band is finite, as the venue writes it: nothing beyond it can be held.
func tiers(m Market, a asset) []venueapi.Tier {
	out := make([]venueapi.Tier, 0, len(ladder))
	contractValue := decimal.New(a.refPrice, -a.priceDecimals).Mul(a.face) // USDT per contract
	lower := decimal.Zero
	for i, t := range ladder {
		upper := decimal.NewFromInt(t.upToUSDT)
		unit := venueapi.UnitUSDT
		if !a.usdtTiers {
			unit = venueapi.UnitContract
			upper = upper.Div(contractValue).Floor()
		}
		lever := t.lever
		if a.dailyVolPPM > 40_000 { // wilder assets get half the leverage, at least 1
			lever = max(lever/2, 1)
		}
		out = append(out, venueapi.Tier{
			ContractCode: m.Code, MarginMode: venueapi.MarginCross, Tier: venueapi.TierNumber(i + 1),
			MaxLever: decimal.NewFromInt(lever), MaintenanceMarginRate: decimal.RequireFromString(t.mmr),
			MinVolume: lower, MaxVolume: upper, VolumeUnit: unit,
		})
		lower = upper
	}
	return out
}

// serveTiers answers endpoint 1 (signed).
func (s *Sandbox) serveTiers(w http.ResponseWriter, r *http.Request) {
	q, err := venueapi.ParseTierQuery(businessParams(r))
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
	s.writeJSON(w, venueapi.TierEnvelope{Code: venueapi.CodeOK, Message: "success", Data: tiers(m, a), Ts: now.UnixMilli()})
}

func (s *Sandbox) writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encoding an answer", "err", err)
		s.writeError(w, "", http.StatusInternalServerError, venueapi.CodeBusy, "venue busy")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// markPrice is the latest 1min close of m: the price limits are computed with.
func (s *Sandbox) markPrice(m Market, now time.Time) decimal.Decimal {
	c := s.series[m.Base].latest(venueapi.Period1Min, 1, now, 1_000_000+futureBasisPPM[m.Type])
	if len(c) == 0 {
		return decimal.Zero
	}
	return c[len(c)-1].Close
}
