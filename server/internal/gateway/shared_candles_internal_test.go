package gateway

import (
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

func TestHistoryBlocksAreAlignedRunsOf2000CandlesForEveryPeriod(t *testing.T) {
	ts := []int64{
		0, // the epoch: block 0's first candle
		time.Date(2026, 11, 22, 12, 34, 56, 0, time.UTC).Unix(), // within a block
		time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC).Unix(),  // a leap day's last second
	}
	for _, p := range venueapi.Periods() {
		for _, at := range ts {
			id := p.Start(at)
			b := blockOf(p, id)
			switch {
			case b.lo > id || id > b.hi:
				t.Errorf("%s %d: block %d is %d..%d, which does not hold it", p, id, b.n, b.lo, b.hi)
			case p.Count(b.lo, b.hi) != blockLen:
				t.Errorf("%s %d: block %d holds %d candles, want %d", p, id, b.n, p.Count(b.lo, b.hi), blockLen)
			case p.Start(b.lo) != b.lo || p.Start(b.hi) != b.hi:
				t.Errorf("%s %d: block %d's ends %d, %d are not candle starts", p, id, b.n, b.lo, b.hi)
			case p.Count(0, b.lo)-1 != b.n*blockLen:
				t.Errorf("%s %d: block %d starts at candle %d since the epoch, want %d", p, id, b.n, p.Count(0, b.lo)-1, b.n*blockLen)
			}
			// Every candle of the block names the same block, and the
			// next candle the next: replicas asking any part agree.
			for _, other := range []int64{b.lo, b.hi, p.Prev(id), p.Next(id)} {
				if other < b.lo || other > b.hi {
					continue
				}
				if o := blockOf(p, other); o != b {
					t.Errorf("%s: candle %d is in block %+v, candle %d in %+v", p, id, b, other, o)
				}
			}
			if next := blockOf(p, p.Next(b.hi)); next.n != b.n+1 || next.lo != p.Next(b.hi) {
				t.Errorf("%s: the block after %+v is %+v", p, b, next)
			}
		}
	}
}
