package chartopt

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
)

// CompactHeight is the window height under which an embedded chart takes
// the compact layout: a chart a few hundred pixels high (an embed at
// 320 × 240) has no room for the frame's two-line legend band, eight price
// labels and the zoom slider.
const CompactHeight = 400

// CompactPaneRoom is how much higher the window of a chart with oscillator
// panes must be, per pane, for the full layout: under the studies' legend
// band (legendTop) each takes 13 % of the chart from the candles
// (paneHeight). An embed 450 px high with MACD and RSI had 54 px of candles.
const CompactPaneRoom = 100

// CompactBelow is the window height under which an embedded chart with
// that many oscillator panes (MACD, RSI) takes the compact layout, before
// its full layout has been measured (MinPricePane).
func CompactBelow(oscillators int) int {
	return CompactHeight + oscillators*CompactPaneRoom
}

// MinPricePane is the least height, px, of the candles' pane in an embed's
// full layout; an embed whose full layout leaves the candles less takes the
// compact one. The window's height alone does not say: over the chart, the
// period chips and the legend take one line on a wide frame and four on a
// narrow one. 130 px keeps the volume pane's labels a line clear of the
// price axis' lowest: at 600 × 400 the candles had 105 px, the volume pane
// 15, and their labels ran into each other.
const MinPricePane = 130

// PricePaneAt is the height, px, of the full layout's price pane in a
// window dh px higher than one in which it measured pane px, at the same
// width and with the same studies: the chart takes the window's height
// less the lines over and under it, and the price grid's top is fixed
// while its foot is a share of the chart's height (priceBottom).
func PricePaneAt(oscillators int, pane float64, dh int) float64 {
	return pane + float64(dh)*float64(100-priceBottom(oscillators))/100
}

// Compact returns the option patch, merged over Frame(s)'s, of a small
// chart: the price grid starts under a one-line legend, the price axis has
// two to five labels (a line apart at the least), the volume pane is thinner
// and its axis has one or two labels, its zero unwritten (the frame's four
// would be 8 px apart there), a line clear of the price axis's lowest, and
// the zoom slider is hidden (the inside zoom stays: drag and wheel), so
// that the time labels sit clear at the bottom.
//
// ECharts takes splitNumber as a hint: it rounds span/splitNumber to a nice
// interval (down by up to a third: 1.49 to 1) and widens the axis to whole
// intervals, so that an axis can get nearly 1.5 × splitNumber + 3 labels.
// With 3, some price ranges drew seven labels on a grid of 124 px; with 2,
// there are five at most.
//
// With oscillator panes (MACD, RSI), each pane gets a grid of its own under
// a thinner volume pane (compactPanes), and the price grid gives up their room.
func Compact(s Style) ([]byte, error) {
	hide := false
	small := func(more map[string]any) map[string]any {
		label := map[string]any{"fontSize": CompactAxisFontSize, "hideOverlap": true}
		maps.Copy(label, more)
		return label
	}
	k := len(oscillatorPanes(s))
	p := compactPatch{
		Grid: []compactGrid{{Top: compactPriceTop, Bottom: "36%"}, {Top: "72%", Bottom: compactTimeBand}},
		YAxis: []compactAxis{
			{SplitNumber: 2, AxisLabel: small(nil)},
			// Alone under the price, the compact volume pane starts a line under
			// it, and its top label is written; a thin pane over others leaves
			// it out, as in the frame.
			{SplitNumber: 1, AxisLabel: small(map[string]any{"showMinLabel": false, "showMaxLabel": k == 0})},
		},
		XAxis:    make([]compactAxis, TimeAxis(s)+1),
		DataZoom: []compactZoom{{}, {Show: &hide}},
	}
	p.XAxis[TimeAxis(s)].AxisLabel = map[string]any{"fontSize": CompactAxisFontSize}
	if k > 0 {
		p.Grid = compactPanes(k)
		for range k {
			p.YAxis = append(p.YAxis, compactAxis{SplitNumber: 1, AxisLabel: small(nil)})
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding the compact layout: %w", err)
	}
	return b, nil
}

type compactPatch struct {
	Grid     []compactGrid `json:"grid"`
	YAxis    []compactAxis `json:"yAxis"`
	XAxis    []compactAxis `json:"xAxis"`
	DataZoom []compactZoom `json:"dataZoom"`
}

type compactGrid struct {
	Top    string `json:"top"`
	Bottom string `json:"bottom,omitempty"`
	Height string `json:"height,omitempty"`
}

type compactAxis struct {
	SplitNumber int            `json:"splitNumber,omitempty"`
	AxisLabel   map[string]any `json:"axisLabel,omitempty"`
}

type compactZoom struct {
	Show *bool `json:"show,omitempty"`
}

// compactPriceTop is where the compact price grid starts, px: under the
// one-line legend (19 px), which spans the chart, and under the top price
// label, centred on the grid's edge (its upper half, 7 px).
const compactPriceTop = "28"

// compactTimeBand is the room under the compact layout's lowest grid, px:
// the time labels (11 px type and ECharts' 8 px margin) and the notes'
// line, which lies over their right end. It is what the layout's 14 % of
// the chart came to in a 320 × 240 embed, for which it was fitted; as a
// share, a taller chart kept more room than the labels need (66 px in a
// 320 × 500 embed), where the lowest grid now reaches down.
const compactTimeBand = "30"

// The compact layout's panes under the price, as shares of the chart's
// height: the lowest starts where the volume pane starts without studies
// and reaches down to the band of time labels (compactTimeBand), the
// others placed as if it ended at compactFoot; each oscillator pane is
// compactPane high and compactGap under the one above; the volume pane,
// whose labels the studies' frame leaves out, is thinner; the price grid
// ends compactPriceGap above it (its lowest label's half and a margin).
const (
	compactFoot     = 86
	compactPane     = 11
	compactGap      = 2
	compactVolume   = 8
	compactPriceGap = 6
)

// compactPanes are the grids of a compact chart with k oscillator panes:
// price, volume, then the panes top to bottom. Each pane's top and height
// are given, the lowest's top and bottom (the frame's lowest has a bottom
// and no height: applyStudies).
func compactPanes(k int) []compactGrid {
	pct := func(v int) string { return strconv.Itoa(v) + "%" }
	volumeTop := compactFoot - k*(compactPane+compactGap) - compactVolume
	grids := []compactGrid{
		{Top: compactPriceTop, Bottom: pct(100 - volumeTop + compactPriceGap)},
		{Top: pct(volumeTop), Height: pct(compactVolume)},
	}
	for i := range k {
		top := compactFoot - (k-i)*(compactPane+compactGap) + compactGap
		grids = append(grids, compactGrid{Top: pct(top), Height: pct(compactPane)})
	}
	grids[len(grids)-1].Height, grids[len(grids)-1].Bottom = "", compactTimeBand
	return grids
}
