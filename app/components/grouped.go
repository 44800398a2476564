package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// grouped writes d exactly, as the venue's digits, with thousands separators
// in its integer part: the axis, the legend and the tables group alike. The
// digits are d.String()'s, written without math/big
// (docs/startup.md#the-candles-labels-and-digits).
func grouped(d decimal.Decimal) string {
	var buf [32]byte
	return chartopt.Group(string(venueapi.AppendDecimal(buf[:0], d)))
}
