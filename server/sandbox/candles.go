package sandbox

import (
	"container/list"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// How the sandbox's market is drawn. Prices follow a daily path with
// clustered volatility (GARCH-like), anchored so that each asset trades at its
// reference price on refDay; minutes are a Brownian bridge between one day's
// open and the next, so any day's minutes can be drawn on their own. Longer
// candles are aggregates of minutes (via cached half-hours for past days), so
// every period agrees with every other.
const (
	firstDay = 18262 // 2020-01-01, days since the Unix epoch
	refDay   = 20758 // 2026-11-01: the day prices are anchored to
	lastDay  = 25567 // 2040-01-01: the path is drawn this far
	// fine is the extra precision of path prices (ticks × fine).
	fine = 1000
	// minutesCacheDays bounds the memory of drawn minutes (about 92 KB a day).
	minutesCacheDays = 96
)

// bar is a candle in integers: prices in ticks, volume and count in
// contracts and orders, turnover in ticks × contracts.
type bar struct {
	id                     int64
	open, close, low, high int64
	vol, count, turnover   int64
}

func (b *bar) merge(m bar) {
	if b.vol == 0 && b.count == 0 && b.open == 0 {
		*b = m
		return
	}
	b.close = m.close
	b.high = max(b.high, m.high)
	b.low = min(b.low, m.low)
	b.vol += m.vol
	b.count += m.count
	b.turnover += m.turnover
}

// series draws one asset's candles.
type series struct {
	asset asset
	seed  uint64
	opens []int64 // day open in ticks × fine, from firstDay
	vols  []int64 // daily volatility in ppm, from firstDay

	mu      sync.Mutex
	minutes map[int64]*list.Element // day -> LRU element holding dayMinutes
	lru     *list.List
	halves  map[int64]*[48]bar // past days' half-hours, kept: small and costly to redraw
}

type dayMinutes struct {
	day  int64
	bars [1440]bar
}

func newSeries(a asset, seed uint64) *series {
	n := lastDay - firstDay + 2
	s := &series{asset: a, seed: seed, opens: make([]int64, n), vols: make([]int64, n),
		minutes: map[int64]*list.Element{}, lru: list.New(), halves: map[int64]*[48]bar{}}
	// Volatility clusters: today's depends on yesterday's and on the size of
	// yesterday's move; it is drawn forward from the first day.
	r := newRNG(seed, hashString(a.base), 1)
	rets := make([]int64, n)
	vol := a.dailyVolPPM
	for d := 0; d < n; d++ {
		s.vols[d] = vol
		z := r.normal()
		rets[d] = vol * z >> 16
		shock := abs64(rets[d])
		vol = (vol*80 + a.dailyVolPPM*8 + shock*12*1253/1000) / 100 // mean |z| is 0.8: 1.253 rescales it
		vol = min(max(vol, a.dailyVolPPM/3), a.dailyVolPPM*4)
	}
	// Prices are anchored at refDay and drawn both ways from it.
	ref := refDay - firstDay
	s.opens[ref] = a.refPrice * fine
	for d := ref; d+1 < n; d++ {
		s.opens[d+1] = max(s.opens[d]*(1_000_000+rets[d])/1_000_000, fine)
	}
	for d := ref; d > 0; d-- {
		s.opens[d-1] = max(s.opens[d]*1_000_000/(1_000_000+rets[d-1]), fine)
	}
	return s
}

// day returns the drawn minutes of a day (days since the Unix epoch).
func (s *series) day(d int64) *dayMinutes {
	s.mu.Lock()
	if e, ok := s.minutes[d]; ok {
		s.lru.MoveToFront(e)
		s.mu.Unlock()
		return e.Value.(*dayMinutes)
	}
	s.mu.Unlock()
	dm := s.drawDay(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.minutes[d]; ok { // drawn meanwhile by another request
		return e.Value.(*dayMinutes)
	}
	s.minutes[d] = s.lru.PushFront(dm)
	if s.lru.Len() > minutesCacheDays {
		old := s.lru.Remove(s.lru.Back()).(*dayMinutes)
		delete(s.minutes, old.day)
	}
	return dm
}

// drawDay draws the 1440 minutes of day d as a bridge from its open to the
// next day's open, with an intraday volatility profile and half-hourly bursts.
func (s *series) drawDay(d int64) *dayMinutes {
	i := d - firstDay
	if i < 0 || i+1 >= int64(len(s.opens)) {
		i = max(0, min(i, int64(len(s.opens))-2))
	}
	open, next := s.opens[i], s.opens[i+1]
	r := newRNG(s.seed, hashString(s.asset.base), uint64(d))
	// Minute volatility in ppm: daily / sqrt(1440) ≈ daily / 38, less the
	// average lift of the intraday profile and the bursts below (≈ 1.16).
	base := s.vols[i] / 44
	var burst [48]int64
	for h := range burst {
		burst[h] = r.between(60, 140) // per cent
		if r.between(0, 19) == 0 {
			burst[h] *= 2 // a news half-hour
		}
	}
	var w [1441]int64 // cumulative moves, ppm
	var sig [1440]int64
	for m := 0; m < 1440; m++ {
		hour := m / 60
		profile := int64(70)
		if hour >= 13 && hour < 21 { // the American session moves most
			profile = 140
		} else if hour >= 7 && hour < 13 {
			profile = 100
		}
		sig[m] = max(base*profile/100*burst[m/30]/100, 1)
		w[m+1] = w[m] + sig[m]*r.normal()>>16
	}
	dm := &dayMinutes{day: d}
	start := d * 86400
	prev := open
	for m := 0; m < 1440; m++ {
		// Bridge: the walk less its drift to the day's end, plus the straight line to next.
		bridge := w[m+1] - w[1440]*int64(m+1)/1440
		p := open + (next-open)*int64(m+1)/1440 + open/1000*bridge/1000
		p = max(p, fine)
		o, c := roundTicks(prev), roundTicks(p)
		exc := open / 1000 * sig[m] / 1000 * 2 / 5 // wick size in ticks × fine
		hi := max(o, c) + roundTicks(exc*abs64(r.normal())>>16)
		lo := max(min(o, c)-roundTicks(exc*abs64(r.normal())>>16), 1)
		move := abs64(p-prev) * 1_000_000 / open // ppm
		vol := s.asset.baseVolume * (30 + 70*move/max(sig[m], 1)) / 100 * r.between(60, 140) / 100
		vol = max(vol*burst[m/30]/100, 1)
		count := vol/r.between(3, 8) + 1
		dm.bars[m] = bar{id: start + int64(m)*60, open: o, close: c, low: lo, high: hi,
			vol: vol, count: count, turnover: vol * ((o + c + hi + lo) / 4)}
		prev = p
	}
	return dm
}

func roundTicks(p int64) int64 { return (p + fine/2) / fine }

// halfHours returns the 48 half-hour aggregates of a past day.
func (s *series) halfHours(d int64) *[48]bar {
	s.mu.Lock()
	h, ok := s.halves[d]
	s.mu.Unlock()
	if ok {
		return h
	}
	dm := s.day(d)
	h = new([48]bar)
	for m, b := range dm.bars {
		h[m/30].merge(b)
	}
	s.mu.Lock()
	s.halves[d] = h
	s.mu.Unlock()
	return h
}

// partial is minute b as it stands elapsed into it: its close moves from the
// open toward the final close, and its range and volume grow, so that when
// the minute ends it is exactly the drawn minute.
func partial(b bar, elapsed time.Duration) bar {
	f, full := int64(elapsed/time.Millisecond), int64(time.Minute/time.Millisecond)
	if f >= full {
		return b
	}
	c := b.open + (b.close-b.open)*f/full
	p := b
	p.close = c
	p.high = max(b.open, c) + (b.high-max(b.open, b.close))*f/full
	p.low = min(b.open, c) - (min(b.open, b.close)-b.low)*f/full
	p.vol = b.vol * f / full
	p.count = b.count * f / full
	p.turnover = p.vol * ((p.open + p.close + p.high + p.low) / 4)
	return p
}

// fold aggregates the minutes in [start, end) that have begun by now.
func (s *series) fold(start, end int64, now time.Time) (bar, bool) {
	nowSec := now.Unix()
	var acc bar
	any := false
	for t := start; t < end && t <= nowSec; {
		d := floorDay(t)
		dayStart := d * 86400
		if t%1800 == 0 && end-t >= 1800 && dayStart+86400 <= nowSec {
			acc.merge(s.halfHours(d)[(t-dayStart)/1800])
			t += 1800
			any = true
			continue
		}
		m := s.day(d).bars[(t-dayStart)/60]
		if t+60 > nowSec {
			m = partial(m, now.Sub(time.Unix(t, 0)))
		}
		acc.merge(m)
		any = true
		t += 60
	}
	acc.id = start
	return acc, any
}

func floorDay(t int64) int64 {
	if t < 0 {
		return (t - 86399) / 86400
	}
	return t / 86400
}

// candles returns the candles of period p whose ids are in [from, to],
// ascending, as they stand at now: nothing after now, nothing older than the
// two-year horizon. scale (ppm, 1e6 = none) lifts a future over its swap.
func (s *series) candles(p venueapi.Period, from, to int64, now time.Time, scale int64) []venueapi.Candle {
	horizon := p.Start(now.AddDate(-2, 0, 0).Unix())
	if from < horizon {
		from = horizon
	}
	first := p.Start(from)
	if first < from {
		first = p.Next(first)
	}
	last := min(to, now.Unix())
	out := make([]venueapi.Candle, 0, max(0, min(p.Count(first, last), venueapi.KLineMaxSize*2)))
	for id := first; id <= last; id = p.Next(id) {
		b, ok := s.fold(id, p.Next(id), now)
		if !ok {
			break
		}
		out = append(out, s.candle(b, scale))
	}
	return out
}

// latest returns the latest n candles of period p at now, ascending.
func (s *series) latest(p venueapi.Period, n int, now time.Time, scale int64) []venueapi.Candle {
	last := p.Start(now.Unix())
	first := last
	for i := 1; i < n; i++ {
		first = p.Prev(first)
	}
	return s.candles(p, first, last, now, scale)
}

// candle converts a bar to the venue's record: ticks to prices at the
// asset's precision, amount = vol × face value, turnover = Σ vol × face × price.
func (s *series) candle(b bar, scale int64) venueapi.Candle {
	exp := -s.asset.priceDecimals
	px := func(t int64) decimal.Decimal {
		if scale != 1_000_000 {
			t = (t*scale + 500_000) / 1_000_000
		}
		return decimal.New(t, exp)
	}
	vol := decimal.NewFromInt(b.vol)
	turnover := decimal.New(b.turnover, exp).Mul(s.asset.face)
	if scale != 1_000_000 {
		turnover = turnover.Mul(decimal.New(scale, -6))
	}
	return venueapi.Candle{
		ID: b.id, Vol: vol, Count: decimal.NewFromInt(b.count),
		Open: px(b.open), Close: px(b.close), Low: px(b.low), High: px(b.high),
		Amount: vol.Mul(s.asset.face), TradeTurnover: turnover,
	}
}
