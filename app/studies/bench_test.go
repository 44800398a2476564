package studies

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// benchCandles is a 2000-candle random walk with prices like the venue's
// (one decimal place) and integer volumes.
func benchCandles(n int) []venueapi.Candle {
	out := make([]venueapi.Candle, n)
	price, seed := int64(487256), uint32(1)
	for i := range out {
		seed = seed*1664525 + 1013904223
		price += int64(seed>>24) - 128
		c := decimal.New(price, -1)
		out[i] = venueapi.Candle{ID: 1_700_000_000 + int64(i)*60, Open: c, Close: c, High: c, Low: c, Vol: decimal.NewFromInt(int64(seed >> 20))}
	}
	return out
}

const benchSpecs = "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi"

func BenchmarkReset(b *testing.B) {
	specs, err := ParseSpecs(benchSpecs)
	if err != nil {
		b.Fatal(err)
	}
	cs := benchCandles(2000)
	b.ReportAllocs()
	for b.Loop() {
		NewSet(specs).Reset(cs)
	}
}

// BenchmarkUpdateLast is a live update: the last candle's close and volume
// change, alternating between two values.
func BenchmarkUpdateLast(b *testing.B) {
	specs, err := ParseSpecs(benchSpecs)
	if err != nil {
		b.Fatal(err)
	}
	cs := benchCandles(2000)
	s := NewSet(specs)
	s.Reset(cs)
	last := [2]venueapi.Candle{cs[len(cs)-1], cs[len(cs)-1]}
	last[1].Close = last[1].Close.Add(decimal.New(5, -1))
	last[1].Vol = last[1].Vol.Add(decimal.NewFromInt(3))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		cs[len(cs)-1] = last[i%2]
		if ch := s.Update(cs); ch.From != len(cs)-1 {
			b.Fatalf("Change.From = %d, want %d", ch.From, len(cs)-1)
		}
	}
}

// BenchmarkUpdatePrepend is a back-scroll: 500 older candles arrive before
// the 1500 computed.
func BenchmarkUpdatePrepend(b *testing.B) {
	specs, err := ParseSpecs(benchSpecs)
	if err != nil {
		b.Fatal(err)
	}
	cs := benchCandles(2000)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s := NewSet(specs)
		s.Reset(cs[500:])
		b.StartTimer()
		if ch := s.Update(cs); ch.From != 0 {
			b.Fatalf("Change.From = %d, want 0", ch.From)
		}
	}
}
