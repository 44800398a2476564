package sandbox

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Market is a listed contract.
type Market struct {
	Code          string // e.g. "BTC-USDT" or "BTC-USDT-261225"
	Base, Quote   string
	Type          venueapi.ContractType // swap, this_week, next_week, quarter, next_quarter
	Kind          venueapi.ContractKind // swap or dated future
	FaceValue     decimal.Decimal       // in the base asset
	PriceDecimals int32                 // tick precision
	Delivery      time.Time             // delivery instant of a future (08:00 UTC on a Friday); zero for a swap
}

// Pair is the market's pair, <BASE>-<QUOTE>.
func (m Market) Pair() string { return m.Base + "-" + m.Quote }

// asset is what the sandbox knows of a base asset.
type asset struct {
	base          string
	refPrice      int64 // price in ticks on refDay
	priceDecimals int32 // a tick is 10^-priceDecimals USDT
	face          decimal.Decimal
	dailyVolPPM   int64 // typical daily volatility, parts per million
	perMinute     int64 // typical contracts traded a minute
	basisPPM      int64 // annual premium of its futures over the swap, ppm
	futures       bool  // dated futures are listed
	tierUnit      string
	ladder        []rung
}

// assets is the sandbox's market: prices near real levels (late 2026), the
// venue family's face values, and turnovers of a mid-sized venue.
var assets = []asset{
	{base: "BTC", refPrice: 950000, priceDecimals: 1, face: decimal.New(1, -3), dailyVolPPM: 28000, perMinute: 20000,
		basisPPM: 60000, futures: true, tierUnit: venueapi.UnitContract, ladder: majorLadder},
	{base: "ETH", refPrice: 330000, priceDecimals: 2, face: decimal.New(1, -2), dailyVolPPM: 36000, perMinute: 30000,
		basisPPM: 70000, futures: true, tierUnit: venueapi.UnitContract, ladder: majorLadder},
	{base: "SOL", refPrice: 180000, priceDecimals: 3, face: decimal.New(1, 0), dailyVolPPM: 48000, perMinute: 1500,
		tierUnit: venueapi.UnitUSDT, ladder: altLadder},
	{base: "XRP", refPrice: 23000, priceDecimals: 4, face: decimal.New(10, 0), dailyVolPPM: 45000, perMinute: 9000,
		tierUnit: venueapi.UnitUSDT, ladder: altLadder},
	{base: "DOGE", refPrice: 250000, priceDecimals: 6, face: decimal.New(100, 0), dailyVolPPM: 55000, perMinute: 5500,
		tierUnit: venueapi.UnitUSDT, ladder: altLadder},
	{base: "LTC", refPrice: 9500, priceDecimals: 2, face: decimal.New(1, -1), dailyVolPPM: 42000, perMinute: 3600,
		tierUnit: venueapi.UnitContract, ladder: altLadder},
	// A coin worth a thousandth of a cent, quoted to nine decimals: its
	// prices are the longest a chart writes ("0.000012345").
	{base: "SHIB", refPrice: 12345, priceDecimals: 9, face: decimal.New(1000, 0), dailyVolPPM: 60000, perMinute: 12000,
		tierUnit: venueapi.UnitUSDT, ladder: altLadder},
}

// quote is the quote asset of every contract: the venue is USDT-margined.
const quote = "USDT"

func assetOf(base string) (asset, bool) {
	for _, a := range assets {
		if a.base == base {
			return a, true
		}
	}
	return asset{}, false
}

// markets lists every contract at now: a swap per asset, and the four dated
// futures of the assets that have them.
func markets(now time.Time) []Market {
	out := make([]Market, 0, 14)
	del := deliveries(now)
	for _, a := range assets {
		m := Market{Code: a.base + "-" + quote, Base: a.base, Quote: quote, Type: venueapi.TypeSwap,
			Kind: venueapi.KindSwap, FaceValue: a.face, PriceDecimals: a.priceDecimals}
		out = append(out, m)
		if !a.futures {
			continue
		}
		for i, t := range futureTypes {
			m.Code, m.Type, m.Kind, m.Delivery = m.Pair()+"-"+del[i].Format("060102"), t, venueapi.KindFuture, del[i]
			out = append(out, m)
		}
	}
	return out
}

// resolve finds the market a contract code names at now: a swap, a listed
// dated future, or the future a -CW/-NW/-CQ/-NQ code stands for. A
// malformed code is a *venueapi.ParamError; a well-formed one that is not
// listed is an errNotListed.
func resolve(code string, now time.Time) (Market, error) {
	c, err := venueapi.ParseContractCode(code)
	if err != nil {
		return Market{}, err
	}
	for _, m := range markets(now) {
		if m.Code == code || (c.Kind == venueapi.KindTypeCode && m.Pair() == c.Pair() && m.Type == c.Type) {
			return m, nil
		}
	}
	return Market{}, errNotListed{"contract_code", code}
}

// errNotListed is a well-formed contract code or pair that names nothing
// listed (1013, docs/decisions.md#contract-codes): param is the parameter
// that named it, and the message names both (docs/decisions.md#error-codes).
type errNotListed struct{ param, name string }

func (e errNotListed) Error() string {
	return fmt.Sprintf("unknown %s: the venue does not list %s", e.param, e.name)
}
