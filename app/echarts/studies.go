package echarts

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// SetLines replaces the study lines' points: points holds lines lines of
// equal length one after the other, each in chartopt.AppendPoints' form, in
// the frame's order (chartopt.Style.Studies). They cross the bridge in one
// copy, and each line is a Float64Array view of it, which ECharts reads as
// it stores it. The chart shows them at the next Draw or Redraw.
func (c *Chart) SetLines(points []byte, lines int) {
	c.lines = c.lines[:0]
	if lines == 0 {
		return
	}
	buf := c.copyPoints(points).Get("buffer")
	size := len(points) / lines / chartopt.PointSize * chartopt.PointSize // bytes per line
	f64 := app.Window().Get("Float64Array")
	for i := range lines {
		c.lines = append(c.lines, f64.New(buf, i*size, size/8))
	}
}

// SetLineTails replaces every study line's points from index from on with
// tails (in SetLines' form, one tail per line, all of one length): a live
// update changes the last value or two in place; a new candle makes each
// line one point longer. The chart's lines show the new last values at
// once, where the newest candle is drawn (placeLines); the rest at the next
// Draw or Redraw.
func (c *Chart) SetLineTails(from int, tails []byte) {
	if len(c.lines) == 0 || len(tails) == 0 {
		return
	}
	buf := c.copyPoints(tails).Get("buffer")
	size := len(tails) / len(c.lines) / chartopt.PointSize * chartopt.PointSize
	f64 := app.Window().Get("Float64Array")
	for i, dst := range c.lines {
		tail := f64.New(buf, i*size, size/8)
		if need := 2*from + size/8; need > dst.Length() {
			grown := f64.New(need)
			grown.Call("set", dst.Call("subarray", 0, 2*from))
			c.lines[i], dst = grown, grown
		}
		dst.Call("set", tail, 2*from)
	}
}

// copyPoints copies points to a new Uint8Array of their own, whose buffer
// Float64Arrays can view (its offset is 0, so aligned).
func (c *Chart) copyPoints(points []byte) app.Value {
	u8 := app.Window().Get("Uint8Array").New(len(points))
	app.CopyBytesToJS(u8, points)
	return u8
}

// seriesData is the series' data as setOption takes it: candles, volume,
// then the study lines.
func (c *Chart) seriesData() []any {
	out := []any{map[string]any{"data": c.prices}, map[string]any{"data": c.ups}, map[string]any{"data": c.downs}}
	for _, l := range c.lines {
		out = append(out, map[string]any{"data": l})
	}
	return out
}

// axesData gives every x axis (one per grid) the candles' labels.
func (c *Chart) axesData() []any {
	out := make([]any, c.xAxes)
	for i := range out {
		out[i] = map[string]any{"data": c.labels}
	}
	return out
}
