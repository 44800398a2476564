package echarts

// SetLines replaces the study lines' arrays (one JSON array each, in the
// frame's order: chartopt.Style.Studies); the chart shows them at the next
// Draw or Redraw.
func (c *Chart) SetLines(arrays [][]byte) {
	c.lines = c.lines[:0]
	for _, a := range arrays {
		c.lines = append(c.lines, c.json.Call("parse", string(a)))
	}
}

// SetLineTails replaces every study line's values from index from on with
// tails (one JSON array each): a live update changes the last value or two,
// not the arrays. ECharts shows them when it is next handed the series.
func (c *Chart) SetLineTails(from int, tails [][]byte) {
	for i, t := range tails {
		if i >= len(c.lines) {
			return
		}
		dst := c.lines[i]
		args := []any{from, max(dst.Length()-from, 0)}
		vals := c.json.Call("parse", string(t))
		for j := range vals.Length() {
			args = append(args, vals.Index(j))
		}
		dst.Call("splice", args...)
	}
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
