package chartopt

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestCompactPatchesEveryGridAndAxisOfItsFrame merges the compact patch over
// the frame of each set of panes, as ECharts does (by index): the patch has
// no more grids or axes than the frame, the panes are stacked top to bottom
// without overlapping, the lowest ends above the time labels, the time axis
// (the lowest grid's) takes the small labels and the slider is hidden.
func TestCompactPatchesEveryGridAndAxisOfItsFrame(t *testing.T) {
	macd := StudyLine{Name: "MACD", Pane: 2}
	rsi := StudyLine{Name: "RSI", Pane: 3}
	ma := StudyLine{Name: "MA7", Pane: 0}
	for _, tc := range []struct {
		name    string
		studies []StudyLine
	}{
		{"no studies", nil},
		{"a price study", []StudyLine{ma}},
		{"MACD", []StudyLine{ma, macd}},
		{"RSI", []StudyLine{rsi}},
		{"MACD and RSI", []StudyLine{ma, macd, rsi}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultStyle(false)
			s.Studies = tc.studies
			frame, err := Frame(s)
			if err != nil {
				t.Fatal(err)
			}
			patch, err := Compact(s)
			if err != nil {
				t.Fatal(err)
			}
			type layout struct {
				Grid []struct {
					Top, Bottom, Height string
				} `json:"grid"`
				XAxis []struct {
					AxisLabel map[string]any `json:"axisLabel"`
				} `json:"xAxis"`
				YAxis    []json.RawMessage `json:"yAxis"`
				DataZoom []struct {
					Type string `json:"type"`
					Show *bool  `json:"show"`
				} `json:"dataZoom"`
			}
			var f, p layout
			if err := json.Unmarshal(frame, &f); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(patch, &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Grid) != len(f.Grid) || len(p.YAxis) != len(f.YAxis) || len(p.XAxis) != len(f.XAxis) {
				t.Fatalf("the patch has %d grids, %d y and %d x axes; the frame %d, %d and %d:\n%s",
					len(p.Grid), len(p.YAxis), len(p.XAxis), len(f.Grid), len(f.YAxis), len(f.XAxis), patch)
			}
			// Merged, each grid is placed by its top and its height (or, the
			// price grid, its bottom): in hundredths of the chart's height.
			// The lowest reaches down to the time labels' band, in px: in a
			// chart 211 px high (a 320 × 240 embed) it ends where 86 % did,
			// and in a taller one it leaves no blank band under the labels.
			pct := func(v string) float64 {
				n, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
				if err != nil || !strings.HasSuffix(v, "%") {
					t.Fatalf("%q is not a share of the chart: %s", v, patch)
				}
				return n
			}
			end := 100 - pct(p.Grid[0].Bottom)
			last := len(p.Grid) - 1
			for i, g := range p.Grid[1:last] {
				top := pct(g.Top)
				if top <= end {
					t.Errorf("grid %d starts at %v%%, inside the one above, which ends at %v%%", i+1, top, end)
				}
				end = top + pct(g.Height)
			}
			lowest := p.Grid[last]
			band, err := strconv.Atoi(lowest.Bottom)
			if err != nil || lowest.Height != "" || pct(lowest.Top) <= end {
				t.Fatalf("the lowest grid is %+v, want a top under %v%% and a bottom in px, no height", lowest, end)
			}
			if foot := 211 - band; math.Abs(float64(foot)-211*0.86) > 1 || band > 36 {
				t.Errorf("the lowest grid ends %d px above the chart's foot: at %d px of 211, want about 86 %% (181)", band, foot)
			}
			time := TimeAxis(s)
			for i, x := range p.XAxis {
				if small := x.AxisLabel["fontSize"] != nil; small != (i == time) {
					t.Errorf("x axis %d's labels patched %v, want only the time axis' (%d)", i, x.AxisLabel, time)
				}
			}
			if f.DataZoom[1].Type != "slider" || p.DataZoom[1].Show == nil || *p.DataZoom[1].Show {
				t.Errorf("the slider is not hidden: %s", patch)
			}
		})
	}
}

// TestThePricePaneGrowsByItsShareOfTheChart: the full layout's price pane,
// measured at one height, grows with the window by the share of the chart
// the frame gives it, which is what the frame's grid leaves under it: 68 %
// without oscillator panes, 48 % with MACD and RSI. (In Chromium, an embed
// at 600 × 420 and 600 × 450 drew 118.7 and 139.1 px of candles: 0.68 a px.)
func TestThePricePaneGrowsByItsShareOfTheChart(t *testing.T) {
	for _, tc := range []struct {
		studies []StudyLine
		bottom  string  // the frame's price grid's foot
		at50    float64 // a pane of 100 px, 50 px higher
	}{
		{nil, "32%", 134},
		{[]StudyLine{{Name: "MA 7"}}, "32%", 134},
		{[]StudyLine{{Name: "RSI 14", Pane: 3}}, "39%", 130.5},
		{[]StudyLine{{Name: "MACD DIF", Pane: 2}, {Name: "RSI 14", Pane: 3}}, "52%", 124},
	} {
		s := DefaultStyle(false)
		s.Studies = tc.studies
		var o struct {
			Grid []struct{ Bottom string } `json:"grid"`
		}
		decodeFrame(t, s, &o)
		k := len(oscillatorPanes(s))
		if got := o.Grid[0].Bottom; got != tc.bottom {
			t.Errorf("%d oscillator panes: the price grid's foot at %s, want %s", k, got, tc.bottom)
		}
		if got := PricePaneAt(k, 100, 50); got != tc.at50 {
			t.Errorf("%d oscillator panes: a 100 px pane 50 px higher is %g px, want %g", k, got, tc.at50)
		}
		if got := PricePaneAt(k, 100, -50); got != 200-tc.at50 {
			t.Errorf("%d oscillator panes: a 100 px pane 50 px lower is %g px, want %g", k, got, 200-tc.at50)
		}
	}
}
