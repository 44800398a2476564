package chartopt

import (
	"math"
)

// LogTickGap is the least distance between two labels of a log price axis,
// in pixels: a line of the axis' font and a margin, as ECharts keeps a
// linear price axis' labels.
const LogTickGap = 30

// LogTicksMax bounds how many labels LogTicks writes.
const LogTicksMax = 64

// LogTicks are the prices a log price axis labels between lo and hi, in
// ascending order, where a factor of e in price takes perE pixels. ECharts'
// own log axis labels whole powers of ten alone, which a day's prices or
// two years' (52,000 to 140,000) do not reach or barely cross. Within each
// decade (from 10ⁿ to 10ⁿ⁺¹) the labels are the multiples of one step, 1,
// 2, 2.5 or 5 times a power of ten, the finest that keeps them gap pixels
// apart at the decade's top, where a log axis draws them closest: a day's
// BTC prices are labelled every 200 or 250, as a linear axis would, and two
// years' every 10,000 under 100,000 and every 20,000 over it. Without 2.5,
// a step just over 200 became 500, labels 2.5 gaps apart: three on a
// day's chart. Each step is a whole number of least (the contract's tick,
// PriceStep; 0: any), so that every label names its line at the
// contract's decimals: a narrow range of a coin quoted in whole USDT was
// labelled every 0.2 ("1,000" five times), or every 2.5 (1,007.5 written
// "1,008").
func LogTicks(lo, hi, perE, gap, least float64) []float64 {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) || !(perE > 0) || !(gap > 0) {
		return nil
	}
	shrink := 1 - math.Exp(-gap/perE) // the price difference gap pixels span, per unit of price
	var ticks []float64
	for d := math.Floor(math.Log10(lo)); math.Pow(10, d) <= hi && len(ticks) < LogTicksMax; d++ {
		from, to := math.Max(lo, math.Pow(10, d)), math.Min(hi, math.Pow(10, d+1))
		step := niceStep(to*shrink, least)
		for k := math.Ceil(from / step); k*step <= to && len(ticks) < LogTicksMax; k++ {
			v := roundTo(k*step, step)
			if n := len(ticks); n > 0 && perE*math.Log(v/ticks[n-1]) < gap {
				continue // the decade's first, its predecessor's last (10ⁿ)
			}
			ticks = append(ticks, v)
		}
	}
	return ticks
}

// niceStep is the least of 1, 2, 2.5 and 5 times a power of ten that is at
// least d and a whole number of least (a power of ten; 0: any).
func niceStep(d, least float64) float64 {
	d = max(d, least)
	p := math.Pow(10, math.Floor(math.Log10(d)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if s := m * p; s >= d && wholeTimes(s, least) {
			return s
		}
	}
	return 10 * p
}

// wholeTimes reports whether s is a whole number of least (any s when
// least is 0), but for float error.
func wholeTimes(s, least float64) bool {
	if !(least > 0) {
		return true
	}
	n := s / least
	return math.Abs(n-math.Round(n)) <= 1e-9*n
}

// roundTo writes v, a multiple of step, without the float error k*step
// may carry (0.1*3 is 0.30000000000000004): rounded to step's decimals
// (five for 0.00025).
func roundTo(v, step float64) float64 {
	scale := 1.0
	for s := step; math.Abs(s-math.Round(s)) > 1e-9*s && scale < 1e15; s = step * scale {
		scale *= 10
	}
	return math.Round(v*scale) / scale
}
