package echarts

import "testing"

// The cases follow ECharts' subPixelOptimize(position, 1, positive) in
// echarts/lib/util/graphic.js, run by hand.
func TestSubPixel(t *testing.T) {
	for _, tc := range []struct {
		p        float64
		positive bool
		want     float64
	}{
		{10.2, true, 10.5},   // 20.4 rounds to 20, even: moves up half a pixel
		{10.2, false, 9.5},   // and down
		{10.7, false, 10.5},  // 21.4 rounds to 21, odd: already on a half pixel
		{10.5, true, 10.5},   // exactly on one
		{5, false, 4.5},      // a whole pixel moves
		{-3.3, false, -3.5},  // -6.6 rounds to -7
		{-1.25, true, -0.5},  // -2.5 rounds up to -2, as Math.round does (Go's math.Round gives -3)
		{-1.25, false, -1.5}, // and down
	} {
		if got := subPixel(tc.p, tc.positive); got != tc.want {
			t.Errorf("subPixel(%v, %v) = %v, want %v", tc.p, tc.positive, got, tc.want)
		}
	}
}
