package studies

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"
)

// places is the number of decimal places every quotient (a mean, a
// smoothing step, RSI) and the standard deviation are rounded to.
const places = 12

var invalid = decimal.NullDecimal{}

func valid(d decimal.Decimal) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: d, Valid: true}
}

// div is a/b rounded half away from zero to places decimal places, as
// a.DivRound(b, places). Most quotients here fit in machine words (prices
// with a few decimals, means rounded to 12 places): those are done with
// 128-bit integer arithmetic, which is several times faster than DivRound's
// big numbers; the rest go to DivRound.
func div(a, b decimal.Decimal) decimal.Decimal {
	k := int(a.Exponent()) - int(b.Exponent()) + places // a/b = ca·10^k/cb × 10^-places
	if a.NumDigits() > 18 || b.NumDigits() > 18 || k < 0 || k > 19 {
		return a.DivRound(b, places)
	}
	ca, cb := a.CoefficientInt64(), b.CoefficientInt64()
	if cb == 0 {
		return a.DivRound(b, places) // DivRound's own answer to a division by zero
	}
	neg := (ca < 0) != (cb < 0)
	ua, ub := absU(ca), absU(cb)
	scale := uint64(1)
	for range k {
		scale *= 10
	}
	hi, lo := bits.Mul64(ua, scale)
	if hi >= ub { // the quotient would not fit in 64 bits
		return a.DivRound(b, places)
	}
	q, r := bits.Div64(hi, lo, ub)
	if r >= ub-r { // r/ub ≥ ½: round away from zero
		q++
	}
	if q > math.MaxInt64 {
		return a.DivRound(b, places)
	}
	v := int64(q)
	if neg {
		v = -v
	}
	return decimal.New(v, -places)
}

func absU(x int64) uint64 {
	if x < 0 {
		return uint64(-x) // also right for math.MinInt64, whose uint64 is 1<<63
	}
	return uint64(x)
}

// stdDev is the population standard deviation of n values whose sum is sum
// and whose sum of squares is sq, rounded down to places decimal places:
// sqrt(n·sq − sum²)/n, computed with an exact integer square root.
func stdDev(n decimal.Decimal, sum, sq decimal.Decimal) decimal.Decimal {
	spread := n.Mul(sq).Sub(sum.Mul(sum)) // n² × variance, exact
	if spread.Sign() <= 0 {
		return decimal.Zero
	}
	// floor(sqrt(floor(x))) = floor(sqrt(x)) and floor(floor(y)/n) =
	// floor(y/n), so truncating before each step loses nothing.
	r := spread.Shift(2 * places).BigInt()
	r.Sqrt(r)
	r.Quo(r, n.BigInt())
	return decimal.NewFromBigInt(r, -places)
}

func newStudy(s Spec) study {
	switch s.Kind {
	case MA, VolMA, BOLL:
		return newWindow(s)
	case EMA:
		return &emaStudy{name: s.Label(), e: newEMA(s.Period)}
	case MACD:
		return &macdStudy{fast: newEMA(MACDFast), slow: newEMA(MACDSlow), signal: newEMA(MACDSignal)}
	case RSI:
		return newRSI(RSIPeriod)
	}
	return &emptyStudy{}
}

// emptyStudy stands for a Spec that ParseSpecs would not return: no lines.
type emptyStudy struct{}

func (*emptyStudy) push([]point)              {}
func (*emptyStudy) truncate(int)              {}
func (*emptyStudy) prepend(int, []point) bool { return true }
func (*emptyStudy) lines() []Line             { return nil }

// window is a simple moving average of the close (MA, and BOLL's middle band
// with the bands around it) or of the volume (VOL MA), from running sums.
type window struct {
	n      int
	nD     decimal.Decimal
	vol    bool // average the volume, not the close
	boll   bool // also the bands, from the sum of squares
	width  decimal.Decimal
	name   string
	sum    []decimal.Decimal // sum over the window ending at each index (shorter at the start)
	sq     []decimal.Decimal // sum of squares likewise, for BOLL
	mid    []decimal.NullDecimal
	up, lo []decimal.NullDecimal
}

func newWindow(s Spec) *window {
	w := &window{n: s.period(), vol: s.Kind == VolMA, boll: s.Kind == BOLL, name: s.Label()}
	w.nD = decimal.NewFromInt(int64(w.n))
	w.width = decimal.NewFromInt(BollWidth)
	return w
}

func (w *window) x(p point) decimal.Decimal {
	if w.vol {
		return p.vol
	}
	return p.close
}

