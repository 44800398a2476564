package echarts

// Patch merges an option patch, given as JSON, over the chart's option
// (chartopt.Compact): the data and the view stay.
func (c *Chart) Patch(option []byte) {
	c.v.Call("setOption", c.json.Call("parse", string(option)))
	c.followLast()
}

// HidePointer hides the crosshair until the pointer moves again: after a
// move of the view the pointer did not make (a key, older candles put
// before), ECharts' crosshair stays on an index that no longer names the
// candle the legend shows.
func (c *Chart) HidePointer() {
	c.v.Call("dispatchAction", map[string]any{"type": "updateAxisPointer", "currTrigger": "leave"})
	c.v.Call("dispatchAction", map[string]any{"type": "hideTip"})
}
