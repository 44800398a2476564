package chartopt

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/studies"
)

// StudyLine is one drawn line of a study (app/studies.Line without values):
// its name, its pane and whether it is drawn as bars.
type StudyLine struct {
	Name string
	Pane studies.Pane
	Bars bool
}

// SeriesStudies is the index of the first study line's series: the lines
// follow the price and the two volume series, in the order of Style.Studies.
const SeriesStudies = 3

// studyColors are the lines' colours, in turn; readable on both themes.
var studyColors = []string{"#f59e0b", "#3b82f6", "#a855f7", "#06b6d4", "#ec4899", "#84cc16", "#f97316", "#64748b"}

// paneHeight is the share of the chart one oscillator pane takes, and the
// share the price grid gives up for it.
const paneHeight = 13

// lowestBottom is the lowest grid's distance from the chart's foot, in
// pixels: room for the time labels and the zoom slider (6 + 22 px), and no
// empty band between them and the grid, whatever the chart's height.
const lowestBottom = "54"

// paneBase is where the lowest oscillator pane starts, as a share of the chart.
const paneBase = 76

// framePriceBottom is the share of the chart, percent, under the frame's
// price grid: the volume pane and the time axis.
const framePriceBottom = 32

// priceBottom is the share of the chart, percent, under the full layout's
// price grid with k oscillator panes: the frame's, or the panes stacked
// under the price (stackPanes).
func priceBottom(k int) int {
	if k == 0 {
		return framePriceBottom
	}
	return 100 - paneBase + k*paneHeight + 2
}

// legendTop is where the price grid starts when studies add their values
// to the legend that lies over it (two more lines), until the app has
// measured the legend (PriceTopUnder).
const legendTop = 96

// narrowLegendTop is where it starts on a narrow chart, whose legend keeps
// to one line (25 px) and spans the chart: below it, and below the top
// price label, centred on the grid's edge.
const narrowLegendTop = 38

// Under a legend the app has measured (Style.PriceTop, PriceTopUnder), the
// price grid starts legendClear under its foot and a line more
// (legendSpare), for a candle whose values wrap to one more line than the
// latest's, which the legend shows when measured; never lower than the
// rule's legendTop unless the legend reaches below it, and never higher
// than narrowLegendTop, under the chart's top price label.
const (
	legendClear = 6
	legendSpare = 22
)

// PriceTopUnder is where the price grid starts, in px from the chart's top,
// under a legend holding the studies' values whose foot lies bottom px
// below the chart's top (negative: above it, over the chart area's margin).
func PriceTopUnder(bottom int) int {
	return LegendRule().Top(bottom)
}

// LegendFit is PriceTopUnder's rule as data, which the first paint is
// handed (app/boot.Look): the price grid starts Clear px under the legend's
// foot and Spare more, but no lower than Most unless the legend reaches
// below it, and no higher than Least.
type LegendFit struct {
	Clear int `json:"clear"`
	Spare int `json:"spare"`
	Most  int `json:"most"`
	Least int `json:"least"`
}

// LegendRule is the app's LegendFit.
func LegendRule() LegendFit {
	return LegendFit{Clear: legendClear, Spare: legendSpare, Most: legendTop, Least: narrowLegendTop}
}

// Top is where the price grid starts under a legend whose foot lies bottom
// px below the chart's top.
func (f LegendFit) Top(bottom int) int {
	return max(min(bottom+f.Clear+f.Spare, f.Most), bottom+f.Clear, f.Least)
}

// PriceTopPatch is the option patch that moves the price grid's top to top
// px, the rest of the frame as it is.
func PriceTopPatch(top int) []byte {
	return []byte(`{"grid":[{"top":` + strconv.Itoa(top) + `}]}`)
}

// NarrowPatch is the option patch that makes the frame of a chart with
// studies a narrow chart's (Style.Narrow): its price grid starts under a
// one-line legend. The top is written as the frame writes it.
func NarrowPatch() []byte {
	return []byte(`{"grid":[{"top":"` + strconv.Itoa(narrowLegendTop) + `"}]}`)
}

