package studies

import (
	"errors"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// TestDivMatchesDivRound checks div's word-sized path against DivRound, at
// the ties, the signs and the edges of the fast path.
func TestDivMatchesDivRound(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"1", "3"}, {"2", "3"}, {"-2", "3"}, {"1", "-3"}, {"-1", "-3"},
		{"0.0000000000005", "1"}, {"-0.0000000000005", "1"}, {"0.0000000000015", "1"}, // ties round away from zero
		// the same ties on the word-sized path (0 ≤ k ≤ 19; the ones above take DivRound's)
		{"5", "10000000000000"}, {"-5", "10000000000000"}, {"3", "2000000000000"}, {"-3", "-2000000000000"}, {"0.5", "1000000000000"},
		{"0.00000000000049999", "1"}, {"1e-13", "1"}, {"5e-13", "2"},
		{"48725.6", "7"}, {"1218140.3", "25"}, {"92.857142857143", "1.607142857142"},
		{"999999999999999999", "7"}, {"9999999", "0.0000001"}, {"123456789012345678", "0.001"},
		{"1e30", "3"}, {"-9223372036854775807", "2"}, {"1", "1e30"}, {"0", "5"}, {"12", "1e-8"},
		// a quotient of 2⁶⁴−1 whose remainder rounds it up: the increment wrapped to 0
		{"4224304392.87948732", "229"}, {"-4224304392.87948732", "229"},
		// on the word-sized path (k = 19), quotients at the top of an int64: 2⁶³−2 rounded up
		// to 2⁶³−1; 2⁶³−1 as it is; 2⁶³−1 rounded up past it
		{"811168186843288430e7", "879470310426620891"}, {"570295205532962629e7", "618315300796905351"},
		{"916594759823009885e7", "993774029888936473"},
	} {
		a, b := decimal.RequireFromString(tc.a), decimal.RequireFromString(tc.b)
		if got, want := div(a, b), a.DivRound(b, places); !got.Equal(want) {
			t.Errorf("div(%s, %s) = %s, want %s", tc.a, tc.b, got, want)
		}
	}
}

func FuzzDiv(f *testing.F) {
	f.Add(int64(5), int32(-13), int64(1), int32(0))
	f.Add(int64(487256), int32(-1), int64(7), int32(0))
	f.Fuzz(func(t *testing.T, ca int64, ea int32, cb int64, eb int32) {
		if cb == 0 || ea < -40 || ea > 40 || eb < -40 || eb > 40 {
			return
		}
		a, b := decimal.New(ca, ea), decimal.New(cb, eb)
		if got, want := div(a, b), a.DivRound(b, places); !got.Equal(want) {
			t.Errorf("div(%s, %s) = %s, want %s", a, b, got, want)
		}
	})
}

// FuzzUpdate edits a series in one of the ways the chart does (or any other
// way), in either form of numbers, and checks that Update then holds what
// Reset computes.
func FuzzUpdate(f *testing.F) {
	f.Add(uint16(60), uint8(0), uint8(5), uint8(3), int64(123))
	f.Add(uint16(60), uint8(1), uint8(59), uint8(0), int64(-77))
	f.Add(uint16(60), uint8(2), uint8(40), uint8(2), int64(5))
	f.Add(uint16(90), uint8(3), uint8(10), uint8(30), int64(0))
	f.Add(uint16(80), uint8(4), uint8(10), uint8(30), int64(9))
	f.Add(uint16(80), uint8(5), uint8(0), uint8(0), int64(-3))
	f.Fuzz(func(t *testing.T, n uint16, op, at, count uint8, delta int64) {
		all := forms[int(op/4)%len(forms)].of(benchCandles(int(n%300) + 2))
		lo, hi := len(all)/3, len(all)-len(all)/4 // the series before the edit
		next := append([]venueapi.Candle(nil), all[lo:hi]...)
		switch op % 4 {
		case 0: // prepend count candles
			next = append(append([]venueapi.Candle(nil), all[max(0, lo-int(count)):lo]...), next...)
		case 1: // change one candle's close, usually the last
			i := len(next) - 1 - int(at)%len(next)
			next[i].Close = next[i].Close.Add(decimal.New(delta, -2))
		case 2: // append count candles, changing the old last one's volume
			next[len(next)-1].Vol = next[len(next)-1].Vol.Add(decimal.New(delta%1000, 0))
			next = append(next, all[hi:min(len(all), hi+int(count))]...)
		case 3: // drop candles from either end
			from := min(len(next), int(at)%4)
			next = next[from:max(from, len(next)-int(count)%4)]
		}
		specs, err := ParseSpecs("ma:3,ma:7,ema:5,boll,vol_ma:4,macd,rsi")
		if err != nil {
			t.Fatal(err)
		}
		s := NewSet(specs)
		s.Reset(all[lo:hi])
		s.Update(next)
		fresh := NewSet(specs)
		fresh.Reset(next)
		sameLines(t, "Update", s.Lines(), fresh.Lines())
	})
}

