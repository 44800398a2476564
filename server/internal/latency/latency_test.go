package latency

import (
	"testing"
	"time"
)

// The p-th percentile is the smallest latency at least p % of them are at
// or under (nearest rank): of 1..100 ms, p50 is 50 ms and p99 99 ms, not
// the largest.
func TestPercentileIsTheNearestRank(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      int
		want   time.Duration
	}{
		{lat, 50, 50 * time.Millisecond},
		{lat, 99, 99 * time.Millisecond},
		{lat, 100, 100 * time.Millisecond},
		{lat, 1, time.Millisecond},
		{lat, 0, time.Millisecond},
		{lat[:10], 99, 10 * time.Millisecond},
		{lat[:10], 50, 5 * time.Millisecond},
		{lat[:1], 50, time.Millisecond},
		{lat[:1], 99, time.Millisecond},
		{[]time.Duration{1, 3, 5}, 50, 3},
		{nil, 99, 0},
	} {
		if got := Percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("p%d of %d latencies: %s, want %s", tc.p, len(tc.sorted), got, tc.want)
		}
	}
}
