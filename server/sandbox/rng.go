package sandbox

// rng is splitmix64: tiny, fast, and the same on every machine, so that a
// seed gives the same market everywhere. Integer arithmetic only.
type rng struct{ s uint64 }

// newRNG seeds a stream from any number of words (seed, asset, day, ...).
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
// of twelve uniforms less six), bounded to ±6.
func (r *rng) normal() int64 {
	var sum int64
	for i := 0; i < 3; i++ {
		v := r.next()
		sum += int64(v&0xFFFF) + int64(v>>16&0xFFFF) + int64(v>>32&0xFFFF) + int64(v>>48)
	}
	return sum - 6<<16
}

// between returns a uniform integer in [lo, hi].
func (r *rng) between(lo, hi int64) int64 {
	return lo + int64(r.next()%uint64(hi-lo+1))
}

func hashString(s string) uint64 {
	h := uint64(1469598103934665603) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
