package sandbox

// bar is a candle in integers: prices in ticks, vol in contracts, count in
// orders, turn (turnover) in ticks × contracts. Integers keep aggregates
// exact and every machine drawing the same market.
type bar struct {
	open, close, high, low int64
	vol, count, turn       int64
}

// merge extends b, an aggregate of the bars before n, by n.
func (b *bar) merge(n bar) {
	b.close = n.close
	b.high = max(b.high, n.high)
	b.low = min(b.low, n.low)
	b.vol += n.vol
	b.count += n.count
	b.turn += n.turn
}

// typicalTurnover is vol × the typical price (open+close+high+low)/4,
// rounded down as a whole, so a one-tick range keeps its fraction.
func (b bar) typicalTurnover() int64 {
	return b.vol * (b.open + b.close + b.high + b.low) / 4
}

// shift moves a bar's prices by d ticks: a future is its swap plus a basis.
// Turnover moves with them, so VWAP stays inside the bar and sums stay exact.
func (b bar) shift(d int64) bar {
	b.open += d
	b.close += d
	b.high += d
	b.low += d
	b.turn += b.vol * d
	return b
}

// maxKids bounds the children of one split: 48 half-hours, 30 minutes or 60 seconds.
const maxKids = 60

// split draws the len(kids) consecutive bars that p is made of (a day's
// half-hours, a half-hour's minutes, a minute's seconds). They aggregate to p
// exactly; each opens at the previous close; one reaches p's high and one its
// low; activity clusters and volume follows the moves. weight, when not nil,
// scales each kid's activity in per cent (the intraday profile). With exact,
// each kid also gets a turnover within vol×[low, high] that adds up to p's;
// without it (seconds, only ever shown as a running total) turnover is left
// to the caller. Drawing top-down is what lets any window be served without
// drawing the minutes of the days it spans.
func split(p bar, kids []bar, weight []int64, exact bool, r *rng) {
	n := len(kids)
	var act, sig [maxKids]int64
	a, sumsq := r.between(700, 1300), int64(0)
	for k := range n {
		// Activity follows the previous child's, pulled toward 1000, with bursts.
		a = min(max((a*85+15_000)/100*r.between(80, 125)/100, 300), 4000)
		x := a
		if r.between(0, 29) == 0 {
			x *= 2
		}
		if weight != nil {
			x = x * weight[k] / 100
		}
		act[k] = max(x, 1)
		sumsq += act[k] * act[k]
	}
	// Step sizes whose sum of squares makes a path about as wide as p's range.
	span, norm := p.high-p.low, max(isqrt(sumsq), 1)
	for k := range n {
		sig[k] = span * act[k] * 2 / (5 * norm)
	}
	wick := func(k int) int64 { return (sig[k] * abs64(r.normal()) >> 16) * 2 / 5 }

	// The path of closes, path[0] = p.open and path[k+1] = close of child k,
	// is a Brownian bridge through anchors near p's high and low.
	var path [maxKids + 1]int64
	path[0] = p.open
	// The kids holding the high and the low: two different ones, not the
	// last, whose close is p's, so that the path itself goes near each
	// extreme rather than a lone wick reaching it. The path's anchors are
	// the open, near the high, near the low and the close, in time order.
	iH, iL := 0, 0
	anchors := [4]anchor{{0, p.open}, {n, p.close}}
	na := 2
	if n > 2 {
		iH, iL = extremes(p, sig[:n], r)
		first, second := anchor{iH + 1, p.high - min(wick(iH), span/3)}, anchor{iL + 1, p.low + min(wick(iL), span/3)}
		if second.at < first.at {
			first, second = second, first
		}
		anchors = [4]anchor{{0, p.open}, first, second, {n, p.close}}
		na = 4
	}
	for i := 0; i+1 < na; i++ {
		bridge(path[:], sig[:], anchors[i], anchors[i+1], r)
	}
	for k := 1; k < n; k++ {
		path[k] = reflect(path[k], p.low, p.high)
	}
	// Wicks stop short of p's extremes, so that only iH and iL reach them.
	for k := range n {
		o, c := path[k], path[k+1]
		hi, lo := max(o, c), min(o, c)
		kids[k] = bar{open: o, close: c, high: hi + min(wick(k), (p.high-hi)*3/4), low: lo - min(wick(k), (lo-p.low)*3/4)}
	}
	kids[iH].high, kids[iL].low = p.high, p.low

	// Volume follows activity and the size of each child's move; the
	// extremes trade more.
	var weights [maxKids]int64
	for k := range n {
		move := abs64(kids[k].close - kids[k].open)
		w := act[k] * (300 + min(700*move/max(sig[k], 1), 2100)) / 100 * r.between(70, 130) / 100
		if k == iH || k == iL {
			w = w * 3 / 2
		}
		weights[k] = max(w, 1)
	}
	if exact {
		tilt(weights[:n], kids, p)
	}
	var cum [maxKids]int64
	total := int64(0)
	for k := range n {
		total += weights[k]
		cum[k] = total
	}
	prev := int64(0)
	for k := range n {
		v := mulDiv(p.vol, cum[k], total)
		kids[k].vol, prev = v-prev, v
	}
	if exact {
		reachTurnover(p, kids)
	}
	prev, total = 0, 0
	for k := range n {
		total += kids[k].vol
		c := int64(0)
		if p.vol > 0 {
			c = mulDiv(p.count, total, p.vol)
		}
		kids[k].count, prev = c-prev, c
	}
	if exact {
		spreadTurnover(p, kids)
	}
}

