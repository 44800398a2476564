package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// legendValues is what the legend shows of one candle, formatted: prices
// with the contract's precision (or as the venue wrote them when it is not
// known), the change and its percentage computed exactly.
type legendValues struct {
	Open, High, Low, Close, Change, ChangePct, Vol, Amount, Turnover, Count string
	Up                                                                      bool
}

// legendOf formats candle c; decimals < 0 keeps the venue's digits.
func legendOf(c venueapi.Candle, decimals int32) legendValues {
	px := func(d decimal.Decimal) string { return priceText(d, decimals) }
	change := c.Close.Sub(c.Open)
	pct := "—"
	if !c.Open.IsZero() {
		pct = change.Mul(decimal.NewFromInt(100)).DivRound(c.Open, 2).StringFixed(2) + "%"
		if change.IsPositive() {
			pct = "+" + pct
		}
	}
	ch := px(change)
	if change.IsPositive() {
		ch = "+" + ch
	}
	return legendValues{
		Open: px(c.Open), High: px(c.High), Low: px(c.Low), Close: px(c.Close), Change: ch, ChangePct: pct,
		Vol: grouped(c.Vol), Amount: grouped(c.Amount), Turnover: grouped(c.TradeTurnover), Count: grouped(c.Count),
		Up: !c.Close.LessThan(c.Open),
	}
}
