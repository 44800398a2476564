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
	Delivery      time.Time             // delivery instant of a future (08:00 UTC on a Friday)
}

// asset is what the sandbox knows of a base asset: its price level, tick,
// face value and daily volatility, and whether futures are listed on it.
type asset struct {
	base          string
	refPrice      int64 // price in ticks on the reference day
	priceDecimals int32
	face          decimal.Decimal
	dailyVolPPM   int64 // typical daily volatility, parts per million
	baseVolume    int64 // typical contracts traded per minute
	futures       bool
	usdtTiers     bool // tier bands in USDT rather than contracts
}

// assets is the sandbox's market, prices near real levels (late 2026).
var assets = []asset{
	{base: "BTC", refPrice: 950000, priceDecimals: 1, face: decimal.New(1, -3), dailyVolPPM: 28000, baseVolume: 4000, futures: true},
	{base: "ETH", refPrice: 330000, priceDecimals: 2, face: decimal.New(1, -2), dailyVolPPM: 36000, baseVolume: 5000, futures: true},
	{base: "SOL", refPrice: 180000, priceDecimals: 3, face: decimal.New(1, 0), dailyVolPPM: 48000, baseVolume: 900, usdtTiers: true},
	{base: "XRP", refPrice: 23000, priceDecimals: 4, face: decimal.New(10, 0), dailyVolPPM: 45000, baseVolume: 2500, usdtTiers: true},
	{base: "DOGE", refPrice: 250000, priceDecimals: 6, face: decimal.New(100, 0), dailyVolPPM: 55000, baseVolume: 3000, usdtTiers: true},
	{base: "LTC", refPrice: 9500, priceDecimals: 2, face: decimal.New(1, -1), dailyVolPPM: 42000, baseVolume: 700},
}

const quote = "USDT"

func assetOf(base string) (asset, bool) {
	for _, a := range assets {
		if a.base == base {
			return a, true
		}
	}
	return asset{}, false
}

// deliveries returns the delivery instants of the four listed futures at
// now: this_week and next_week are the nearest Friday deliveries at 08:00
// UTC, quarter and next_quarter the last Fridays of the next quarter months
// not already taken by the weeklies (the venue family's calendar).
func deliveries(now time.Time) map[venueapi.ContractType]time.Time {
	now = now.UTC()
	d := time.Date(now.Year(), now.Month(), now.Day(), 8, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Friday || !d.After(now) {
		d = d.AddDate(0, 0, 1)
	}
	out := map[venueapi.ContractType]time.Time{venueapi.TypeThisWeek: d, venueapi.TypeNextWeek: d.AddDate(0, 0, 7)}
	var quarters []time.Time
	for m := time.Date(now.Year(), now.Month(), 1, 8, 0, 0, 0, time.UTC); len(quarters) < 2; m = m.AddDate(0, 1, 0) {
		if m.Month()%3 != 0 {
			continue
		}
		q := lastFriday(m)
		if q.After(out[venueapi.TypeNextWeek]) {
			quarters = append(quarters, q)
		}
	}
	out[venueapi.TypeQuarter], out[venueapi.TypeNextQuarter] = quarters[0], quarters[1]
	return out
}

func lastFriday(month time.Time) time.Time {
	d := time.Date(month.Year(), month.Month()+1, 1, 8, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	for d.Weekday() != time.Friday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// markets lists every contract at now: a swap per asset, and the four dated
// futures of the assets that have them.
func markets(now time.Time) []Market {
	var out []Market
	del := deliveries(now)
	for _, a := range assets {
		out = append(out, Market{Code: a.base + "-" + quote, Base: a.base, Quote: quote, Type: venueapi.TypeSwap,
			Kind: venueapi.KindSwap, FaceValue: a.face, PriceDecimals: a.priceDecimals})
		if !a.futures {
			continue
		}
		types := []venueapi.ContractType{venueapi.TypeThisWeek, venueapi.TypeNextWeek, venueapi.TypeQuarter, venueapi.TypeNextQuarter}
		for _, t := range types {
			out = append(out, Market{Code: fmt.Sprintf("%s-%s-%s", a.base, quote, del[t].Format("060102")), Base: a.base, Quote: quote,
				Type: t, Kind: venueapi.KindFuture, FaceValue: a.face, PriceDecimals: a.priceDecimals, Delivery: del[t]})
		}
	}
	return out
}

// resolve finds the market a contract code names at now: a swap, a listed
// dated future, or the future a -CW/-NW/-CQ/-NQ code stands for. A
// well-formed code that is not listed is venueapi.CodeNoSuchContract.
func resolve(code string, now time.Time) (Market, error) {
	c, err := venueapi.ParseContractCode(code)
	if err != nil {
		return Market{}, err
	}
	for _, m := range markets(now) {
		switch {
		case c.Kind == venueapi.KindTypeCode && m.Base == c.Base && m.Quote == c.Quote && m.Type == c.Type:
			return m, nil
		case m.Code == code:
			return m, nil
		}
	}
	return Market{}, errNoSuchContract{code}
}

type errNoSuchContract struct{ code string }

func (e errNoSuchContract) Error() string {
	return fmt.Sprintf("contract %s is not listed", e.code)
}
