package chartopt

import (
	"fmt"
	"math"
	"testing"
)

// TestLogTicksAreRoundPricesALabelApart labels log axes of a day's, a
// month's, two years' and a penny contract's prices on grids of 380 and 150
// px: every label inside the range, a gap apart, in ascending order, and
// as round as the gap allows.
func TestLogTicksAreRoundPricesALabelApart(t *testing.T) {
	for _, tc := range []struct {
		lo, hi, px float64
		want       string // "" to check the rules alone
	}{
		{96696.2, 98847.9, 380, "[96800 97000 97200 97400 97600 97800 98000 98200 98400 98600 98800]"},
		{52044.8, 140266.7, 380, "[60000 70000 80000 90000 100000 120000 140000]"},
		{52044.8, 140266.7, 150, "[60000 80000 100000]"},
		{3.1, 2400, 380, "[5 10 50 100 500 1000 2000]"},
		{0.12345, 0.12555, 300, "[0.1235 0.12375 0.124 0.12425 0.1245 0.12475 0.125 0.12525 0.1255]"},
		// The step just over 200 at the decade's top: 250, not 500 (three labels).
		{94400, 95800, 190, "[94500 94750 95000 95250 95500 95750]"},
		{1, 1.0000001, 300, ""},
	} {
		t.Run(fmt.Sprint(tc.lo, "-", tc.hi, "@", tc.px), func(t *testing.T) {
			perE := tc.px / math.Log(tc.hi/tc.lo)
			got := LogTicks(tc.lo, tc.hi, perE, LogTickGap, 0)
			if tc.want != "" && fmt.Sprint(got) != tc.want {
				t.Errorf("ticks %v, want %s", got, tc.want)
			}
			if len(got) < 2 && tc.hi/tc.lo > 1.001 {
				t.Errorf("%d ticks: %v", len(got), got)
			}
			for i, v := range got {
				if v < tc.lo || v > tc.hi {
					t.Errorf("tick %v outside %v to %v", v, tc.lo, tc.hi)
				}
				if i > 0 {
					if gap := perE * math.Log(v/got[i-1]); gap < LogTickGap-1e-9 {
						t.Errorf("ticks %v and %v are %.1f px apart", got[i-1], v, gap)
					}
				}
			}
		})
	}
	if got := LogTicks(0, 10, 100, 30, 0); got != nil {
		t.Errorf("a range from 0: %v", got)
	}
}
