package studies

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// closes is a fixed 40-candle series, long enough for MACD's histogram
// (valid from index 33) to have a few values.
var testCloses = []string{
	"100.5", "101.2", "100.8", "102.3", "103.1", "102.7", "104.0", "105.2", "104.6", "103.9",
	"105.5", "106.1", "105.8", "107.3", "108.0", "107.2", "106.5", "107.9", "109.4", "110.1",
	"109.3", "108.8", "110.5", "111.2", "110.7", "112.4", "113.0", "112.1", "111.5", "112.9",
	"114.2", "113.6", "115.1", "116.0", "115.3", "114.8", "116.7", "117.5", "116.9", "118.2",
}

func series(closes []string) []venueapi.Candle {
	out := make([]venueapi.Candle, len(closes))
	for i, c := range closes {
		d := decimal.RequireFromString(c)
		out[i] = venueapi.Candle{ID: 1_700_000_000 + int64(i)*60, Close: d, Open: d, High: d, Low: d,
			Vol: decimal.NewFromInt(int64(1000 + (i*37)%250))}
	}
	return out
}

// forms are the same series in the two forms a running number takes: as
// given (machine words), and nudged to 14 decimal places, which no machine
// word holds at 12, so that every study runs on decimals.
var forms = []struct {
	name string
	of   func([]venueapi.Candle) []venueapi.Candle
}{
	{"words", func(cs []venueapi.Candle) []venueapi.Candle { return cs }},
	{"decimals", func(cs []venueapi.Candle) []venueapi.Candle {
		out := append([]venueapi.Candle(nil), cs...)
		for i := range out {
			out[i].Close = out[i].Close.Add(decimal.New(3, -14))
			out[i].Vol = out[i].Vol.Add(decimal.New(1, -13))
		}
		return out
	}},
}

func allSpecs(t testing.TB) []Spec {
	specs, err := ParseSpecs("ma:7,ma:25,ema:9,ema:99,boll,vol_ma,vol_ma:5,macd,rsi")
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// floats are the reference computations, written from the definitions in
// docs/studies.md, in float64 and without running state.
func closesF(cs []venueapi.Candle) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.Close.InexactFloat64()
	}
	return out
}

func nan(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

func refMA(x []float64, n int) []float64 {
	out := nan(len(x))
	for i := n - 1; i < len(x); i++ {
		s := 0.0
		for _, v := range x[i-n+1 : i+1] {
			s += v
		}
		out[i] = s / float64(n)
	}
	return out
}

func refEMA(x []float64, n int) []float64 {
	out := nan(len(x))
	first := 0
	for first < len(x) && math.IsNaN(x[first]) {
		first++
	}
	if first+n > len(x) {
		return out
	}
	out[first+n-1] = refMA(x[first:first+n], n)[n-1]
	a := 2 / float64(n+1)
	for i := first + n; i < len(x); i++ {
		out[i] = a*x[i] + (1-a)*out[i-1]
	}
	return out
}

func refBoll(x []float64, n int, k float64) (up, mid, lo []float64) {
	mid = refMA(x, n)
	up, lo = nan(len(x)), nan(len(x))
	for i := n - 1; i < len(x); i++ {
		v := 0.0
		for _, c := range x[i-n+1 : i+1] {
			v += (c - mid[i]) * (c - mid[i])
		}
		sd := math.Sqrt(v / float64(n))
		up[i], lo[i] = mid[i]+k*sd, mid[i]-k*sd
	}
	return up, mid, lo
}

func refRSI(x []float64, n int) []float64 {
	out := nan(len(x))
	var g, l float64
	for i := 1; i < len(x); i++ {
		d := x[i] - x[i-1]
		gi, li := math.Max(d, 0), math.Max(-d, 0)
		switch {
		case i < n:
			g, l = g+gi, l+li
			continue
		case i == n:
			g, l = (g+gi)/float64(n), (l+li)/float64(n)
		default:
			g, l = (g*float64(n-1)+gi)/float64(n), (l*float64(n-1)+li)/float64(n)
		}
		if l == 0 {
			out[i] = 100
		} else {
			out[i] = 100 - 100/(1+g/l)
		}
	}
	return out
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func lineByName(t *testing.T, s *Set, name string) Line {
	t.Helper()
	for _, l := range s.Lines() {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no line %q", name)
	return Line{}
}

func TestStudiesMatchAFloatReference(t *testing.T) {
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) { matchFloatReference(t, form.of(series(testCloses))) })
	}
}

