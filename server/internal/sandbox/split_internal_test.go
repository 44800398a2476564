package sandbox

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// checkKids reports how kids fail to make up p: an aggregate that differs,
// a gap between one kid's close and the next one's open, a kid outside p's
// range, or a VWAP outside a kid's own range.
func checkKids(p bar, kids []bar, exact bool) error {
	agg := kids[0]
	for k, c := range kids {
		if c.low > min(c.open, c.close) || c.high < max(c.open, c.close) || c.low < p.low || c.high > p.high || c.vol < 0 || c.count < 0 {
			return fmt.Errorf("kid %d %+v is not a bar inside %+v", k, c, p)
		}
		if exact && (c.turn < c.vol*c.low || c.turn > c.vol*c.high) {
			return fmt.Errorf("kid %d: turnover %d is outside vol×[low, high] = [%d, %d]", k, c.turn, c.vol*c.low, c.vol*c.high)
		}
		if k > 0 {
			if c.open != kids[k-1].close {
				return fmt.Errorf("kid %d opens at %d, kid %d closed at %d", k, c.open, k-1, kids[k-1].close)
			}
			agg.merge(c)
		}
	}
	if !exact {
		agg.turn = p.turn
	}
	if agg != p {
		return fmt.Errorf("kids aggregate to %+v, not %+v", agg, p)
	}
	return nil
}

// randomParent draws a bar whose VWAP lies in its range, as every bar the
// sandbox splits does.
func randomParent(r *rand.Rand) bar {
	low := 1 + r.Int64N(2_000_000)
	high := low + r.Int64N(max(low/20, 1)+1)
	in := func() int64 { return low + r.Int64N(high-low+1) }
	vol := r.Int64N(50_000_000)
	if r.IntN(10) == 0 {
		vol = r.Int64N(5) // thin: a second of a quiet minute
	}
	return bar{open: in(), close: in(), high: high, low: low, vol: vol, count: vol / 4, turn: vol*low + r.Int64N(vol*(high-low)+1)}
}

func TestSplitMakesKidsThatAggregateToTheParent(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 20_000 {
		p := randomParent(r)
		n := []int{1, 2, 3, 30, 48, 60}[i%6]
		exact := i%3 != 0
		kids := make([]bar, n)
		split(p, kids, nil, exact, newRNG(uint64(i)))
		if err := checkKids(p, kids, exact); err != nil {
			t.Fatalf("split %d of %+v into %d (exact %v): %v", i, p, n, exact, err)
		}
	}
}

// Every level of a real day, with the intraday profile, holds the invariants.
func TestEveryLevelOfADayMakesUpTheLevelAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, a := range assets {
		s := newSeries(a, defaultSeed)
		for range 4 {
			d := refDay - 700 + r.Int64N(730)
			day, _ := s.dayBar(d)
			var halves [48]bar
			s.halfHours(d, day, &halves)
			if err := checkKids(day, halves[:], true); err != nil {
				t.Fatalf("%s day %d: %v", a.base, d, err)
			}
			h := r.Int64N(48)
			var mins [30]bar
			s.minutes(d, h, halves[h], &mins)
			if err := checkKids(halves[h], mins[:], true); err != nil {
				t.Fatalf("%s day %d half-hour %d: %v", a.base, d, h, err)
			}
			var secs [60]bar
			m := h*30 + r.Int64N(30)
			s.seconds(d, m, mins[m%30], &secs)
			if err := checkKids(mins[m%30], secs[:], false); err != nil {
				t.Fatalf("%s day %d minute %d: %v", a.base, d, m, err)
			}
		}
	}
}

// Volume follows volatility: across a year of days, the days that moved
// most traded more than the days that moved least.
func TestVolumeFollowsVolatility(t *testing.T) {
	for _, a := range assets {
		s := newSeries(a, defaultSeed)
		var calm, wild, nCalm, nWild int64
		for d := int64(refDay - 365); d < refDay; d++ {
			b, _ := s.dayBar(d)
			switch rng := (b.high - b.low) * 1_000_000 / b.open; {
			case rng < a.dailyVolPPM:
				calm += b.vol
				nCalm++
			case rng > 2*a.dailyVolPPM:
				wild += b.vol
				nWild++
			}
		}
		if nCalm == 0 || nWild == 0 || wild/nWild < calm/nCalm*3/2 {
			t.Errorf("%s: %d wild days trade %d on average, %d calm days %d", a.base, nWild, wild/max(nWild, 1), nCalm, calm/max(nCalm, 1))
		}
	}
}

