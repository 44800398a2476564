package venueapi

import (
	"fmt"
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

// maxWireDigits bounds a number read from the wire: at most this many
// digits, its point at most this many places from them. Every price, size
// and rate is far inside it; past it, a number as short as
// 1e-2000000000 would take gigabytes and minutes to write out
// (decimal.String) or to reckon with, from twenty bytes of an answer.
const maxWireDigits = 64

// maxWireText is the longest text of a number read (maxWireDigits digits,
// a sign, a point, an exponent, quotes): a longer one is not parsed at all.
const maxWireText = maxWireDigits + 16

// wireBounded reports whether d is within maxWireDigits.
func wireBounded(d decimal.Decimal) bool {
	e := d.Exponent()
	return e >= -maxWireDigits && e <= maxWireDigits && d.NumDigits() <= maxWireDigits
}

// wireDecimal is a record's number as the slow decoders read it: a JSON
// number or string, or null (Valid false), within maxWireDigits.
type wireDecimal struct{ decimal.NullDecimal }

// UnmarshalJSON reads b, refusing a number past maxWireDigits before it
// costs anything.
func (w *wireDecimal) UnmarshalJSON(b []byte) error {
	if len(b) > maxWireText {
		return fmt.Errorf("a number of %d characters: at most %d digits are read", len(b), maxWireDigits)
	}
	if err := w.NullDecimal.UnmarshalJSON(b); err != nil {
		return err
	}
	if w.Valid && !wireBounded(w.Decimal) {
		return fmt.Errorf("%s is out of range: at most %d digits, the point at most %d places from them", b, maxWireDigits, maxWireDigits)
	}
	return nil
}
