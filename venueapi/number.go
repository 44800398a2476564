package venueapi

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// pow10 holds 10^0 … 10^18, every power of ten an int64 holds.
var pow10 = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// AppendDecimal appends d exactly as d.String() writes it. A coefficient of
// at most 18 digits, every price and size a venue sends, is written without
// allocating: formatting big.Ints was most of the cost of a KLine answer.
func AppendDecimal(b []byte, d decimal.Decimal) []byte {
	exp := d.Exponent()
	if exp > 0 || exp < -18 || d.NumDigits() > 18 || (exp < 0 && !decimal.TrimTrailingZeros) {
		return append(b, d.String()...)
	}
	c := d.CoefficientInt64()
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	p := pow10[-exp]
	b = strconv.AppendInt(b, c/p, 10)
	frac, digits := c%p, int(-exp)
	if frac == 0 {
		return b
	}
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], frac, 10)
	b = append(b, '.')
	for range digits - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}