// tilt lowers the weights of the kids whose typical price lies on the far
// side of p's VWAP, so that the weighted mean of typical prices is the VWAP:
// then each kid's turnover stays near its typical price, and the next split
// down starts from a VWAP in the middle of its range, not pushed to an edge.
// Prices are compared in 1/256 ticks: cheap assets move a few ticks a minute.
func tilt(weights []int64, kids []bar, p bar) {
	if p.vol == 0 {
		return
	}
	vwap := mulDiv(p.turn, 256, p.vol) // ×256, against the sum of four prices
	var above, below int64             // Σ weight × |typical − vwap| on each side
	for k, c := range kids {
		switch q := (c.open+c.close+c.high+c.low)*64 - vwap; {
		case q > 0:
			above += weights[k] * q
		case q < 0:
			below -= weights[k] * q
		}
	}
	if above == 0 || below == 0 || above == below {
		return
	}
	// Scale the heavier side down to balance the lighter one, by at most 8:
	// a VWAP at the edge of the path is left to the kids' ranges to reach,
	// rather than piling the volume onto a few kids.
	heavy := above > below
	far, near := max(above, below), min(above, below)
	near = max(near, far/8)
	for k, c := range kids {
		if q := (c.open+c.close+c.high+c.low)*64 - vwap; (q > 0) == heavy && q != 0 {
			weights[k] = max(mulDiv(weights[k], near, far), 1)
		}
	}
}

// reflect folds a path that overshoots [lo, hi] back inside, as a walk
// bouncing off the extremes, rather than flattening it along them.
func reflect(v, lo, hi int64) int64 {
	if v > hi {
		v = hi - (v - hi)
	}
	if v < lo {
		v = lo + (lo - v)
	}
	return min(max(v, lo), hi)
}

// extremes chooses the kids that hold p's high and low (iH, iL: two
// different ones, not the last) where a walk from p's open to its close,
// with the kids' steps sig, has its highest and lowest closes. In a market
// the two lie far apart as a rule: chosen anywhere, they came side by side
// on about one day in eleven, and the bridge between them drew the day's
// whole range as a spike and its reversal within an hour.
func extremes(p bar, sig []int64, r *rng) (iH, iL int) {
	n := len(sig)
	var walk, hi, lo int64
	for k := range n - 1 {
		walk += sig[k] * r.normal() >> 16
		v := walk + (p.close-p.open)*int64(k+1)/int64(n)
		if k == 0 || v > hi {
			hi, iH = v, k
		}
		if k == 0 || v < lo {
			lo, iL = v, k
		}
	}
	if iH == iL { // a flat walk: no steps to take
		iL = (iH + 1) % (n - 1)
	}
	return iH, iL
}