func (w *window) push(pts []point) {
	i := len(w.sum)
	x := w.x(pts[i])
	s := x
	var sq decimal.Decimal
	if w.boll {
		sq = x.Mul(x)
	}
	if i > 0 {
		s = w.sum[i-1].Add(s)
		if w.boll {
			sq = w.sq[i-1].Add(sq)
		}
	}
	if i >= w.n {
		out := w.x(pts[i-w.n])
		s = s.Sub(out)
		if w.boll {
			sq = sq.Sub(out.Mul(out))
		}
	}
	w.sum = append(w.sum, s)
	if w.boll {
		w.sq = append(w.sq, sq)
	}
	if i < w.n-1 {
		w.mid = append(w.mid, invalid)
		if w.boll {
			w.up, w.lo = append(w.up, invalid), append(w.lo, invalid)
		}
		return
	}
	m := div(s, w.nD)
	w.mid = append(w.mid, valid(m))
	if w.boll {
		band := stdDev(w.nD, s, sq).Mul(w.width)
		w.up, w.lo = append(w.up, valid(m.Add(band))), append(w.lo, valid(m.Sub(band)))
	}
}

func (w *window) truncate(n int) {
	n = min(n, len(w.sum))
	w.sum, w.mid = w.sum[:n], w.mid[:n]
	if w.boll {
		w.sq, w.up, w.lo = w.sq[:n], w.up[:n], w.lo[:n]
	}
}

// prepend keeps the values whose window lies in the old series (old index
// n-1 on) and computes the rest: the new candles' and the n-1 old ones whose
// windows now reach into the new candles.
func (w *window) prepend(p int, pts []point) bool {
	old := *w
	w.sum, w.sq, w.mid, w.up, w.lo = nil, nil, nil, nil, nil
	keep := min(w.n-1, len(pts)-p) // old index from which values are kept
	for len(w.sum) < p+keep {
		w.push(pts)
	}
	w.sum = append(w.sum, old.sum[keep:len(pts)-p]...)
	w.mid = append(w.mid, old.mid[keep:len(pts)-p]...)
	if w.boll {
		w.sq = append(w.sq, old.sq[keep:len(pts)-p]...)
		w.up = append(w.up, old.up[keep:len(pts)-p]...)
		w.lo = append(w.lo, old.lo[keep:len(pts)-p]...)
	}
	return true
}

func (w *window) lines() []Line {
	pane := PanePrice
	if w.vol {
		pane = PaneVolume
	}
	if !w.boll {
		return []Line{{Name: w.name, Pane: pane, Values: w.mid}}
	}
	return []Line{
		{Name: "BOLL upper", Pane: PanePrice, Values: w.up},
		{Name: "BOLL middle", Pane: PanePrice, Values: w.mid},
		{Name: "BOLL lower", Pane: PanePrice, Values: w.lo},
	}
}

// ema is an exponential moving average of a series that is invalid for a
// while and then valid to its end: seeded with the simple mean of the first
// n valid inputs, then ema = previous + 2·(x − previous)/(n+1), the step
// rounded to places decimal places.
type ema struct {
	n      int
	nD, n1 decimal.Decimal // n, n+1
	first  int             // index of the first valid input, -1 before it
	sum    []decimal.Decimal
	out    []decimal.NullDecimal
}

func newEMA(n int) *ema {
	return &ema{n: n, nD: decimal.NewFromInt(int64(n)), n1: decimal.NewFromInt(int64(n + 1)), first: -1}
}

func (e *ema) push(x decimal.NullDecimal) decimal.NullDecimal {
	i := len(e.out)
	if !x.Valid {
		e.out = append(e.out, invalid)
		return invalid
	}
	if e.first < 0 {
		e.first = i
	}
	k := i - e.first // how many valid inputs came before this one
	if k < e.n {
		s := x.Decimal
		if k > 0 {
			s = e.sum[k-1].Add(s)
		}
		e.sum = append(e.sum[:k], s)
		v := invalid
		if k == e.n-1 {
			v = valid(div(s, e.nD))
		}
		e.out = append(e.out, v)
		return v
	}
	prev := e.out[i-1].Decimal
	// prev + α·(x − prev), α = 2/(n+1): the step is rounded, not the sum,
	// which keeps the numbers small enough for div's fast path.
	d := x.Decimal.Sub(prev)
	v := valid(prev.Add(div(d.Add(d), e.n1)))
	e.out = append(e.out, v)
	return v
}