func matchFloatReference(t *testing.T, cs []venueapi.Candle) {
	x := closesF(cs)
	vols := make([]float64, len(cs))
	for i, c := range cs {
		vols[i] = c.Vol.InexactFloat64()
	}
	up, mid, lo := refBoll(x, 20, 2)
	dif := sub(refEMA(x, 12), refEMA(x, 26))
	dea := refEMA(dif, 9)
	s := NewSet(allSpecs(t))
	s.Reset(cs)
	for _, tc := range []struct {
		line string
		want []float64
	}{
		{"MA 7", refMA(x, 7)},
		{"MA 25", refMA(x, 25)},
		{"EMA 9", refEMA(x, 9)},
		{"EMA 99", nan(len(x))}, // 40 candles are too few
		{"BOLL upper", up},
		{"BOLL middle", mid},
		{"BOLL lower", lo},
		{"VOL MA 20", refMA(vols, 20)},
		{"VOL MA 5", refMA(vols, 5)},
		{"MACD DIF", dif},
		{"MACD DEA", dea},
		{"MACD hist", sub(dif, dea)},
		{"RSI 14", refRSI(x, 14)},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got := lineByName(t, s, tc.line).Values
			if len(got) != len(tc.want) {
				t.Fatalf("%d values, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				switch {
				case math.IsNaN(w) && got[i].Valid:
					t.Errorf("[%d] = %s, want invalid (too little history)", i, got[i].Decimal)
				case !math.IsNaN(w) && !got[i].Valid:
					t.Errorf("[%d] invalid, want %g", i, w)
				case !math.IsNaN(w) && math.Abs(got[i].Decimal.InexactFloat64()-w) > 1e-9*math.Max(1, math.Abs(w)):
					t.Errorf("[%d] = %s, want %g", i, got[i].Decimal, w)
				}
			}
		})
	}
}

