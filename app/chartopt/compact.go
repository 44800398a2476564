package chartopt

import (
	"encoding/json"
	"fmt"
)

// CompactHeight is the window height under which an embedded chart takes
// the compact layout: a chart a few hundred pixels high (an embed at
// 320 × 240) has no room for the frame's two-line legend band, eight price
// labels and the zoom slider.
const CompactHeight = 400

// Compact returns the option patch, merged over Frame's, of a small chart:
// the price grid starts under a one-line legend, the price axis has two to
// five labels (a line apart at the least), the volume pane is thinner and
// its axis has one or two labels, its zero unwritten (the frame's four
// would be 8 px apart there), a line clear of the price axis's lowest, and
// the zoom slider is hidden (the inside zoom stays: drag and wheel), so
// that the time labels sit clear at the bottom.
//
// ECharts takes splitNumber as a hint: it rounds span/splitNumber to a nice
// interval (down by up to a third: 1.49 to 1) and widens the axis to whole
// intervals, so that an axis can get nearly 1.5 × splitNumber + 3 labels.
// With 3, some price ranges drew seven labels on a grid of 124 px; with 2,
// there are five at most.
func Compact() ([]byte, error) {
	type gridPatch struct {
		Top    string `json:"top"`
		Bottom string `json:"bottom,omitempty"`
		Height string `json:"height,omitempty"`
	}
	type axisPatch struct {
		SplitNumber int            `json:"splitNumber,omitempty"`
		AxisLabel   map[string]any `json:"axisLabel,omitempty"`
	}
	type zoomPatch struct {
		Show *bool `json:"show,omitempty"`
	}
	hide := false
	patch := struct {
		Grid     []gridPatch `json:"grid"`
		YAxis    []axisPatch `json:"yAxis"`
		XAxis    []axisPatch `json:"xAxis"`
		DataZoom []zoomPatch `json:"dataZoom"`
	}{
		Grid: []gridPatch{{Top: "24", Bottom: "36%"}, {Top: "72%", Height: "14%"}},
		YAxis: []axisPatch{
			{SplitNumber: 2, AxisLabel: map[string]any{"fontSize": 11, "hideOverlap": true}},
			{SplitNumber: 1, AxisLabel: map[string]any{"fontSize": 11, "hideOverlap": true, "showMinLabel": false}},
		},
		XAxis:    []axisPatch{{}, {AxisLabel: map[string]any{"fontSize": 11}}},
		DataZoom: []zoomPatch{{}, {Show: &hide}},
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("encoding the compact layout: %w", err)
	}
	return b, nil
}