func (e *ema) truncate(n int) {
	n = min(n, len(e.out))
	e.out = e.out[:n]
	switch {
	case e.first >= n:
		e.first, e.sum = -1, e.sum[:0]
	case e.first >= 0:
		e.sum = e.sum[:min(len(e.sum), n-e.first)]
	}
}

// emaStudy is EMA n of the close.
type emaStudy struct {
	name string
	e    *ema
}

func (s *emaStudy) push(pts []point)          { s.e.push(valid(pts[len(s.e.out)].close)) }
func (s *emaStudy) truncate(n int)            { s.e.truncate(n) }
func (s *emaStudy) prepend(int, []point) bool { return false }
func (s *emaStudy) lines() []Line             { return []Line{{Name: s.name, Pane: PanePrice, Values: s.e.out}} }

// macdStudy is MACD: DIF = EMA fast − EMA slow of the close, DEA = EMA
// signal of DIF, histogram = DIF − DEA.
type macdStudy struct {
	fast, slow, signal *ema
	dif, hist          []decimal.NullDecimal
}

func (m *macdStudy) push(pts []point) {
	c := valid(pts[len(m.dif)].close)
	f, s := m.fast.push(c), m.slow.push(c)
	dif := invalid
	if f.Valid && s.Valid {
		dif = valid(f.Decimal.Sub(s.Decimal))
	}
	m.dif = append(m.dif, dif)
	hist := invalid
	if dea := m.signal.push(dif); dea.Valid {
		hist = valid(dif.Decimal.Sub(dea.Decimal))
	}
	m.hist = append(m.hist, hist)
}

func (m *macdStudy) truncate(n int) {
	n = min(n, len(m.dif))
	m.fast.truncate(n)
	m.slow.truncate(n)
	m.signal.truncate(n)
	m.dif, m.hist = m.dif[:n], m.hist[:n]
}

func (m *macdStudy) prepend(int, []point) bool { return false }

func (m *macdStudy) lines() []Line {
	return []Line{
		{Name: "MACD DIF", Pane: PaneMACD, Values: m.dif},
		{Name: "MACD DEA", Pane: PaneMACD, Values: m.signal.out},
		{Name: "MACD hist", Pane: PaneMACD, Bars: true, Values: m.hist},
	}
}

// rsiStudy is RSI n with Wilder's smoothing of gains and losses.
type rsiStudy struct {
	n          int
	name       string
	nD, n1, h  decimal.Decimal // n, n−1, 100
	gain, loss []decimal.Decimal
	out        []decimal.NullDecimal
}

func newRSI(n int) *rsiStudy {
	return &rsiStudy{n: n, name: "RSI " + strconv.Itoa(n), nD: decimal.NewFromInt(int64(n)), n1: decimal.NewFromInt(int64(n - 1)), h: decimal.NewFromInt(100)}
}

// push keeps, at index i, the running sums of the gains and losses of
// candles 1..i while i < n, and their Wilder averages from i = n on.
func (r *rsiStudy) push(pts []point) {
	i := len(r.out)
	if i == 0 {
		r.gain, r.loss, r.out = append(r.gain, decimal.Zero), append(r.loss, decimal.Zero), append(r.out, invalid)
		return
	}
	d := pts[i].close.Sub(pts[i-1].close)
	g, l := decimal.Zero, decimal.Zero
	if d.Sign() > 0 {
		g = d
	} else {
		l = d.Neg()
	}
	switch {
	case i < r.n:
		g, l = r.gain[i-1].Add(g), r.loss[i-1].Add(l)
	case i == r.n:
		g, l = div(r.gain[i-1].Add(g), r.nD), div(r.loss[i-1].Add(l), r.nD)
	default:
		g, l = div(r.gain[i-1].Mul(r.n1).Add(g), r.nD), div(r.loss[i-1].Mul(r.n1).Add(l), r.nD)
	}
	r.gain, r.loss = append(r.gain, g), append(r.loss, l)
	v := invalid
	switch {
	case i < r.n:
	case l.Sign() == 0:
		v = valid(r.h)
	default:
		// 100 − 100/(1 + g/l) = 100·g/(g + l): one rounding instead of two.
		v = valid(div(r.h.Mul(g), g.Add(l)))
	}
	r.out = append(r.out, v)
}

func (r *rsiStudy) truncate(n int) {
	n = min(n, len(r.out))
	r.gain, r.loss, r.out = r.gain[:n], r.loss[:n], r.out[:n]
}

func (r *rsiStudy) prepend(int, []point) bool { return false }

func (r *rsiStudy) lines() []Line { return []Line{{Name: r.name, Pane: PaneRSI, Values: r.out}} }