// TestStudiesExactValues checks values worked out by hand on short series.
func TestStudiesExactValues(t *testing.T) {
	seq := func(n int) []string { // closes 1, 2, …, n
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(i + 1)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		specs  string
		closes []string
		line   string
		want   []string // "" is invalid
	}{
		{"MA 3 is invalid for two candles, then the mean", "ma:3", []string{"10", "11", "12", "13.5"}, "MA 3",
			[]string{"", "", "11", "12.166666666667"}},
		{"EMA 3 is seeded with the mean of the first three", "ema:3", []string{"10", "11", "12", "13", "14"}, "EMA 3",
			// seed (10+11+12)/3 = 11; (2·13 + 2·11)/4 = 12; (2·14 + 2·12)/4 = 13
			[]string{"", "", "11", "12", "13"}},
		{"EMA 2 rounds each step to 12 places", "ema:2", []string{"1", "2", "2"}, "EMA 2",
			// seed 1.5; (2·2 + 1.5)/3 = 1.8333…
			[]string{"", "1.5", "1.833333333333"}},
		{"BOLL middle on 1..20 is 10.5", "boll", seq(20), "BOLL middle", append(make([]string, 19), "10.5")},
		{"BOLL upper on 1..20 is 10.5 + 2σ, σ = sqrt(399/12) cut to 12 places", "boll", seq(20), "BOLL upper",
			// σ² = (20² − 1)/12 = 33.25, σ = 5.766281297335398…
			append(make([]string, 19), "22.03256259467")},
		{"BOLL lower on 1..20", "boll", seq(20), "BOLL lower", append(make([]string, 19), "-1.03256259467")},
		{"BOLL of a flat series has no width", "boll", append(make([]string, 0), "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5"), "BOLL upper",
			append(make([]string, 19), "5")},
		{"RSI of a rising series is 100", "rsi", seq(16), "RSI 14", append(make([]string, 14), "100", "100")},
		{"RSI of a flat series is 100: it never fell", "rsi", []string{"5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5", "5"}, "RSI 14", append(make([]string, 14), "100")},
		{"RSI of a falling series is 0", "rsi", []string{"15", "14", "13", "12", "11", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"}, "RSI 14",
			append(make([]string, 14), "0")},
		{"RSI with seven gains of 2 and seven losses of 1, then a loss of 3", "rsi",
			[]string{"10", "12", "11", "13", "12", "14", "13", "15", "14", "16", "15", "17", "16", "18", "17", "14"}, "RSI 14",
			// first: G = 14/14 = 1, L = 7/14 = 0.5, RSI = 100·1/1.5 = 66.666666666667;
			// then G = 13/14 = 0.928571428571, L = (0.5·13 + 3)/14 = 0.678571428571,
			// RSI = 100·0.928571428571/1.607142857142 = 57.777777777782 (not the
			// 57.777777777778 of unrounded averages: each average is rounded first)
			append(make([]string, 14), "66.666666666667", "57.777777777782")},
		{"MACD DIF is EMA 12 − EMA 26, valid from candle 26", "macd", seq(27), "MACD DIF",
			// at candle 26 EMA 26 is seeded with the mean of 1..26, 13.5, and EMA 12
			// follows a line rising by 1 a candle at a constant lag: it is the seed
			// 6.5 at candle 12 and grows by 1 a candle, so 20.5 at 26; 20.5 − 13.5 = 7.
			// At 27: EMA 12 = 21.5, EMA 26 = (2·27 + 25·13.5)/27 = 14.5.
			append(make([]string, 25), "7", "7")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := ParseSpecs(tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			s := NewSet(specs)
			s.Reset(series(tc.closes))
			got := lineByName(t, s, tc.line).Values
			if len(got) != len(tc.want) {
				t.Fatalf("%d values, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				if w == "" {
					if got[i].Valid {
						t.Errorf("[%d] = %s, want invalid", i, got[i].Decimal)
					}
					continue
				}
				if !got[i].Valid || !got[i].Decimal.Equal(decimal.RequireFromString(w)) {
					t.Errorf("[%d] = %v, want %s", i, got[i], w)
				}
			}
		})
	}
}

// sameLines fails unless a and b hold the same values.
func sameLines(t *testing.T, what string, a, b []Line) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d lines, want %d", what, len(a), len(b))
	}
	for k := range a {
		if a[k].Name != b[k].Name || len(a[k].Values) != len(b[k].Values) {
			t.Fatalf("%s: line %q with %d values, want %q with %d", what, a[k].Name, len(a[k].Values), b[k].Name, len(b[k].Values))
		}
		for i := range a[k].Values {
			x, y := a[k].Values[i], b[k].Values[i]
			if x.Valid != y.Valid || !x.Decimal.Equal(y.Decimal) {
				t.Fatalf("%s: %s[%d] = %v, want %v", what, a[k].Name, i, x, y)
			}
		}
	}
}

func copyLines(ls []Line) []Line {
	out := make([]Line, len(ls))
	for i, l := range ls {
		out[i] = l
		out[i].Values = append([]decimal.NullDecimal(nil), l.Values...)
	}
	return out
}

func withClose(c venueapi.Candle, close string) venueapi.Candle {
	c.Close = decimal.RequireFromString(close)
	return c
}

func TestUpdateEqualsReset(t *testing.T) {
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			updateEqualsReset(t, form.of(series(append(append([]string{}, testCloses...), testCloses...)))) // 80 candles
		})
	}
}

