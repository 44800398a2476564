package sandbox

import "math/bits"

// rng is splitmix64: tiny, fast, and the same on every machine, so that a
// seed draws the same market everywhere. The market is drawn with integer
// arithmetic only (no float64, whose fused multiply-adds differ by CPU).
type rng struct{ s uint64 }

// newRNG seeds a stream from words (seed, asset, day, ...): a counter-based
// stream, so any day or minute can be drawn without drawing the ones before.
func newRNG(words ...uint64) *rng {
	r := &rng{s: 0x9E3779B97F4A7C15}
	for _, w := range words {
		r.s ^= w
		r.next()
	}
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// normal returns a standard normal draw scaled by 1<<16 (Irwin–Hall: the sum
// of twelve uniforms less six), so bounded to ±6.
func (r *rng) normal() int64 {
	var sum int64
	for range 3 {
		v := r.next()
		sum += int64(v&0xFFFF) + int64(v>>16&0xFFFF) + int64(v>>32&0xFFFF) + int64(v>>48)
	}
	return sum - 6<<16
}

// between returns a uniform integer in [lo, hi].
func (r *rng) between(lo, hi int64) int64 {
	return lo + int64(r.next()%uint64(hi-lo+1))
}

// hashString is FNV-1a: it turns an asset's name into a stream word.
func hashString(s string) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mulDiv returns a×b/c, rounded down, for a, b ≥ 0 and c > 0 with a×b/c
// fitting in int64: the product may overflow 64 bits (volume × turnover does).
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) { // the quotient would not fit; callers never ask, but never panic
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// mulDivSigned is mulDiv for signed a and b, rounded toward zero.
func mulDivSigned(a, b, c int64) int64 {
	if (a < 0) != (b < 0) {
		return -mulDiv(abs64(a), abs64(b), c)
	}
	return mulDiv(abs64(a), abs64(b), c)
}

// isqrt is the integer square root of n ≥ 0, rounded down.
func isqrt(n int64) int64 {
	if n < 2 {
		return max(n, 0)
	}
	x := n
	y := (x + 1) / 2
	for y < x {
		x = y
		y = (x + n/x) / 2
	}
	return x
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
