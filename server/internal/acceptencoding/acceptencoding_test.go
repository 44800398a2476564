package acceptencoding

import "testing"

func TestWeightReadsTheListAsHTTPSays(t *testing.T) {
	for _, tc := range []struct {
		lines  []string
		coding string
		want   float64
	}{
		{[]string{"gzip"}, "gzip", 1},
		{[]string{"GZIP"}, "gzip", 1},
		{[]string{"gzip, deflate, br, zstd"}, "br", 1},
		{[]string{"br, gzip;q=0.5"}, "gzip", 0.5},
		{[]string{"gzip ; q=1"}, "gzip", 1},
		{[]string{"gzip;Q=0.25"}, "gzip", 0.25},
		{[]string{"gzip;level=9;q=0.3"}, "gzip", 0.3},
		{[]string{"x-gzip"}, "gzip", 1},
		{[]string{"x-gzip"}, "br", 0},
		// Not named, and no "*": refused.
		{nil, "gzip", 0},
		{[]string{""}, "gzip", 0},
		{[]string{"br"}, "gzip", 0},
		{[]string{"identity"}, "br", 0},
		{[]string{"x-gzip-not"}, "gzip", 0},
		{[]string{"gz", "ip"}, "gzip", 0},
		// Refused by weight, in any spelling of zero.
		{[]string{"gzip;q=0"}, "gzip", 0},
		{[]string{"gzip; q=0.000"}, "gzip", 0},
		{[]string{"gzip;q=0."}, "gzip", 0},
		// A weight that is not a qvalue counts as 0.
		{[]string{"gzip;q=2"}, "gzip", 0},
		{[]string{"gzip;q=1.5"}, "gzip", 0},
		{[]string{"gzip;q=0.0001"}, "gzip", 0},
		{[]string{"gzip;q=-1"}, "gzip", 0},
		{[]string{"gzip;q=.5"}, "gzip", 0},
		{[]string{"gzip;q="}, "gzip", 0},
		{[]string{"gzip;q=half"}, "gzip", 0},
		{[]string{"gzip;q=1.000"}, "gzip", 1},
		// "*" stands for every coding not named.
		{[]string{"*"}, "gzip", 1},
		{[]string{"*;q=0.2"}, "br", 0.2},
		{[]string{"*, br;q=0"}, "br", 0},
		{[]string{"*, br;q=0"}, "gzip", 1},
		{[]string{"*;q=0"}, "gzip", 0},
		{[]string{"gzip;q=0.5, *;q=0"}, "gzip", 0.5},
		// A coding named twice takes its lower weight: a refusal holds.
		{[]string{"gzip;q=0.4, gzip"}, "gzip", 0.4},
		{[]string{"gzip, gzip;q=0.4"}, "gzip", 0.4},
		{[]string{"br, gzip", "br;q=0"}, "br", 0},
		{[]string{"x-gzip;q=0, gzip"}, "gzip", 0},
		{[]string{"*, *;q=0"}, "br", 0},
		// A list split over field lines reads as one (RFC 9110, 5.3).
		{[]string{"br", "gzip"}, "gzip", 1},
		{[]string{"", "deflate, gzip;q=0.5"}, "gzip", 0.5},
		{[]string{"br", "gzip;q=0"}, "gzip", 0},
		{[]string{"identity", "br"}, "br", 1},
	} {
		if got := Weight(tc.lines, tc.coding); got != tc.want {
			t.Errorf("Accept-Encoding %q, %s: %v, want %v", tc.lines, tc.coding, got, tc.want)
		}
	}
}

// The gateway reads the field on every KLine answer.
func TestWeightDoesNotAllocate(t *testing.T) {
	lines := []string{"gzip, deflate, br, zstd", "*;q=0.1"}
	if n := testing.AllocsPerRun(100, func() { Weight(lines, "gzip"); Weight(lines, "identity") }); n != 0 {
		t.Errorf("%v allocations a call", n)
	}
}