// PriceRoomPatch is the option patch that gives each of a frame's grids
// room px on the right (Style.PriceRoom): the panes' labels and the
// candles' stay aligned.
func PriceRoomPatch(room, grids int) []byte {
	b := []byte(`{"grid":[`)
	for i := range grids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, `{"right":`...), strconv.Itoa(room)...), '}')
	}
	return append(b, "]}"...)
}

// applyStudies adds a grid under the volume for each oscillator pane the
// studies use (MACD, then RSI: stackPanes) and a series per study line. The
// lowest grid ends where the volume grid ended without studies, just above
// the zoom slider.
func applyStudies(o *option, s Style) {
	switch {
	case len(s.Studies) > 0 && s.Narrow:
		o.Grid[0].Top = strconv.Itoa(narrowLegendTop)
	case len(s.Studies) > 0 && s.PriceTop > 0:
		o.Grid[0].Top = strconv.Itoa(s.PriceTop)
	case len(s.Studies) > 0:
		o.Grid[0].Top = strconv.Itoa(legendTop)
	}
	grid := stackPanes(o, s)
	last := &o.Grid[len(o.Grid)-1] // the lowest grid reaches down to the time labels
	last.Height, last.Bottom = "", lowestBottom
	for i, l := range s.Studies {
		g := grid[l.Pane]
		colour := studyColors[i%len(studyColors)]
		sr := series{Name: l.Name, Type: "line", XAxisIndex: g, YAxisIndex: g, Data: []int{}, ShowSymbol: opts.Bool(false),
			Silent: true, ItemStyle: &opts.ItemStyle{Color: colour}, LineStyle: &opts.LineStyle{Color: colour, Width: 1}}
		if l.Bars {
			sr.Type, sr.BarWidth, sr.ShowSymbol, sr.LineStyle = "bar", barWidth(), nil, nil
		}
		o.Series = append(o.Series, sr)
	}
}

// stackPanes adds the oscillator panes' grids and axes under the volume,
// moves the time axis' labels to the lowest and links every x axis to the
// crosshair and the zoom. It returns each pane's grid index. (Apart from
// applyStudies: one function of this size is compiled at once by V8's
// optimizing tier, docs/startup.md, "What tiers Go's code up".)
func stackPanes(o *option, s Style) map[studies.Pane]int {
	grid := map[studies.Pane]int{studies.PanePrice: 0, studies.PaneVolume: 1} // pane → grid index
	panes := oscillatorPanes(s)
	k := len(panes)
	if k == 0 {
		return grid
	}
	// The lowest pane starts lower than the volume grid does alone, so
	// that reaching down to the time labels it is about as tall as the others.
	o.Grid[0].Bottom = strconv.Itoa(priceBottom(k)) + "%"
	o.Grid[1].Top = strconv.Itoa(paneBase-k*paneHeight) + "%"
	// Stacked under the price, the panes are a few pixels apart and share
	// the chart's right edge: a pane's top value label ran into the lowest
	// label of the pane above it (on a phone, over it). The panes under
	// the price leave their top label out, and those with a pane under
	// them their lowest: on a short pane the next label down can be a
	// line from its top.
	o.YAxis[1].AxisLabel = &axisLabel{AxisLabel: opts.AxisLabel{Show: opts.Bool(false), ShowMaxLabel: opts.Bool(false), ShowMinLabel: opts.Bool(false)}}
	timeAxis := o.XAxis[1]
	o.XAxis[1].AxisLabel = &opts.AxisLabel{Show: opts.Bool(false)}
	o.XAxis[1].AxisPointer = &opts.AxisPointer{Label: &opts.Label{Show: opts.Bool(false)}}
	axis, split := frameColors(s.Dark)
	for i, p := range panes {
		g := 2 + i
		var minLabel *bool // the lowest pane's is written
		if i < k-1 {
			minLabel = opts.Bool(false)
		}
		grid[p] = g
		o.Grid = append(o.Grid, grid2(strconv.Itoa(paneBase-(k-1-i)*paneHeight)+"%", strconv.Itoa(paneHeight-2)+"%", s.Room()))
		x := opts.XAxis{Type: "category", GridIndex: g, AxisLabel: &opts.AxisLabel{Show: opts.Bool(false)},
			AxisLine: &opts.AxisLine{LineStyle: &opts.LineStyle{Color: axis}}, AxisPointer: &opts.AxisPointer{Label: &opts.Label{Show: opts.Bool(false)}}}
		if i == k-1 {
			x = timeAxis // the lowest grid names the times
			x.GridIndex = g
		}
		o.XAxis = append(o.XAxis, x)
		y := yAxis{YAxis: opts.YAxis{Scale: opts.Bool(true), Position: "right", GridIndex: g, SplitNumber: 2,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: split}}},
			AxisLabel: &axisLabel{AxisLabel: opts.AxisLabel{Show: opts.Bool(true), Color: axis, ShowMaxLabel: opts.Bool(false), ShowMinLabel: minLabel}}}
		if p == studies.PaneRSI {
			rsiScale(&y)
		}
		o.YAxis = append(o.YAxis, y)
	}
	all := make([]int, len(o.XAxis))
	for i := range all {
		all[i] = i
	}
	o.AxisPointer.Link = []opts.AxisPointerLink{{XAxisIndex: all}}
	for i := range o.DataZoom {
		o.DataZoom[i].XAxisIndex = all
	}
	return grid
}

