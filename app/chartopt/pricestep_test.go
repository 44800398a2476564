package chartopt

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// echartsTicks are the values ECharts (6.1) labels a linear value axis
// with scale over lo to hi at, in splitNumber parts: the span's share
// made nice (1, 2, 3, 5 or 10 times a power of ten, its scale/helper.js
// and util/number.js), raised to minInterval when it is less, and the
// extent widened to whole intervals, as web/chart-boot.js's sketch lays
// them out (niceExtent).
func echartsTicks(lo, hi float64, splitNumber int, minInterval float64) []float64 {
	exponent := func(v float64) float64 {
		e := math.Floor(math.Log(v) / math.Ln10)
		if v/math.Pow(10, e) >= 10 {
			e++
		}
		return e
	}
	roundAt := func(v float64, places int) float64 {
		r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', min(max(places, 0), 20), 64), 64)
		return r
	}
	decimalsOf := func(v float64) int {
		for i, e := 0, 1.0; i < 15; i, e = i+1, e*10 {
			if math.Round(v*e)/e == v {
				return i
			}
		}
		return 15
	}
	raw := (hi - lo) / float64(splitNumber)
	e := exponent(raw)
	f := raw / math.Pow(10, e)
	nf := 10.0
	switch {
	case f < 1.5:
		nf = 1
	case f < 2.5:
		nf = 2
	case f < 4:
		nf = 3
	case f < 7:
		nf = 5
	}
	step := roundAt(nf*math.Pow(10, e), int(max(-e, 0)))
	if step < minInterval {
		step = minInterval
	}
	places := decimalsOf(step) + 2
	first, last := roundAt(math.Floor(lo/step)*step, places), roundAt(math.Ceil(hi/step)*step, places)
	var ticks []float64
	for k, v := 0, first; v <= last && k < 100; k++ {
		ticks = append(ticks, v)
		v = roundAt(first+float64(k+1)*step, places)
	}
	return ticks
}

// The price axis' labels name their lines: at the contract's decimals, no
// two are the same and each is the price its line is at. ECharts split a
// narrow range (a 1000-USDT coin between 1,000 and 1,002, a meme coin
// still for a few minutes) finer than the tick, and two lines were
// labelled "1,000"; the contract's tick as the axis' minInterval
// (PriceStep) keeps them a tick apart at the least.
func TestPriceAxisLabelsAreDistinctAtTheContractsDecimals(t *testing.T) {
	cases := []struct {
		name     string
		lo, hi   float64
		decimals int32
		echarts  []float64 // what ECharts 6.1 labels without minInterval
	}{
		{"a 1000-USDT coin, 0 decimals, two ticks", 1000, 1002, 0, []float64{1000, 1000.5, 1001, 1001.5, 1002}},
		{"a 1000-USDT coin, 0 decimals, one tick", 1000, 1001, 0, []float64{1000, 1000.2, 1000.4, 1000.6, 1000.8, 1001}},
		{"DOGE-like, 6 decimals, two ticks", 0.1234, 0.123402, 6, []float64{0.1234, 0.1234005, 0.123401, 0.1234015, 0.123402}},
		{"a meme coin, 8 decimals, two ticks", 0.00001234, 0.00001236, 8, []float64{0.000012339, 0.000012342, 0.000012345, 0.000012348, 0.000012351, 0.000012354, 0.000012357, 0.00001236}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := echartsTicks(c.lo, c.hi, 5, 0); !slices.Equal(got, c.echarts) {
				t.Fatalf("the model of ECharts' ticks: %v, ECharts drew %v", got, c.echarts)
			}
			seen := map[string]float64{}
			for _, v := range echartsTicks(c.lo, c.hi, 5, PriceStep(c.decimals)) {
				label := FormatPrice(v, c.decimals)
				if prev, ok := seen[label]; ok {
					t.Errorf("lines at %v and %v are both labelled %q", prev, v, label)
				}
				seen[label] = v
				if back, err := strconv.ParseFloat(strings.ReplaceAll(label, ",", ""), 64); err != nil || back != v {
					t.Errorf("the line at %v is labelled %q", v, label)
				}
			}
		})
	}
}

func TestPriceStep(t *testing.T) {
	for _, c := range []struct {
		decimals int32
		want     float64
	}{{-1, 0}, {0, 1}, {1, 0.1}, {6, 0.000001}, {8, 0.00000001}, {12, 1e-12}} {
		if got := PriceStep(c.decimals); got != c.want {
			t.Errorf("PriceStep(%d) = %v, want %v", c.decimals, got, c.want)
		}
	}
}

// A log price axis' labels (LogTicks) name their lines at the contract's
// decimals too: over the range app/echarts' placeLogLabels asks for, a
// narrow view of a 1000-USDT coin quoted in whole USDT was labelled every
// 0.2 ("1,000" five times) or every 2.5 (the line at 1,007.5 written
// "1,008"); labels a whole number of ticks apart name their lines.
func TestLogTicksAreWholeTicksAtTheContractsDecimals(t *testing.T) {
	for _, c := range []struct {
		lo, hi, px float64
		decimals   int32
	}{
		{1000, 1002, 300, 0},
		{1000, 1025, 300, 0},
		{1000, 1025, 150, 0},
		{1000, 1021, 300, 0},
		{97000, 97030, 380, 1},
		{0.00001234, 0.00001266, 300, 8},
		{0.12345, 0.12555, 300, 4},
		{96696.2, 98847.9, 380, 1},
	} {
		t.Run(fmt.Sprint(c.lo, "-", c.hi, "@", c.px, "/", c.decimals), func(t *testing.T) {
			// as placeLogLabels: the scale rounded to a quarter octave, the range a grid wider
			perE := math.Exp2(math.Round(4*math.Log2(c.px/math.Log(c.hi/c.lo))) / 4)
			wider := math.Exp(c.px / perE)
			ticks := LogTicks(c.lo/wider, c.hi*wider, perE, LogTickGap, PriceStep(c.decimals))
			if len(ticks) < 2 {
				t.Fatalf("%d labels: %v", len(ticks), ticks)
			}
			seen := map[string]bool{}
			for _, v := range ticks {
				label := FormatPrice(v, c.decimals)
				back, err := strconv.ParseFloat(strings.ReplaceAll(label, ",", ""), 64)
				if seen[label] || err != nil || back != v {
					t.Errorf("the line at %v is labelled %q (labels %v)", v, label, ticks)
					break
				}
				seen[label] = true
			}
		})
	}
}
