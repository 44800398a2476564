package echarts

import (
	"math"

	"github.com/riskchart/riskchart/app/chartopt"
)

// The price axis' labels on a log scale. ECharts labels a log axis at whole
// powers of ten alone; the frame fits the axis to the prices in view
// (chartopt.applyLook), and these labels (chartopt.LogTicks) are handed to
// it as its custom values. They are chosen for a range a grid's height
// wider than the view on each side and for the view's scale rounded to a
// quarter octave, so that panning and most zooms keep them: ECharts draws
// those inside the axis, and a new set (a second render) is handed over only
// when the view leaves the range or the scale moves on.
type logLabels struct {
	on     bool    // the frame's price axis is logarithmic
	lo, hi float64 // the range the labels were chosen for; 0: none yet
	perE   float64 // the pixels a factor of e took, rounded
}

// placeLogLabels hands ECharts the log axis' labels for the view drawn,
// when they are not the ones it has.
func (c *Chart) placeLogLabels() {
	l := &c.logLabels
	if !l.on || c.Len() == 0 {
		return
	}
	model := c.v.Call("getModel")
	axis, ok := priceAxis(model)
	if !ok {
		return
	}
	extent := axis.Get("scale").Call("getExtent")
	lo, hi := extent.Index(0).Float(), extent.Index(1).Float()
	rect, ok := priceRect(model)
	if !ok {
		return
	}
	px := rect.Get("height").Float()
	if !(lo > 0) || !(hi > lo) || !(px > 0) {
		return
	}
	perE := math.Exp2(math.Round(4*math.Log2(px/math.Log(hi/lo))) / 4)
	if perE == l.perE && lo >= l.lo && hi <= l.hi {
		return
	}
	wider := math.Exp(px / perE)
	l.lo, l.hi, l.perE = lo/wider, hi*wider, perE
	ticks := chartopt.LogTicks(l.lo, l.hi, perE, chartopt.LogTickGap, c.priceStep)
	values := make([]any, len(ticks))
	for i, v := range ticks {
		values[i] = v
	}
	c.v.Call("setOption", map[string]any{"yAxis": []any{map[string]any{
		"axisLabel": map[string]any{"customValues": values},
		"axisTick":  map[string]any{"customValues": values},
	}}})
	c.live.moved = false // setOption has painted
	c.mark.labels = nil  // at the new values
}
