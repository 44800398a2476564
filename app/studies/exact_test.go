package studies

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// The exact reference: each study written from its definition in
// docs/studies.md in plain decimals, every quotient DivRound(…, 12), σ
// floored to 12 places, without running state or machine words.

func exactDiv(a decimal.Decimal, n int) decimal.Decimal {
	return a.DivRound(decimal.NewFromInt(int64(n)), places)
}

func exactMA(x []decimal.Decimal, n int) []decimal.NullDecimal {
	out := make([]decimal.NullDecimal, len(x))
	for i := n - 1; i < len(x); i++ {
		s := decimal.Zero
		for _, v := range x[i-n+1 : i+1] {
			s = s.Add(v)
		}
		out[i] = valid(exactDiv(s, n))
	}
	return out
}

// exactEMA is the EMA of x where ok, seeded with the mean of the first n
// valid values; x is invalid for a while, then valid to its end.
func exactEMA(x []decimal.NullDecimal, n int) []decimal.NullDecimal {
	out := make([]decimal.NullDecimal, len(x))
	first := 0
	for first < len(x) && !x[first].Valid {
		first++
	}
	if first+n > len(x) {
		return out
	}
	s := decimal.Zero
	for _, v := range x[first : first+n] {
		s = s.Add(v.Decimal)
	}
	prev := exactDiv(s, n)
	out[first+n-1] = valid(prev)
	for i := first + n; i < len(x); i++ {
		prev = prev.Add(x[i].Decimal.Sub(prev).Mul(decimal.NewFromInt(2)).DivRound(decimal.NewFromInt(int64(n+1)), places))
		out[i] = valid(prev)
	}
	return out
}

func allValid(x []decimal.Decimal) []decimal.NullDecimal {
	out := make([]decimal.NullDecimal, len(x))
	for i, v := range x {
		out[i] = valid(v)
	}
	return out
}

func exactSigma(w []decimal.Decimal) decimal.Decimal {
	// population σ = sqrt(Σ(C − mean)²/n), floored to 12 places, from the
	// exact rational variance.
	n := int64(len(w))
	s1, s2 := decimal.Zero, decimal.Zero
	for _, v := range w {
		s1, s2 = s1.Add(v), s2.Add(v.Mul(v))
	}
	spread := decimal.NewFromInt(n).Mul(s2).Sub(s1.Mul(s1)) // n²·variance
	r := new(big.Int).Sqrt(spread.Shift(2 * places).BigInt())
	return decimal.NewFromBigInt(r.Quo(r, big.NewInt(n)), -places)
}

func exactBoll(x []decimal.Decimal) (up, mid, lo []decimal.NullDecimal) {
	mid = exactMA(x, BollPeriod)
	up, lo = make([]decimal.NullDecimal, len(x)), make([]decimal.NullDecimal, len(x))
	for i := BollPeriod - 1; i < len(x); i++ {
		band := exactSigma(x[i-BollPeriod+1 : i+1]).Mul(decimal.NewFromInt(BollWidth))
		up[i], lo[i] = valid(mid[i].Decimal.Add(band)), valid(mid[i].Decimal.Sub(band))
	}
	return up, mid, lo
}

func exactRSI(x []decimal.Decimal, n int) []decimal.NullDecimal {
	out := make([]decimal.NullDecimal, len(x))
	g, l := decimal.Zero, decimal.Zero
	for i := 1; i < len(x); i++ {
		d := x[i].Sub(x[i-1])
		gi, li := decimal.Max(d, decimal.Zero), decimal.Max(d.Neg(), decimal.Zero)
		switch {
		case i < n:
			g, l = g.Add(gi), l.Add(li)
			continue
		case i == n:
			g, l = exactDiv(g.Add(gi), n), exactDiv(l.Add(li), n)
		default:
			g = exactDiv(g.Mul(decimal.NewFromInt(int64(n-1))).Add(gi), n)
			l = exactDiv(l.Mul(decimal.NewFromInt(int64(n-1))).Add(li), n)
		}
		if l.IsZero() {
			out[i] = valid(decimal.NewFromInt(100))
		} else {
			out[i] = valid(g.Mul(decimal.NewFromInt(100)).DivRound(g.Add(l), places))
		}
	}
	return out
}

func exactLines(cs []venueapi.Candle) map[string][]decimal.NullDecimal {
	closes, vols := make([]decimal.Decimal, len(cs)), make([]decimal.Decimal, len(cs))
	for i, c := range cs {
		closes[i], vols[i] = c.Close, c.Vol
	}
	up, mid, lo := exactBoll(closes)
	fast, slow := exactEMA(allValid(closes), MACDFast), exactEMA(allValid(closes), MACDSlow)
	dif := make([]decimal.NullDecimal, len(cs))
	for i := range dif {
		if fast[i].Valid && slow[i].Valid {
			dif[i] = valid(fast[i].Decimal.Sub(slow[i].Decimal))
		}
	}
	dea := exactEMA(dif, MACDSignal)
	hist := make([]decimal.NullDecimal, len(cs))
	for i := range hist {
		if dea[i].Valid {
			hist[i] = valid(dif[i].Decimal.Sub(dea[i].Decimal))
		}
	}
	return map[string][]decimal.NullDecimal{
		"MA 1": exactMA(closes, 1), "MA 7": exactMA(closes, 7), "EMA 1": exactEMA(allValid(closes), 1),
		"EMA 5": exactEMA(allValid(closes), 5), "BOLL upper": up, "BOLL middle": mid, "BOLL lower": lo,
		"VOL MA 20": exactMA(vols, VolMAPeriod), "VOL MA 3": exactMA(vols, 3),
		"MACD DIF": dif, "MACD DEA": dea, "MACD hist": hist, "RSI 14": exactRSI(closes, RSIPeriod),
	}
}

