package studies

import (
	"math/bits"

	"github.com/shopspring/decimal"
)

// num is a study's running number: a machine word counting 10^-12 units
// while the value fits, a decimal otherwise. Every operation is exact, or
// rounds as div does, in both forms, so the form never changes a result;
// the word form only spares the allocations of big numbers, which were
// most of the time a Reset took.
type num struct {
	i   int64           // the value × 10^12, when !big; |i| < numLimit
	d   decimal.Decimal // the value, when big
	big bool
}

// numLimit bounds the word form so that adding two never overflows.
const numLimit = 1 << 62

// unit is 10^places, the word form's 1.
const unit = 1_000_000_000_000

func small(i int64) num { return num{i: i} }

func bigNum(d decimal.Decimal) num { return num{d: d, big: true} }

// numOf converts d, in the word form when it has at most places decimals
// and fits.
func numOf(d decimal.Decimal) num {
	e := int(d.Exponent())
	if e < -places || d.NumDigits()+places+e > 18 {
		return bigNum(d)
	}
	i := d.CoefficientInt64()
	for range places + e {
		i *= 10
	}
	return small(i)
}

func (a num) dec() decimal.Decimal {
	if a.big {
		return a.d
	}
	return decimal.New(a.i, -places)
}

func inRange(i int64) bool { return i > -numLimit && i < numLimit }

func (a num) add(b num) num {
	if !a.big && !b.big {
		if r := a.i + b.i; inRange(r) {
			return small(r)
		}
	}
	return bigNum(a.dec().Add(b.dec()))
}

func (a num) sub(b num) num {
	if !a.big && !b.big {
		if r := a.i - b.i; inRange(r) {
			return small(r)
		}
	}
	return bigNum(a.dec().Sub(b.dec()))
}

func (a num) neg() num {
	if a.big {
		return bigNum(a.d.Neg())
	}
	return small(-a.i)
}

func (a num) sign() int {
	switch {
	case a.big:
		return a.d.Sign()
	case a.i > 0:
		return 1
	case a.i < 0:
		return -1
	}
	return 0
}

// mulInt is a·k for 0 < k < 2^31.
func (a num) mulInt(k int64) num {
	if !a.big && a.i > -numLimit/k && a.i < numLimit/k {
		return small(a.i * k)
	}
	return bigNum(a.dec().Mul(decimal.NewFromInt(k)))
}

// divInt is a/k rounded as div rounds, for k > 0.
func (a num) divInt(k int64) num {
	if a.big {
		return numOf(div(a.d, decimal.NewFromInt(k)))
	}
	q, r := a.i/k, a.i%k
	if r < 0 {
		r = -r
	}
	if r >= k-r { // half or more: away from zero
		if a.i < 0 {
			q--
		} else {
			q++
		}
	}
	return small(q)
}

// quo is a/b rounded as div rounds, for b ≠ 0.
func (a num) quo(b num) num {
	if !a.big && !b.big && b.i != 0 {
		ua, ub := absU(a.i), absU(b.i)
		hi, lo := bits.Mul64(ua, unit)
		if hi < ub {
			q, r := bits.Div64(hi, lo, ub)
			if r >= ub-r {
				q++
			}
			if q < numLimit {
				if (a.i < 0) != (b.i < 0) {
					return small(-int64(q))
				}
				return small(int64(q))
			}
		}
	}
	return numOf(div(a.dec(), b.dec()))
}
