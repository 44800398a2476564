// Package latency reads the latencies the benches measure.
package latency

import "time"

// Percentile is the p-th percentile of sorted latencies, by nearest rank:
// the smallest that at least p % of them are at or under (of 1..100 ms, p99
// is 99 ms, not the largest); 0 when there are none.
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (len(sorted)*p + 99) / 100 // ceil(n·p/100), from 1
	return sorted[min(len(sorted)-1, max(rank-1, 0))]
}
