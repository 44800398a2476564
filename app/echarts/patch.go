package echarts

import (
	"cmp"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// Patch merges an option patch, given as JSON, over the chart's option
// (chartopt.Compact): the data and the view stay.
func (c *Chart) Patch(option []byte) {
	c.v.Call("setOption", c.json.Call("parse", string(option)))
	c.followLast()
}

// SetRoom gives the price axis room px right of the grids, or the frame's
// default for 0 (chartopt.Style.PriceRoom), without drawing the frame
// again; nothing when it has that room.
func (c *Chart) SetRoom(room int) {
	room = cmp.Or(room, chartopt.DefaultPriceRoom)
	if float64(room) == c.room {
		return
	}
	c.Patch(chartopt.PriceRoomPatch(room, c.xAxes))
	c.room = float64(room)
	c.placeMark()
	c.live.zr.Call("refresh")
}

// HidePointer hides the crosshair until the pointer moves again: after a
// move of the view the pointer did not make (a key, older candles put
// before), ECharts' crosshair stays on an index that no longer names the
// candle the legend shows.
func (c *Chart) HidePointer() {
	c.v.Call("dispatchAction", map[string]any{"type": "updateAxisPointer", "currTrigger": "leave"})
	c.v.Call("dispatchAction", map[string]any{"type": "hideTip"})
}

// PixelOf returns the x pixel of candle i in the view, false when the
// chart cannot say.
func (c *Chart) PixelOf(i int) (float64, bool) {
	x := c.v.Call("convertToPixel", map[string]any{"xAxisIndex": 0}, i)
	if x.Type() != app.TypeNumber {
		return 0, false
	}
	return x.Float(), true
}

// priceRect is the price grid's rectangle as ECharts laid it out, read
// from its model (getModel: not in its documented API); ok is false before
// it has.
func priceRect(model app.Value) (rect app.Value, ok bool) {
	grid := model.Call("getComponent", "grid", 0)
	if !grid.Truthy() {
		return app.Null(), false
	}
	return grid.Get("coordinateSystem").Call("getRect"), true
}

// priceAxis is the price grid's axis as ECharts laid it out, read from its
// model (getModel: not in its documented API); ok is false before it has.
func priceAxis(model app.Value) (axis app.Value, ok bool) {
	y := model.Call("getComponent", "yAxis", 0)
	if !y.Truthy() || !y.Get("axis").Truthy() {
		return app.Null(), false
	}
	return y.Get("axis"), true
}

// PricePane is the height, px, of the price grid as ECharts laid it out;
// ok is false before it has.
func (c *Chart) PricePane() (px float64, ok bool) {
	r, ok := priceRect(c.v.Call("getModel"))
	if !ok {
		return 0, false
	}
	return r.Get("height").Float(), true
}

// PointAtX puts the crosshair at pixel x, halfway down the price grid, as a
// still pointer there would: after the candles moved under it (older ones
// put before, the view moved to them), the crosshair and the legend name the
// candle now under it.
func (c *Chart) PointAtX(x float64) {
	r, ok := priceRect(c.v.Call("getModel"))
	if !ok {
		return
	}
	c.v.Call("dispatchAction", map[string]any{"type": "updateAxisPointer", "x": x, "y": r.Get("y").Float() + r.Get("height").Float()/2})
}