type anchor struct {
	at int   // index into the path
	v  int64 // price there, ticks
}

// bridge fills path between two anchors: a random walk with steps sig, less
// its drift, plus the straight line from a to b.
func bridge(path, sig []int64, a, b anchor, r *rng) {
	l := int64(b.at - a.at)
	var w [maxKids + 1]int64
	for j := int64(1); j <= l; j++ {
		w[j] = w[j-1] + sig[int64(a.at)+j-1]*r.normal()>>16
	}
	for j := int64(1); j <= l; j++ {
		path[int64(a.at)+j] = a.v + (b.v-a.v)*j/l + w[j] - w[l]*j/l
	}
}

// reachTurnover moves volume, when it must, so that p's turnover lies
// between Σ vol×low and Σ vol×high of the kids: otherwise no VWAP inside
// each kid's range could add up to p's. It moves a share of every kid's
// volume to the kids whose range reaches past p's VWAP, in proportion to
// what they hold: twice the least share that suffices, so that their VWAPs
// are not all pinned to an edge, which the next split down would inherit.
func reachTurnover(p bar, kids []bar) {
	if p.vol == 0 {
		return
	}
	for round := 0; ; round++ { // the first round reaches it; a few more absorb rounding
		var top, bottom int64
		for _, c := range kids {
			top += c.vol * c.high
			bottom += c.vol * c.low
		}
		up := p.turn > top
		if !up && p.turn >= bottom {
			return
		}
		if round == 4 {
			break
		}
		// The kids past the VWAP, and where all volume there would put the bound.
		var share [maxKids]int64
		var held, heldBound int64
		for k, c := range kids {
			if b := bound(c, up); (up && b*p.vol >= p.turn) || (!up && b*p.vol <= p.turn) {
				share[k] = c.vol + 1
				held += share[k]
				heldBound += share[k] * b
			}
		}
		if held == 0 { // p's VWAP is outside its own range: nothing reaches it
			return
		}
		now, target := top, mulDiv(heldBound, p.vol, held) // the bound now, and with all volume past the VWAP
		if !up {
			now = bottom
		}
		num, den := 2*abs64(p.turn-now), abs64(target-now)
		if den == 0 {
			return
		}
		num = min(num, den)
		var moved, cum, prev int64
		for k := range kids {
			d := min(mulDiv(kids[k].vol, num, den)+1, kids[k].vol)
			kids[k].vol -= d
			moved += d
		}
		for k := range kids {
			cum += share[k]
			v := mulDiv(moved, cum, held)
			kids[k].vol += v - prev
			prev = v
		}
	}
	// Still short (a thin bar, a few contracts over many kids): all of it on
	// a kid whose range holds p's VWAP; the kids' ranges cover p's without gaps.
	for k, c := range kids {
		if c.low*p.vol <= p.turn && p.turn <= c.high*p.vol {
			for j := range kids {
				kids[j].vol = 0
			}
			kids[k].vol = p.vol
			return
		}
	}
}

// bound is a kid's high, when turnover must go up, or its low.
func bound(c bar, up bool) int64 {
	if up {
		return c.high
	}
	return c.low
}

// spreadTurnover gives each kid a turnover within vol×[low, high] that adds
// up to p's: each starts at its typical price and the rest is spread in
// proportion to the room each has toward its high (or low).
func spreadTurnover(p bar, kids []bar) {
	var base int64
	for k := range kids {
		c := &kids[k]
		c.turn = c.typicalTurnover()
		base += c.turn
	}
	rest := p.turn - base
	if rest == 0 {
		return
	}
	room := func(c bar) int64 {
		if rest > 0 {
			return c.vol*c.high - c.turn
		}
		return c.turn - c.vol*c.low
	}
	var total int64
	for _, c := range kids {
		total += room(c)
	}
	if total == 0 {
		return
	}
	sign, need := int64(1), rest
	if rest < 0 {
		sign, need = -1, -rest
	}
	var cum, prev int64
	for k := range kids {
		cum += room(kids[k])
		v := mulDiv(need, cum, total)
		kids[k].turn += sign * (v - prev)
		prev = v
	}
}