// Volatility clusters: a day's absolute move is more like yesterday's than
// like a random day's.
func TestVolatilityClusters(t *testing.T) {
	for _, a := range assets {
		s := newSeries(a, defaultSeed)
		move := func(d int64) int64 {
			return abs64(s.opens[d+1-firstDay]-s.opens[d-firstDay]) * 1_000_000 / s.opens[d-firstDay]
		}
		var next, far int64
		for d := int64(refDay - 730); d < refDay; d++ {
			next += abs64(move(d) - move(d+1))
			far += abs64(move(d) - move(d+97)) // a quarter and a week away
		}
		if next >= far {
			t.Errorf("%s: consecutive days differ by %d in all, days a quarter apart by %d", a.base, next, far)
		}
	}
}

// A day's range is drawn as a market moves, not as one spike: over two
// years of each asset, the half-hours holding the day's high and low lie
// more than an hour apart on nearly every day, and no more than one day in
// twelve has a half-hour that moves over half the day's range. With the
// two chosen anywhere, a tenth of days put them side by side, and an eighth
// drew such a half-hour: the whole range as a spike and its reversal.
func TestADaysRangeIsNotOneSpike(t *testing.T) {
	for _, a := range assets {
		s := newSeries(a, defaultSeed)
		var days, adjacent, spikes int
		for d := int64(refDay - 730); d < refDay; d++ {
			day, _ := s.dayBar(d)
			var halves [48]bar
			s.halfHours(d, day, &halves)
			iH, iL, widest := 0, 0, int64(0)
			for k, h := range halves {
				if h.high == day.high {
					iH = k
				}
				if h.low == day.low {
					iL = k
				}
				widest = max(widest, abs64(h.close-h.open))
			}
			days++
			if abs64(int64(iH-iL)) <= 2 {
				adjacent++
			}
			if widest*2 > day.high-day.low {
				spikes++
			}
		}
		if adjacent*50 > days || spikes*12 > days {
			t.Errorf("%s: of %d days, %d hold their high and low within an hour, %d move over half their range in one half-hour", a.base, days, adjacent, spikes)
		}
	}
}

// Prices stay near real levels over the two years served: within a factor
// of five of the reference, as the real assets did over 2023-2025, never
// collapsing to a tick or running away.
func TestPricesStayNearTheirReferenceLevels(t *testing.T) {
	for _, a := range assets {
		s := newSeries(a, defaultSeed)
		for d := int64(refDay - 730); d < refDay+365; d++ {
			if o := s.opens[d-firstDay]; o < a.refPrice/5 || o > a.refPrice*5 {
				t.Fatalf("%s opens day %s at %d ticks, against a reference of %d", a.base, time.Unix(d*86400, 0).UTC().Format(time.DateOnly), o, a.refPrice)
			}
		}
	}
}

var benchNow = time.Date(2026, 11, 22, 12, 34, 56, 0, time.UTC)

// benchGenerate measures drawing a window of 2000 candles alone, without the
// HTTP handler or JSON: fresh series each run of b, so the memoized day
// turnovers are drawn again only in the first iteration.
func benchGenerate(b *testing.B, p venueapi.Period) {
	sb, err := New(Config{Now: func() time.Time { return benchNow }})
	if err != nil {
		b.Fatal(err)
	}
	m, err := resolve("BTC-USDT", benchNow)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := sb.window(m, benchNow).latest(p, venueapi.KLineMaxSize); len(got) == 0 {
			b.Fatal("no candles")
		}
	}
}

func BenchmarkGenerate2000x1min(b *testing.B)  { benchGenerate(b, venueapi.Period1Min) }
func BenchmarkGenerate2000x4hour(b *testing.B) { benchGenerate(b, venueapi.Period4Hour) }
func BenchmarkGenerate2000x1day(b *testing.B)  { benchGenerate(b, venueapi.Period1Day) }

// The first window of days drawn after start-up, before any day's turnover
// is memoized: the worst case a client meets.
func BenchmarkGenerate2000x1dayCold(b *testing.B) {
	m, err := resolve("ETH-USDT", benchNow)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		sb, err := New(Config{Now: func() time.Time { return benchNow }})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sb.window(m, benchNow).latest(venueapi.Period1Day, venueapi.KLineMaxSize)
	}
}

func BenchmarkSplitDayIntoHalfHours(b *testing.B) {
	s := newSeries(assets[0], defaultSeed)
	day, _ := s.dayBar(refDay)
	var out [48]bar
	b.ReportAllocs()
	for b.Loop() {
		s.halfHours(refDay, day, &out)
	}
}
