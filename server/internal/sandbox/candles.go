package sandbox

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Candles are drawn top-down: a day's bar from the daily path, split into
// its half-hours, a half-hour into its minutes, and the open minute into
// seconds that are revealed up to now. A candle of any period is the
// aggregate of the largest whole pieces it covers, so every period agrees
// with every other exactly, and a window of 2000 candles draws at most a few
// hundred splits, whatever its period. Nothing is kept between requests but
// each day's turnover (see series.dayBar).

// maxBasisDays caps the days to delivery that a future's premium grows with:
// a future listed long before delivery trades like one half a year out.
const maxBasisDays = 180

// window is one request's view of a contract's market at now. It keeps the
// last day's and half-hour's pieces, because a window walks them in order.
type window struct {
	s           *series
	now         int64 // Unix seconds: nothing after it exists
	deliveryDay int64 // a future's delivery day, days since the epoch; 0 for a swap

	day     int64 // the day whose bar (and halves, when halfOK) are below
	dayBar  bar
	dayOK   bool
	halves  [48]bar
	halfOK  bool
	half    int64 // day*48 + half-hour of the minutes below; -1 before any
	mins    [30]bar
	seconds [60]bar
}

// window returns a view of market m's candles at now.
func (s *Sandbox) window(m Market, now time.Time) *window {
	w := &window{s: s.series[m.Base], now: now.Unix(), day: -1, half: -1}
	if m.Kind == venueapi.KindFuture {
		w.deliveryDay = floorDiv(m.Delivery.Unix(), 86400)
	}
	return w
}

// basis is the premium of the future over its swap on day d, in ticks: the
// asset's annual rate for the days left, shrinking to nothing at delivery.
// Constant within a day, so a day's pieces shift together and stay exact.
func (w *window) basis(d int64) int64 {
	if w.deliveryDay == 0 {
		return 0
	}
	days := min(max(w.deliveryDay-d, 0), maxBasisDays)
	return mulDiv(w.s.opens[d-firstDay], w.s.asset.basisPPM*days, 365*1_000_000)
}

// bar returns day d's bar, or false when the market is not drawn that day.
func (w *window) bar(d int64) (bar, bool) {
	if d != w.day {
		w.day, w.halfOK = d, false
		w.dayBar, w.dayOK = w.s.dayBar(d)
	}
	return w.dayBar, w.dayOK
}

func (w *window) halfHour(d, h int64) bar {
	if !w.halfOK {
		w.s.halfHours(d, w.dayBar, &w.halves)
		w.halfOK = true
	}
	return w.halves[h]
}

func (w *window) minute(d, m int64) bar {
	if k := d*48 + m/30; k != w.half {
		w.s.minutes(d, m/30, w.halfHour(d, m/30), &w.mins)
		w.half = k
	}
	return w.mins[m%30]
}

// partial is minute m of day d as it stands after its first n seconds (0
// to 59): nothing traded yet at its first instant. Its turnover is the
// minute's in proportion to the volume so far, held within the range so
// far, so that the minute's own is reached when the minute closes.
func (w *window) partial(d, m, n int64) bar {
	whole := w.minute(d, m)
	b := bar{open: whole.open, close: whole.open, high: whole.open, low: whole.open}
	if n == 0 {
		return b
	}
	w.s.seconds(d, m, whole, &w.seconds)
	b = w.seconds[0]
	for _, s := range w.seconds[1:n] {
		b.merge(s)
	}
	if whole.vol > 0 {
		b.turn = min(max(mulDiv(whole.turn, b.vol, whole.vol), b.vol*b.low), b.vol*b.high)
	}
	return b
}

// fold aggregates the market over [start, end) as it stands at now, from
// whole days, half-hours and minutes, and the revealed seconds of the open
// minute. start and end are whole minutes; false when nothing is drawn.
func (w *window) fold(start, end int64) (bar, bool) {
	var acc bar
	seen := false
	for t := start; t < end && t <= w.now; {
		d := floorDiv(t, 86400)
		if _, ok := w.bar(d); !ok {
			break
		}
		off := t - d*86400
		var b bar
		switch {
		case off == 0 && t+86400 <= end && t+86400 <= w.now:
			b, t = w.dayBar, t+86400
		case off%1800 == 0 && t+1800 <= end && t+1800 <= w.now:
			b, t = w.halfHour(d, off/1800), t+1800
		case t+60 <= w.now:
			b, t = w.minute(d, off/60), t+60
		default: // the open minute: the seconds over by now
			b, t = w.partial(d, off/60, w.now-t), t+60
		}
		b = b.shift(w.basis(d))
		if seen {
			acc.merge(b)
		} else {
			acc, seen = b, true
		}
	}
	return acc, seen
}

// candles returns the candles of period p whose ids lie in [from, to],
// ascending: none after now, and none that starts before the horizon, two
// years back from now (docs/decisions.md#history-depth). So the candle
// holding the horizon is left out unless it starts exactly there.
func (w *window) candles(p venueapi.Period, from, to int64) []venueapi.Candle {
	horizon := time.Unix(w.now, 0).UTC().AddDate(-2, 0, 0).Unix()
	id := p.Ceil(max(from, horizon))
	last := min(to, w.now)
	out := make([]venueapi.Candle, 0, min(p.Count(id, last), venueapi.KLineMaxSize))
	for ; id <= last; id = p.Next(id) {
		b, ok := w.fold(id, p.Next(id))
		if !ok {
			break
		}
		out = append(out, w.candle(id, b))
	}
	return out
}

// latest returns the latest n candles of period p, ascending, the last one
// the open candle.
func (w *window) latest(p venueapi.Period, n int) []venueapi.Candle {
	last := p.Start(w.now)
	return w.candles(p, p.Back(last, n-1), last)
}

// markPrice is the latest price: the close of the open minute.
func (w *window) markPrice() decimal.Decimal {
	b, ok := w.fold(venueapi.Period1Min.Start(w.now), venueapi.Period1Min.Start(w.now)+60)
	if !ok {
		return decimal.Zero
	}
	return decimal.New(b.close, -w.s.asset.priceDecimals)
}

// candle is b as the venue writes it: ticks as prices at the asset's
// precision, amount = vol × face value, trade_turnover = Σ vol × face × price
// (docs/decisions.md, Face value), each built as one coefficient and exponent.
func (w *window) candle(id int64, b bar) venueapi.Candle {
	exp, face := -w.s.asset.priceDecimals, w.s.asset.face
	return venueapi.Candle{
		ID: id, Vol: decimal.NewFromInt(b.vol), Count: decimal.NewFromInt(b.count),
		Open: decimal.New(b.open, exp), Close: decimal.New(b.close, exp), Low: decimal.New(b.low, exp), High: decimal.New(b.high, exp),
		Amount: timesFace(b.vol, 0, face), TradeTurnover: timesFace(b.turn, exp, face),
	}
}

// timesFace is n×10^exp × face, computed in integers when the product fits.
func timesFace(n int64, exp int32, face decimal.Decimal) decimal.Decimal {
	if c := face.CoefficientInt64(); c > 0 && face.NumDigits() <= 18 && abs64(n) <= (1<<63-1)/c {
		return decimal.New(n*c, exp+face.Exponent())
	}
	return decimal.New(n, exp).Mul(face)
}
