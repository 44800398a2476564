package sandbox

import "sync/atomic"

// The days the market is drawn over, in days since the Unix epoch. The
// daily path is computed once per asset at New (9132 days, 220 KB); a
// fixed first day, not "now", keeps candles the same as time passes.
const (
	firstDay = 18262 // 2020-01-01
	refDay   = 20758 // 2026-11-01: each asset trades at its reference price
	lastDay  = 27394 // 2045-01-01, excluded: beyond it there are no candles
)

// series is one asset's market: a daily path of opens with clustered
// volatility, from which any day's bar, and by split its half-hours,
// minutes and seconds, is drawn on demand.
type series struct {
	asset asset
	words [2]uint64 // seed and asset: the prefix of every stream of this series
	opens []int64   // open of day firstDay+i in ticks; one more, so every day has a close
	vols  []int64   // daily volatility of day firstDay+i, ppm
	// turns memoizes each day's turnover (0: not yet drawn), the sum of its
	// half-hours': a day's candle then costs no split after its first.
	turns []atomic.Int64
}

// newSeries draws the daily path: GARCH-like volatility (today's follows
// yesterday's and the size of yesterday's move), and prices drawn both ways
// from the reference price on refDay with a pull back toward it, so that
// levels stay near real ones through the years.
func newSeries(a asset, seed uint64) *series {
	const n = lastDay - firstDay
	s := &series{asset: a, words: [2]uint64{seed, hashString(a.base)}, opens: make([]int64, n+1), vols: make([]int64, n), turns: make([]atomic.Int64, n)}
	r := newRNG(seed, s.words[1], 1)
	shocks := make([]int64, n) // ppm
	vol := a.dailyVolPPM
	for d := range n {
		s.vols[d] = vol
		shocks[d] = vol * r.normal() >> 16
		// mean |z| is 0.8, so 1.253·|shock| is an unbiased volatility estimate.
		vol = (vol*80 + a.dailyVolPPM*8 + abs64(shocks[d])*12*1253/1000) / 100
		vol = min(max(vol, a.dailyVolPPM/3), a.dailyVolPPM*2)
	}
	const fine = 1000 // extra precision of the path, so small moves of cheap assets add up
	ref := a.refPrice * fine
	// step moves p by a shock (ppm) and a pull toward the reference: 1% a
	// day of the gap, measured as a ratio either way (twice the price or
	// half of it pull alike), and stronger the further it strays.
	step := func(p, shock int64) int64 {
		pull := min(max(mulDivSigned(ref-p, 10_000, min(ref, p)), -50_000), 50_000)
		return max(p+mulDivSigned(p, shock+pull, 1_000_000), fine)
	}
	at := refDay - firstDay
	s.opens[at] = ref
	for d := at; d < n; d++ {
		s.opens[d+1] = step(s.opens[d], shocks[d])
	}
	for d := at - 1; d >= 0; d-- { // backward in time: the same walk, reversed
		s.opens[d] = step(s.opens[d+1], -shocks[d])
	}
	for i, o := range s.opens {
		s.opens[i] = max((o+fine/2)/fine, 1)
	}
	return s
}

// Stream tags: each level of the market draws from its own stream.
const (
	tagDay uint64 = iota + 2
	tagHalves
	tagMinutes
	tagSeconds
)

// stream returns the random stream of one piece of the market.
func (s *series) stream(tag uint64, words ...uint64) *rng {
	r := newRNG(s.words[0], s.words[1], tag)
	for _, w := range words {
		r.s ^= w
		r.next()
	}
	return r
}

// dayBar draws day d (days since the epoch): open and close from the daily
// path, a range from the day's volatility, and volume that rises with
// volatility and with the size of the day's move, lower at weekends. Its
// turnover is its half-hours', each traded at its typical price: a day's
// VWAP is where its volume traded, and the half-hours below never have to
// reach for a VWAP at the edge of their range.
func (s *series) dayBar(d int64) (bar, bool) {
	i := d - firstDay
	if i < 0 || i >= int64(len(s.vols)) {
		return bar{}, false
	}
	o, c, vol := s.opens[i], s.opens[i+1], s.vols[i]
	r := s.stream(tagDay, uint64(d))
	sigma := o * vol / 1_000_000 // ticks
	wick := func() int64 { return (sigma * abs64(r.normal()) >> 16) * 3 / 5 }
	hi, lo := max(o, c)+wick(), max(min(o, c)-wick(), 1)
	move := abs64(c-o) * 1_000_000 / o // ppm
	v := s.asset.perMinute * 1440 * vol / s.asset.dailyVolPPM * (600 + 500*move/vol) / 1000 * r.between(80, 120) / 100
	if wd := (d + 4) % 7; wd == 0 || wd == 6 { // 1970-01-01 was a Thursday; 0 is Sunday
		v = v * 3 / 5
	}
	v = max(v, 1)
	b := bar{open: o, close: c, high: hi, low: lo, vol: v, count: max(v*10/r.between(35, 60), 1)}
	if b.turn = s.turns[i].Load(); b.turn == 0 {
		var halves [48]bar
		s.halfHours(d, b, &halves)
		for _, h := range halves {
			b.turn += h.turn
		}
		s.turns[i].Store(b.turn) // a race draws it twice, the same
	}
	return b, true
}

// intraday is the activity of half-hour h of a UTC day, in per cent: Asia
// quiet, Europe busier, the American session busiest, its open most of all.
func intraday(h int) int64 {
	switch hour := h / 2; {
	case h == 27 || h == 28: // 13:30-14:30, the US open and its data releases
		return 170
	case hour >= 13 && hour < 21:
		return 135
	case hour >= 7 && hour < 13:
		return 100
	}
	return 75
}

// halfHours draws the 48 half-hours of day d, each traded at its typical
// price (see dayBar); day's turnover is not read.
func (s *series) halfHours(d int64, day bar, out *[48]bar) {
	var w [48]int64
	for h := range w {
		w[h] = intraday(h)
	}
	split(day, out[:], w[:], false, s.stream(tagHalves, uint64(d)))
	for h := range out {
		out[h].turn = out[h].typicalTurnover()
	}
}

// minutes draws the 30 minutes of half-hour h of day d.
func (s *series) minutes(d, h int64, half bar, out *[30]bar) {
	split(half, out[:], nil, true, s.stream(tagMinutes, uint64(d), uint64(h)))
}

// seconds draws the 60 seconds of minute m (of the day) of day d, without
// their turnovers: only the open minute is drawn so, to reveal it second by
// second.
func (s *series) seconds(d, m int64, minute bar, out *[60]bar) {
	split(minute, out[:], nil, false, s.stream(tagSeconds, uint64(d), uint64(m)))
}