const reviewSpecs = "ma:1,ma:7,ema:1,ema:5,boll,vol_ma,vol_ma:3,macd,rsi"

// randomSeries makes n candles of one of several kinds of price, with
// gaps in the ids (missing candles).
func randomSeries(r *rand.Rand, kind, n int) []venueapi.Candle {
	out := make([]venueapi.Candle, n)
	id := int64(1_700_000_000)
	price := r.Int64N(1_000_000) + 1
	for i := range out {
		var c decimal.Decimal
		switch kind {
		case 0: // one decimal, like BTC
			price = max(0, price+r.Int64N(2001)-1000)
			c = decimal.New(price, -1)
		case 1: // flat, then zero
			if i > n/2 {
				c = decimal.Zero
			} else {
				c = decimal.New(5, 0)
			}
		case 2: // eight decimals, like a meme coin
			price = max(1, price+r.Int64N(201)-100)
			c = decimal.New(price, -8)
		case 3: // fifteen decimals: no machine word
			price = max(0, price+r.Int64N(2001)-1000)
			c = decimal.New(price, -15)
		case 4: // huge prices, beyond a word after scaling by 10^12
			price = max(0, price+r.Int64N(2001)-1000)
			c = decimal.New(price, 10)
		case 5: // a mix of the above, switching forms mid-series
			switch r.IntN(4) {
			case 0:
				c = decimal.New(r.Int64N(1_000_000), -1)
			case 1:
				c = decimal.New(r.Int64N(1_000_000), -14)
			case 2:
				c = decimal.New(r.Int64N(1_000_000), 9)
			default:
				c = decimal.Zero
			}
		}
		id += 60 * (1 + int64(r.IntN(3)/2)) // every third or so a gap
		v := decimal.New(r.Int64N(1_000_000), -int32(r.IntN(4)))
		if kind == 4 {
			v = v.Shift(12)
		}
		out[i] = venueapi.Candle{ID: id, Open: c, High: c, Low: c, Close: c, Vol: v}
	}
	return out
}

func sameAsExact(t *testing.T, what string, s *Set, cs []venueapi.Candle) {
	t.Helper()
	want := exactLines(cs)
	for _, l := range s.Lines() {
		w, ok := want[l.Name]
		if !ok {
			t.Fatalf("%s: no reference for %q", what, l.Name)
		}
		if len(w) != len(l.Values) {
			t.Fatalf("%s: %s has %d values, want %d", what, l.Name, len(l.Values), len(w))
		}
		for i := range w {
			g := l.Values[i]
			if g.Valid != w[i].Valid || !g.Decimal.Equal(w[i].Decimal) {
				t.Fatalf("%s: %s[%d] = %v, want %v (docs/studies.md)", what, l.Name, i, g, w[i])
			}
		}
	}
}

// TestStudiesEqualTheirExactDefinitions holds every study, after a Reset
// and after each way the chart updates a series (a live update of the last
// candle, several in a row, an append, a prepend, a change in the middle),
// to its definition in docs/studies.md worked out in plain decimals, over
// random series of every kind of price, with fewer candles than the
// periods as well as more.
func TestStudiesEqualTheirExactDefinitions(t *testing.T) {
	specs, err := ParseSpecs(reviewSpecs)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for kind := range 6 {
		for _, n := range []int{0, 1, 2, 6, 13, 14, 15, 19, 20, 25, 26, 33, 34, 60, 120} {
			t.Run(fmt.Sprintf("kind %d, %d candles", kind, n), func(t *testing.T) {
				all := randomSeries(r, kind, n+40)
				base := all[20 : 20+n]
				s := NewSet(specs)
				s.Reset(base)
				sameAsExact(t, "Reset", s, base)
				if n == 0 {
					return
				}
				// live updates of the last candle, several in a row
				cur := append([]venueapi.Candle(nil), base...)
				for range 5 {
					last := &cur[len(cur)-1]
					last.Close = randomSeries(r, kind, 1)[0].Close
					last.Vol = last.Vol.Add(decimal.New(r.Int64N(50), 0))
					if ch := s.Update(cur); ch.From != len(cur)-1 && ch.From != len(cur) {
						t.Fatalf("live update: Change.From = %d, want %d", ch.From, len(cur)-1)
					}
					sameAsExact(t, "live update", s, cur)
				}
				// a new candle opens
				cur = append(cur, all[20+n])
				s.Update(cur)
				sameAsExact(t, "append", s, cur)
				// scrolling back
				cur = append(append([]venueapi.Candle(nil), all[:20]...), cur...)
				s.Update(cur)
				sameAsExact(t, "prepend", s, cur)
				// a change in the middle
				mid := len(cur) / 2
				cur[mid].Close = cur[mid].Close.Add(decimal.New(7, -3))
				s.Update(cur)
				sameAsExact(t, "middle", s, cur)
			})
		}
	}
}