func updateEqualsReset(t *testing.T, all []venueapi.Candle) {
	base := all[30:70]
	edited := func(cs []venueapi.Candle, i int, close string) []venueapi.Candle {
		out := append([]venueapi.Candle(nil), cs...)
		out[i] = withClose(out[i], close)
		return out
	}
	for _, tc := range []struct {
		name     string
		next     []venueapi.Candle
		wantFrom int
	}{
		{"the last close changes (a live update)", edited(base, len(base)-1, "120.35"), len(base) - 1},
		{"the last volume changes", func() []venueapi.Candle {
			out := append([]venueapi.Candle(nil), base...)
			out[len(out)-1].Vol = decimal.NewFromInt(7)
			return out
		}(), len(base) - 1},
		{"nothing changes", append([]venueapi.Candle(nil), base...), len(base)},
		{"one candle is appended", all[30:71], len(base)},
		{"ten candles are appended", all[30:80], len(base)},
		{"the last candle closes and one opens", append(edited(base, len(base)-1, "99.1"), all[70]), len(base) - 1},
		{"a close in the middle changes", edited(base, 12, "50"), 12},
		{"one candle is prepended", all[29:70], 0},
		{"five candles are prepended", all[25:70], 0},
		{"thirty candles are prepended", all[0:70], 0},
		{"candles are prepended and appended", all[0:80], 0},
		{"candles are prepended and the last changes", edited(all[10:70], 59, "1"), 0},
		{"candles are prepended and an early one changes", edited(all[20:70], 12, "1"), 0},
		{"the first candle is dropped", all[31:70], 0},
		{"the series is replaced", all[0:10], 0},
		{"the series is emptied", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSet(allSpecs(t))
			s.Reset(base)
			before := copyLines(s.Lines())
			ch := s.Update(tc.next)
			if ch.From != tc.wantFrom {
				t.Errorf("Change.From = %d, want %d", ch.From, tc.wantFrom)
			}
			fresh := NewSet(allSpecs(t))
			fresh.Reset(tc.next)
			sameLines(t, "Update", s.Lines(), fresh.Lines())
			// Values before From are what they were.
			for k, l := range s.Lines() {
				for i := 0; i < ch.From && i < len(l.Values); i++ {
					if a, b := l.Values[i], before[k].Values[i]; a.Valid != b.Valid || !a.Decimal.Equal(b.Decimal) {
						t.Fatalf("%s[%d] changed from %v to %v before Change.From %d", l.Name, i, b, a, ch.From)
					}
				}
			}
			// The set keeps working after the update.
			last := append([]venueapi.Candle(nil), tc.next...)
			if len(last) > 0 {
				last[len(last)-1] = withClose(last[len(last)-1], "101.01")
			}
			s.Update(last)
			fresh.Reset(last)
			sameLines(t, "a second Update", s.Lines(), fresh.Lines())
		})
	}
}

func TestSpecsParseSpecsRefusesGetNoLines(t *testing.T) {
	s := NewSet([]Spec{{Kind: MA}, {Kind: EMA, Period: 501}, {Kind: "kdj"}, {Kind: MA, Period: 2}})
	s.Reset(series([]string{"1", "2", "3"}))
	s.Update(series([]string{"1", "2", "4"}))
	if ls := s.Lines(); len(ls) != 1 || ls[0].Name != "MA 2" {
		t.Fatalf("Lines() = %v, want only MA 2", ls)
	}
}

func TestAt(t *testing.T) {
	s := NewSet([]Spec{{Kind: MA, Period: 2}, {Kind: MACD}})
	s.Reset(series([]string{"1", "2", "4"}))
	got := s.At(2)
	want := []string{"MA 2", "MACD DIF", "MACD DEA", "MACD hist"}
	if len(got) != len(want) {
		t.Fatalf("At(2) = %v, want %d values", got, len(want))
	}
	for i, v := range got {
		if v.Name != want[i] {
			t.Errorf("At(2)[%d].Name = %q, want %q", i, v.Name, want[i])
		}
	}
	if !got[0].Value.Valid || !got[0].Value.Decimal.Equal(decimal.NewFromInt(3)) {
		t.Errorf("At(2) MA 2 = %v, want 3", got[0].Value)
	}
	if got[1].Value.Valid {
		t.Errorf("At(2) MACD DIF = %v, want invalid", got[1].Value)
	}
	for _, i := range []int{-1, 3} {
		for _, v := range s.At(i) {
			if v.Value.Valid {
				t.Errorf("At(%d) %s = %v, want invalid outside the series", i, v.Name, v.Value)
			}
		}
	}
}

