package chartopt

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// appendFixed appends d rounded half away from zero to places decimals, as
// d.StringFixed(places) writes it, in machine words when d's coefficient and
// the rounded value fit in one: StringFixed rounds through big integers, and
// writing eleven study lines of 2300 values that way took about 30 ms of a
// full draw in wasm (docs/performance.md).
func appendFixed(b []byte, d decimal.Decimal, places int32) []byte {
	n := d.NumDigits()
	shift := -int(d.Exponent()) - int(places) // decimal digits to drop (negative: zeros to add)
	if places < 1 || places > 18 || n > 18 || shift > 18 || n-shift > 18 {
		return append(b, d.StringFixed(places)...)
	}
	q := d.CoefficientInt64() // becomes the rounded value, in units of 10^-places
	if shift > 0 {
		p := pow10(shift)
		r := q % p
		q /= p
		if r >= p/2 {
			q++
		} else if -r >= p/2 {
			q--
		}
	} else {
		q *= pow10(-shift)
	}
	u := uint64(q)
	if q < 0 {
		b = append(b, '-')
		u = -u
	}
	var buf [20]byte
	digits := strconv.AppendUint(buf[:0], u, 10)
	if cut := len(digits) - int(places); cut > 0 {
		b = append(b, digits[:cut]...)
		digits = digits[cut:]
	} else {
		b = append(b, '0')
	}
	b = append(b, '.')
	for range int(places) - len(digits) { // zeros after the point, below 10^-1
		b = append(b, '0')
	}
	return append(b, digits...)
}

// pow10 is 10^n for 0 <= n <= 18.
func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
