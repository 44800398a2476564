package gateway_test

import "testing"

// TestCacheHitBenchRefusesWhatIsNoCandles: the venue's paths answer a
// business error under HTTP 200 (docs/decisions.md#gateway-error-statuses),
// so a cache-hit benchmark that checks the status alone times the error
// path as a hit. Asked for what is not an answer of candles, it must fail.
func TestCacheHitBenchRefusesWhatIsNoCandles(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
	}{
		{"size past the venue's 2000: 1030 under 200", 2001},
		{"a negative size: 1030 under 200", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testing.Benchmark(func(b *testing.B) { benchCacheHit(b, tc.size) })
			if r.N != 0 {
				t.Errorf("benchCacheHit(size=%d) ran %d iterations of a %.0f-byte answer: it timed an error envelope as a cache hit",
					tc.size, r.N, r.Extra["B/answer"])
			}
		})
	}
}
