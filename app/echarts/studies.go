package echarts

import (
	"math"

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
	prices := c.prices
	if c.custom { // rows with the candle's index first (app/chartopt/styles.go)
		if c.rows == nil {
			c.rows = app.Window().Get("Array").New()
		}
		// Only the newest row, and those appended, are written again: a live
		// update hands ECharts the series at each trade.
		app.Window().Get("echarts").Call("indexed", prices, c.rows)
		prices = c.rows
	}
	out := []any{map[string]any{"data": prices}, map[string]any{"data": c.ups}, map[string]any{"data": c.downs}}
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

// placeLines moves the newest point of each study line, as ECharts drew
// it, to the line's newest value, as the newest candle's shapes move
// (live.go): a live update changes the last value of each line, and
// handing ECharts the series again to show it would re-run its whole
// pipeline. The line's vertex (or the MACD histogram's bar) is ECharts'
// own element, changed in place and repainted with the candle; ECharts'
// copy of the value is as fresh as the series it was last handed, and
// placeLines runs again after each of its redraws (followLast, OnZoom). A
// value beyond the pane's axis is clipped at its edge until the next
// redraw rescales it. It does nothing on an ECharts without the parts it
// reads (getModel, getViewOfSeriesModel: not in its documented API).
func (c *Chart) placeLines() {
	n := c.Len()
	if len(c.lines) == 0 || n < 2 || c.end < n-1 || c.start > n-1 {
		return
	}
	model := c.v.Call("getModel")
	if !model.Truthy() || c.v.Get("getViewOfSeriesModel").Type() != app.TypeFunction {
		return
	}
	for i, l := range c.lines {
		if l.Length() < 2*n {
			continue
		}
		v := l.Index(2*n - 1).Float()
		index := chartopt.SeriesStudies + i
		series := model.Call("getSeriesByIndex", index)
		if math.IsNaN(v) || !series.Truthy() {
			continue
		}
		data := series.Call("getData")
		k := data.Call("count").Int() - 1 // the newest point, when in view
		if k < 0 || data.Call("getRawIndex", k).Int() != n-1 {
			continue
		}
		px := c.v.Call("convertToPixel", map[string]any{"seriesIndex": index}, []any{n - 1, v})
		if !px.Truthy() || px.Length() < 2 {
			continue
		}
		y := px.Index(1).Float()
		if series.Get("subType").String() == "bar" {
			c.placeBar(data.Call("getItemGraphicEl", k), index, n-1, y)
			continue
		}
		line := c.v.Call("getViewOfSeriesModel", series).Get("_polyline")
		if !line.Truthy() {
			continue
		}
		points := line.Get("shape").Get("points")
		if points.Length() != 2*(k+1) || points.Index(2*k+1).Float() == y {
			continue
		}
		points.SetIndex(2*k+1, y)
		line.Call("dirtyShape")
		c.live.moved = true
	}
}

// placeBar moves the top of a histogram's bar to y, from its base at 0.
func (c *Chart) placeBar(bar app.Value, series, i int, y float64) {
	if !bar.Truthy() {
		return
	}
	base := c.v.Call("convertToPixel", map[string]any{"seriesIndex": series}, []any{i, 0})
	if !base.Truthy() || base.Length() < 2 {
		return
	}
	b := base.Index(1).Float()
	shape := bar.Get("shape")
	if at := shape.Get("y").Float(); math.Abs(at-b) < 0.5 && math.Abs(at+shape.Get("height").Float()-y) < 0.01 {
		return // as drawn
	}
	bar.Call("setShape", map[string]any{"y": b, "height": y - b})
	c.live.moved = true
}