func TestParseSpecs(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi", want: "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi"},
		{in: "", want: ""},
		{in: " ", want: ""},
		{in: "rsi,ma:7", want: "rsi,ma:7"},
		{in: "ma:7, MA:7 ,boll,boll", want: "ma:7,boll"},
		{in: "vol_ma:20,vol_ma,vol_ma:5", want: "vol_ma,vol_ma:5"},
		{in: "ma:500,ema:1", want: "ma:500,ema:1"},
		{in: "ma", err: `invalid indicators: ma needs a period 1..500: ma:7 (got "ma")`},
		{in: "ma:0", err: `invalid indicators: ma needs a period 1..500: ma:7 (got "ma:0")`},
		{in: "ema:501", err: `invalid indicators: ema needs a period 1..500: ema:7 (got "ema:501")`},
		{in: "ema:07", err: `invalid indicators: ema needs a period 1..500: ema:7 (got "ema:07")`},
		{in: "ma:x", err: `invalid indicators: ma needs a period 1..500: ma:7 (got "ma:x")`},
		{in: "vol_ma:", err: `invalid indicators: vol_ma needs a period 1..500: vol_ma:7 (got "vol_ma:")`},
		{in: "boll:20", err: `invalid indicators: boll takes no period: boll (got "boll:20")`},
		{in: "macd:12", err: `invalid indicators: macd takes no period: macd (got "macd:12")`},
		{in: "rsi:14", err: `invalid indicators: rsi takes no period: rsi (got "rsi:14")`},
		{in: "kdj", err: `invalid indicators: unknown study; known: ma, ema, boll, vol_ma, macd, rsi (got "kdj")`},
		{in: "ma:7,,rsi", err: `invalid indicators: studies are separated by single commas, with none empty`},
		{in: "ma:1,ma:2,ma:3,ma:4,ma:5,ma:6,ma:7,ma:8,ma:9,ma:10,ma:11,ma:12,ma:13,ma:14,ma:15,ma:16,ma:16,ma:17",
			err: `invalid indicators: at most 16 different studies (got "ma:1,ma:2,ma:3,ma:4,ma:5,ma:6,ma:7,ma:8,ma:9,ma:10,ma:11,ma:12,m…")`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			specs, err := ParseSpecs(tc.in)
			if tc.err != "" {
				var pe *venueapi.ParamError
				if !errors.As(err, &pe) || pe.Param != "indicators" || err.Error() != tc.err {
					t.Fatalf("ParseSpecs(%q) error = %v, want %s", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSpecs(%q): %v", tc.in, err)
			}
			if got := FormatSpecs(specs); got != tc.want {
				t.Errorf("FormatSpecs(ParseSpecs(%q)) = %q, want %q", tc.in, got, tc.want)
			}
			again, err := ParseSpecs(FormatSpecs(specs))
			if err != nil || FormatSpecs(again) != tc.want {
				t.Errorf("the canonical form %q does not read back: %v, %v", tc.want, again, err)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		spec       Spec
		str, label string
	}{
		{Spec{Kind: MA, Period: 7}, "ma:7", "MA 7"},
		{Spec{Kind: EMA, Period: 99}, "ema:99", "EMA 99"},
		{Spec{Kind: BOLL}, "boll", "BOLL 20 2"},
		{Spec{Kind: VolMA}, "vol_ma", "VOL MA 20"},
		{Spec{Kind: VolMA, Period: 5}, "vol_ma:5", "VOL MA 5"},
		{Spec{Kind: MACD}, "macd", "MACD 12 26 9"},
		{Spec{Kind: RSI}, "rsi", "RSI 14"},
	} {
		if got := tc.spec.String(); got != tc.str {
			t.Errorf("%#v.String() = %q, want %q", tc.spec, got, tc.str)
		}
		if got := tc.spec.Label(); got != tc.label {
			t.Errorf("%#v.Label() = %q, want %q", tc.spec, got, tc.label)
		}
	}
}