// FuzzStdDev holds the machine-word standard deviation to the decimal one.
func FuzzStdDev(f *testing.F) {
	f.Add(int64(487256), int64(1), int64(300), uint8(20), int32(-1))
	f.Add(int64(1), int64(-7), int64(2_000_000_000), uint8(3), int32(-6))
	f.Add(int64(5), int64(0), int64(1), uint8(20), int32(0))
	f.Fuzz(func(t *testing.T, base, step, spread int64, n uint8, exp int32) {
		if n == 0 || exp < -14 || exp > 4 {
			return
		}
		xs := make([]point, int(n%40)+1)
		seed := uint64(step)
		for i := range xs {
			seed = seed*6364136223846793005 + 1442695040888963407
			var off int64
			if spread != 0 {
				off = int64(seed>>1) % spread
			}
			c := decimal.New(base+off, exp)
			xs[i] = point{close: c, c: numOf(c)}
		}
		want := stdDevDecimal(xs)
		if got := stdDev(xs).dec(); !got.Equal(want) {
			t.Errorf("stdDev = %s, want %s", got, want)
		}
	})
}

func TestStdDevTakesMachineWordsWhenItCan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		closes []string
		words  bool
		want   string
	}{
		{"prices with one decimal", []string{"48725.6", "48730.1", "48719.9", "48790"}, true, ""},
		{"1..20", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20"}, true, "5.766281297335"},
		{"seven decimals", []string{"0.1234567", "0.1234568"}, false, "0.00000005"},
		{"moves of more than 2147 within the window", []string{"100000", "103000"}, false, "1500"},
		{"prices beyond a word", []string{"9999999999", "1"}, false, "4999999999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := make([]point, len(tc.closes))
			for i, c := range tc.closes {
				d := decimal.RequireFromString(c)
				xs[i] = point{close: d, c: numOf(d)}
			}
			w, ok := stdDevWords(xs)
			if ok != tc.words {
				t.Fatalf("stdDevWords ok = %v, want %v", ok, tc.words)
			}
			want := stdDevDecimal(xs)
			if ok && !decimal.New(w, -places).Equal(want) {
				t.Errorf("stdDevWords = %d, want %s", w, want)
			}
			if tc.want != "" && !want.Equal(decimal.RequireFromString(tc.want)) {
				t.Errorf("stdDevDecimal = %s, want %s", want, tc.want)
			}
			if got := stdDev(xs).dec(); !got.Equal(want) {
				t.Errorf("stdDev = %s, want %s", got, want)
			}
		})
	}
}

// FuzzNum holds every num operation, in either form, to decimal arithmetic.
func FuzzNum(f *testing.F) {
	f.Add(int64(487256), int32(-1), int64(3), int32(-12), int64(7))
	f.Add(int64(1)<<62, int32(-12), int64(-1), int32(-12), int64(2))
	f.Add(int64(-5), int32(-13), int64(9), int32(5), int64(500))
	f.Fuzz(func(t *testing.T, ca int64, ea int32, cb int64, eb int32, k int64) {
		if ea < -30 || ea > 30 || eb < -30 || eb > 30 || k <= 0 || k >= 1<<31 {
			return
		}
		a, b := decimal.New(ca, ea), decimal.New(cb, eb)
		na, nb := numOf(a), numOf(b)
		kd := decimal.NewFromInt(k)
		check := func(op string, got num, want decimal.Decimal) {
			t.Helper()
			if !got.dec().Equal(want) {
				t.Errorf("%s(%s, %s, %d) = %s, want %s", op, a, b, k, got.dec(), want)
			}
		}
		check("numOf", na, a)
		check("add", na.add(nb), a.Add(b))
		check("sub", na.sub(nb), a.Sub(b))
		check("neg", na.neg(), a.Neg())
		check("mulInt", na.mulInt(k), a.Mul(kd))
		check("divInt", na.divInt(k), div(a, kd))
		if !b.IsZero() {
			check("quo", na.quo(nb), div(a, b))
		}
		if na.sign() != a.Sign() {
			t.Errorf("sign(%s) = %d", a, na.sign())
		}
	})
}

// FuzzParseSpecs: any input either reads, and its canonical form reads back
// to the same specs, or fails naming indicators.
func FuzzParseSpecs(f *testing.F) {
	for _, s := range []string{"ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi", "vol_ma:5, VOL_MA:20", "ma:,", "rsi:1", "ema:-1", "ma:7:8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := ParseSpecs(s)
		if err != nil {
			var pe *venueapi.ParamError
			if !errors.As(err, &pe) || pe.Param != "indicators" {
				t.Fatalf("ParseSpecs(%q) error %v does not name indicators", s, err)
			}
			return
		}
		again, err := ParseSpecs(FormatSpecs(specs))
		if err != nil || !slices.Equal(again, specs) {
			t.Fatalf("ParseSpecs(%q) = %v, but its canonical form %q reads as %v, %v", s, specs, FormatSpecs(specs), again, err)
		}
		if len(specs) > MaxSpecs {
			t.Fatalf("ParseSpecs(%q) gave %d specs", s, len(specs))
		}
		NewSet(specs).Reset(benchCandles(30))
	})
}