// RSILevels are the RSI's levels a trader reads it by: over 70 the
// contract is commonly read as overbought, under 30 as oversold.
func RSILevels() []float64 { return []float64{30, 70} }

// rsiScale puts the RSI pane on its whole range, 0 to 100, whatever the
// candles in view, with its labels and split lines (dashed) at RSILevels
// alone. A third of the pane from its edges, those labels are clear of the
// panes' next to it: both are written.
func rsiScale(y *yAxis) {
	y.Scale, y.Min, y.Max = nil, 0, 100
	y.AxisLabel.ShowMaxLabel, y.AxisLabel.ShowMinLabel = nil, nil
	levels := RSILevels()
	y.AxisLabel.CustomValues, y.AxisTick = levels, &axisTick{CustomValues: levels}
	y.SplitLine.LineStyle.Type = "dashed"
}

func grid2(top, height string, room int) grid {
	return grid{Grid: opts.Grid{Left: "8", Right: strconv.Itoa(room), Top: top, Height: height}, OuterBoundsMode: "none"}
}

// TimeAxis is the index of the x axis that names the times: the lowest grid's.
func TimeAxis(s Style) int {
	return 1 + len(oscillatorPanes(s))
}

// oscillatorPanes are the oscillator panes (MACD, RSI) the studies of s
// use, top to bottom.
func oscillatorPanes(s Style) []studies.Pane {
	panes := []studies.Pane{}
	for _, p := range []studies.Pane{studies.PaneMACD, studies.PaneRSI} {
		for _, l := range s.Studies {
			if l.Pane == p {
				panes = append(panes, p)
				break
			}
		}
	}
	return panes
}

// PointSize is the size of one point of a study line in AppendPoints' form.
const PointSize = 16

// AppendPoints appends a study line's values from index from on as the
// chart's points: for each, its candle's index and its value, as
// little-endian float64s (a Float64Array's bytes), NaN (no point) where the
// study has too little history. ECharts reads such an array as it stores
// it, where a JSON array of numbers costs it a parse per value: about 10 ms
// of a full draw of eleven lines of 2300 values (docs/performance.md, "What
// the studies cost").
func AppendPoints(b []byte, values []decimal.NullDecimal, from int) []byte {
	b = slices.Grow(b, PointSize*max(len(values)-from, 0))
	for i := from; i < len(values); i++ {
		v := math.NaN()
		if values[i].Valid {
			v = drawn(values[i].Decimal)
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i)))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// drawn is d as a float64, for drawing: within an ulp or two of the nearest
// (InexactFloat64 is exact, and for the 17-digit coefficients of the
// studies' values goes through big rationals, 20 ms for a full draw).
func drawn(d decimal.Decimal) float64 {
	if e := d.Exponent(); e <= 0 && e >= -22 && d.NumDigits() <= 18 {
		return float64(d.CoefficientInt64()) / math.Pow10(int(-e))
	}
	return d.InexactFloat64()
}
