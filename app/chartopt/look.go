package chartopt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/opts"
)

// Scale is the price axis' scale (?scale=).
type Scale string

// The price scales. Percent draws prices on a linear axis whose labels say
// how far each is from the close of the first candle in view.
const (
	ScaleLinear  Scale = ""
	ScaleLog     Scale = "log"
	ScalePercent Scale = "percent"
)

// Kind is how candles are drawn (?style=).
type Kind string

// The chart styles. Hollow candles draw rising bodies as outlines; OHLC bars,
// the line and the area are ECharts custom series (styles.go).
const (
	KindCandles Kind = ""
	KindHollow  Kind = "hollow"
	KindOHLC    Kind = "ohlc"
	KindLine    Kind = "line"
	KindArea    Kind = "area"
)

// The rules ParseScale and ParseKind hold a value to, in the words every
// error and notice about it uses (the URL's and riskchart:set's).
const (
	ScaleRule = "must be linear, log or percent"
	KindRule  = "must be candles, hollow, ohlc, line or area"
)

// ParseScale reads ?scale=: linear, log or percent.
func ParseScale(s string) (Scale, error) {
	switch s {
	case "linear":
		return ScaleLinear, nil
	case "log", "percent":
		return Scale(s), nil
	}
	return ScaleLinear, fmt.Errorf("scale=%s (scale %s)", s, ScaleRule)
}

// ParseKind reads ?style=: candles, hollow, ohlc, line or area.
func ParseKind(s string) (Kind, error) {
	switch s {
	case "candles":
		return KindCandles, nil
	case "hollow", "ohlc", "line", "area":
		return Kind(s), nil
	}
	return KindCandles, fmt.Errorf("style=%s (style %s)", s, KindRule)
}

// applyLook puts the scale and the chart style of s into the frame.
func applyLook(o *option, s Style) {
	if s.Scale == ScaleLog {
		o.YAxis[0].Type = "log"
		// ECharts widens a log axis to whole powers of ten: the candles of a
		// day (96,700 to 98,800) were a line along the top of an axis from
		// 10,000 to 100,000. It spans the prices in view instead, as a linear
		// axis with scale does (scale is a linear axis' option).
		o.YAxis[0].Scale = opts.Bool(false)
		o.YAxis[0].Min, o.YAxis[0].Max = "dataMin", "dataMax"
	}
	if s.Kind == KindHollow {
		// Rising bodies drawn as outlines in the rising colour; falling ones filled.
		o.Series[SeriesPrice].ItemStyle.Color = "transparent"
	}
	applyCustomKind(o, s)
}

// FormatPrice writes v with decimals digits (the contract's tick; < 0:
// as few as it needs) and thousands separators, as the legend and the
// tables write prices.
func FormatPrice(v float64, decimals int32) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	s := strconv.FormatFloat(v, 'f', int(decimals), 64)
	return Group(s)
}

// PriceStep is the least interval between the price axis' labels of a
// contract quoted to decimals (its price tick, 10^-decimals), which the app
// hands ECharts as the axis' minInterval; 0 when decimals < 0 (not known).
// Left to itself, ECharts splits a narrow range finer than the tick (1000
// to 1002 at 1000.5, 1001.5), and FormatPrice writes two lines the same
// label ("1,000", "1,000", "1,001", "1,002", "1,002").
func PriceStep(decimals int32) float64 {
	if decimals < 0 {
		return 0
	}
	return math.Pow10(-int(decimals)) // 1 / 10^decimals, exact divisor: the double nearest 10^-decimals
}

// FormatPercent writes how far v is from base, in percent with two
// decimals and a sign ("+1.25%"); "" when base is not a price.
func FormatPercent(v, base float64) string {
	if base == 0 || math.IsNaN(base) || math.IsNaN(v) {
		return ""
	}
	p := (v/base - 1) * 100
	s := strconv.FormatFloat(p, 'f', 2, 64)
	if s == "-0.00" {
		s = "0.00"
	}
	if p > 0 && s != "0.00" {
		s = "+" + s
	}
	return s + "%"
}

// Group puts thousands separators (",") into the integer part of a decimal
// number written in plain digits ("-98761.25" → "-98,761.25").
func Group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if len(whole) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.Grow(len(s) + len(whole)/3 + 1)
	b.WriteString(sign)
	head := len(whole) % 3
	if head > 0 {
		b.WriteString(whole[:head])
	}
	for i := head; i < len(whole); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(whole[i : i+3])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
