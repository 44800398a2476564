package studies

import (
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/shopspring/decimal"
)

// places is the number of decimal places every quotient (a mean, a
// smoothing step, RSI) and the standard deviation are rounded to.
const places = 12

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
	if q >= math.MaxInt64 { // the rounded quotient may not fit in an int64 (and q+1 may wrap)
		return a.DivRound(b, places)
	}
	if r >= ub-r { // r/ub ≥ ½: round away from zero
		q++
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

// stdDev is the population standard deviation of xs, rounded down to
// places decimal places: sqrt(n·Σd² − (Σd)²)/n with d = x − xs[len-1]
// (any shift gives the same exact value; this one keeps d small), computed
// with an exact integer square root.
func stdDev(xs []point) num {
	if s, ok := stdDevWords(xs); ok {
		return small(s)
	}
	return numOf(stdDevDecimal(xs))
}

// stdDevDecimal is stdDev in decimals, for any closes.
func stdDevDecimal(xs []point) decimal.Decimal {
	last := xs[len(xs)-1].close
	var s1, s2 decimal.Decimal
	for _, p := range xs {
		d := p.close.Sub(last)
		s1, s2 = s1.Add(d), s2.Add(d.Mul(d))
	}
	n := decimal.NewFromInt(int64(len(xs)))
	spread := n.Mul(s2).Sub(s1.Mul(s1)) // n² × variance, exact
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

// stdDevWords is stdDev in machine words, for closes with at most 6
// decimals that differ by less than about 2000 within the window; ok is
// false for others.
func stdDevWords(xs []point) (sigma int64, ok bool) {
	const micro = unit / 1_000_000 // d in 10^-6 units: d² then fits a word
	last := xs[len(xs)-1].c
	if last.big {
		return 0, false
	}
	var s1 int64
	var s2hi, s2lo uint64
	for _, p := range xs {
		if p.c.big {
			return 0, false
		}
		d := p.c.i - last.i
		if d%micro != 0 || d/micro >= 1<<31 || d/micro <= -1<<31 {
			return 0, false
		}
		e := d / micro
		s1 += e
		var c uint64
		s2lo, c = bits.Add64(s2lo, uint64(e*e), 0)
		s2hi += c
	}
	// spread = n·s2 − s1², in units of 10^-12, as a 128-bit number.
	n := uint64(len(xs))
	hi, lo := bits.Mul64(s2lo, n)
	hi += s2hi * n
	sqHi, sqLo := bits.Mul64(absU(s1), absU(s1))
	lo, borrow := bits.Sub64(lo, sqLo, 0)
	hi, _ = bits.Sub64(hi, sqHi, borrow)
	if hi >= 1<<22 { // spread < 2^86, so that × 10^12 stays below 2^126
		return 0, false
	}
	// spread × 10^12 is n² × variance in units of 10^-24.
	hi, lo = mul128(hi, lo, unit)
	return int64(isqrt128(hi, lo) / n), true
}

// mul128 is (hi, lo) × k, for a product below 2^128.
func mul128(hi, lo, k uint64) (uint64, uint64) {
	h, l := bits.Mul64(lo, k)
	return h + hi*k, l
}

// isqrt128 is floor(sqrt(hi·2^64 + lo)), for a number below 2^126.
func isqrt128(hi, lo uint64) uint64 {
	r := uint64(math.Sqrt(float64(hi)*(1<<64) + float64(lo))) // within a few units
	for {
		h, l := bits.Mul64(r, r)
		if h < hi || h == hi && l <= lo {
			break
		}
		r--
	}
	for {
		h, l := bits.Mul64(r+1, r+1)
		if h > hi || h == hi && l > lo {
			return r
		}
		r++
	}
}

func newStudy(s Spec) study {
	if p := s.period(); p < 1 || p > MaxPeriod {
		return &emptyStudy{} // a Spec ParseSpecs would refuse, such as ma:0
	}
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
func (*emptyStudy) grow(int)                  {}
func (*emptyStudy) truncate(int)              {}
func (*emptyStudy) prepend(int, []point) bool { return true }
func (*emptyStudy) lines() []Line             { return nil }

// window is a simple moving average of the close (MA, and BOLL's middle band
// with the bands around it) or of the volume (VOL MA), from running sums.
type window struct {
	n      int
	vol    bool // average the volume, not the close
	boll   bool // also the bands
	name   string
	sum    []num // sum over the window ending at each index (shorter at the start)
	mid    []decimal.NullDecimal
	up, lo []decimal.NullDecimal
}

func newWindow(s Spec) *window {
	w := &window{n: s.period(), vol: s.Kind == VolMA, boll: s.Kind == BOLL, name: s.Label()}
	return w
}

func (w *window) x(p point) num {
	if w.vol {
		return p.v
	}
	return p.c
}

func (w *window) push(pts []point) {
	i := len(w.sum)
	x := w.x(pts[i])
	s := x
	if i > 0 {
		s = w.sum[i-1].add(s)
	}
	if i >= w.n {
		s = s.sub(w.x(pts[i-w.n]))
	}
	w.sum = append(w.sum, s)
	if i < w.n-1 {
		w.mid = append(w.mid, decimal.NullDecimal{})
		if w.boll {
			w.up, w.lo = append(w.up, decimal.NullDecimal{}), append(w.lo, decimal.NullDecimal{})
		}
		return
	}
	m := s.divInt(int64(w.n))
	w.mid = append(w.mid, valid(m.dec()))
	if w.boll {
		band := stdDev(pts[i+1-w.n : i+1]).mulInt(BollWidth)
		w.up, w.lo = append(w.up, valid(m.add(band).dec())), append(w.lo, valid(m.sub(band).dec()))
	}
}

func (w *window) grow(n int) {
	w.sum, w.mid = slices.Grow(w.sum, n), slices.Grow(w.mid, n)
	if w.boll {
		w.up, w.lo = slices.Grow(w.up, n), slices.Grow(w.lo, n)
	}
}

func (w *window) truncate(n int) {
	n = min(n, len(w.sum))
	w.sum, w.mid = w.sum[:n], w.mid[:n]
	if w.boll {
		w.up, w.lo = w.up[:n], w.lo[:n]
	}
}

// prepend keeps the values whose window lies in the old series (old index
// n-1 on) and computes the rest: the new candles' and the n-1 old ones whose
// windows now reach into the new candles.
func (w *window) prepend(p int, pts []point) bool {
	old := *w
	w.sum, w.mid, w.up, w.lo = nil, nil, nil, nil
	w.grow(len(pts))
	keep := min(w.n-1, len(pts)-p) // old index from which values are kept
	for len(w.sum) < p+keep {
		w.push(pts)
	}
	w.sum = append(w.sum, old.sum[keep:len(pts)-p]...)
	w.mid = append(w.mid, old.mid[keep:len(pts)-p]...)
	if w.boll {
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
	n     int
	first int   // index of the first valid input, -1 before it
	sum   []num // sums of the first valid inputs, for the seed
	val   []num // the values, where out is valid
	out   []decimal.NullDecimal
}

func newEMA(n int) *ema { return &ema{n: n, first: -1} }

func (e *ema) push(x num, ok bool) (num, bool) {
	i := len(e.out)
	if !ok {
		e.out, e.val = append(e.out, decimal.NullDecimal{}), append(e.val, num{})
		return num{}, false
	}
	if e.first < 0 {
		e.first = i
	}
	k := i - e.first // how many valid inputs came before this one
	var v num
	switch {
	case k < e.n:
		s := x
		if k > 0 {
			s = e.sum[k-1].add(s)
		}
		e.sum = append(e.sum[:k], s)
		if k < e.n-1 {
			e.out, e.val = append(e.out, decimal.NullDecimal{}), append(e.val, num{})
			return num{}, false
		}
		v = s.divInt(int64(e.n))
	default:
		// prev + α·(x − prev), α = 2/(n+1): the step is rounded, not the
		// sum, which keeps the numbers small.
		prev := e.val[i-1]
		v = prev.add(x.sub(prev).mulInt(2).divInt(int64(e.n + 1)))
	}
	e.out, e.val = append(e.out, valid(v.dec())), append(e.val, v)
	return v, true
}

func (e *ema) grow(n int) { e.out, e.val = slices.Grow(e.out, n), slices.Grow(e.val, n) }

func (e *ema) truncate(n int) {
	n = min(n, len(e.out))
	e.out, e.val = e.out[:n], e.val[:n]
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

func (s *emaStudy) push(pts []point)          { s.e.push(pts[len(s.e.out)].c, true) }
func (s *emaStudy) grow(n int)                { s.e.grow(n) }
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
	c := pts[len(m.dif)].c
	f, fok := m.fast.push(c, true)
	s, sok := m.slow.push(c, true)
	var dif num
	if fok && sok {
		dif = f.sub(s)
		m.dif = append(m.dif, valid(dif.dec()))
	} else {
		m.dif = append(m.dif, decimal.NullDecimal{})
	}
	if dea, ok := m.signal.push(dif, fok && sok); ok {
		m.hist = append(m.hist, valid(dif.sub(dea).dec()))
	} else {
		m.hist = append(m.hist, decimal.NullDecimal{})
	}
}

func (m *macdStudy) grow(n int) {
	m.fast.grow(n)
	m.slow.grow(n)
	m.signal.grow(n)
	m.dif, m.hist = slices.Grow(m.dif, n), slices.Grow(m.hist, n)
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
	hundred    decimal.Decimal
	gain, loss []num
	out        []decimal.NullDecimal
}

func newRSI(n int) *rsiStudy {
	return &rsiStudy{n: n, name: "RSI " + strconv.Itoa(n), hundred: decimal.NewFromInt(100)}
}

// push keeps, at index i, the running sums of the gains and losses of
// candles 1..i while i < n, and their Wilder averages from i = n on.
func (r *rsiStudy) push(pts []point) {
	i := len(r.out)
	if i == 0 {
		r.gain, r.loss, r.out = append(r.gain, num{}), append(r.loss, num{}), append(r.out, decimal.NullDecimal{})
		return
	}
	d := pts[i].c.sub(pts[i-1].c)
	var g, l num
	if d.sign() > 0 {
		g = d
	} else {
		l = d.neg()
	}
	n := int64(r.n)
	switch {
	case i < r.n:
		g, l = r.gain[i-1].add(g), r.loss[i-1].add(l)
	case i == r.n:
		g, l = r.gain[i-1].add(g).divInt(n), r.loss[i-1].add(l).divInt(n)
	default:
		g, l = r.gain[i-1].mulInt(n-1).add(g).divInt(n), r.loss[i-1].mulInt(n-1).add(l).divInt(n)
	}
	r.gain, r.loss = append(r.gain, g), append(r.loss, l)
	switch {
	case i < r.n:
		r.out = append(r.out, decimal.NullDecimal{})
	case l.sign() == 0:
		r.out = append(r.out, valid(r.hundred))
	default:
		// 100 − 100/(1 + g/l) = 100·g/(g + l): one rounding instead of two.
		r.out = append(r.out, valid(g.mulInt(100).quo(g.add(l)).dec()))
	}
}

func (r *rsiStudy) grow(n int) {
	r.gain, r.loss, r.out = slices.Grow(r.gain, n), slices.Grow(r.loss, n), slices.Grow(r.out, n)
}

func (r *rsiStudy) truncate(n int) {
	n = min(n, len(r.out))
	r.gain, r.loss, r.out = r.gain[:n], r.loss[:n], r.out[:n]
}

func (r *rsiStudy) prepend(int, []point) bool { return false }

func (r *rsiStudy) lines() []Line { return []Line{{Name: r.name, Pane: PaneRSI, Values: r.out}} }
