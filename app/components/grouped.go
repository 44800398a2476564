package components

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
)

// grouped writes d exactly, as the venue's digits, with thousands separators
// in its integer part: the axis, the legend and the tables group alike.
func grouped(d decimal.Decimal) string { return chartopt.Group(d.String()) }
