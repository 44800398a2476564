package echarts

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// The last-price mark: a dashed line across the price grid at the newest
// close, and a tag over the price axis with its value and the time left in
// the candle, coloured by the candle's direction. Like the newest candle
// (live.go), it is drawn by the chart's own shapes, so that a live update
// or the countdown's tick moves it without handing ECharts its series.

// lastMark is the mark's shapes and what it shows.
type lastMark struct {
	line, tag app.Value // created on the first draw
	price     func(float64) string
	left      string // time left in the newest candle
}

// SetPriceText sets how the mark writes the last price (the price axis' rule).
func (c *Chart) SetPriceText(f func(float64) string) { c.mark.price = f }

// SetTimeLeft sets the countdown written under the last price and repaints
// the tag alone, on the next frame.
func (c *Chart) SetTimeLeft(left string) {
	if left == c.mark.left {
		return
	}
	c.mark.left = left
	c.placeMark()
	c.live.zr.Call("refresh")
}

// placeMark puts the mark at the newest close; it is hidden while the chart
// holds fewer than two candles or the close is off the price axis.
func (c *Chart) placeMark() {
	c.placeExtremes() // the view's high and low move with the same draws
	m := &c.mark
	n := c.Len()
	if n < 2 || m.price == nil {
		if m.line != nil {
			m.line.Call("attr", "ignore", true)
			m.tag.Call("attr", "ignore", true)
		}
		return
	}
	m.ensure(c.live.zr)
	k := c.newest()
	_, y := c.pixel(0, n-1, k.close)
	w := c.v.Call("getWidth").Float()
	left, right := 8.0, w-c.room // the price grid's margins (chartopt.Frame)
	hide := y != y || !c.v.Call("containPixel", map[string]any{"gridIndex": 0}, []any{right - 1, y}).Bool()
	colour := chartopt.LastColor(k.open, k.close, chartopt.Style{Up: c.live.up, Down: c.live.down})
	text := m.price(k.close)
	if m.left != "" {
		text += "\n" + m.left
	}
	m.line.Call("attr", map[string]any{"ignore": hide,
		"shape": map[string]any{"x1": left, "y1": y, "x2": right, "y2": y},
		"style": map[string]any{"stroke": colour}})
	// The tag spans the axis' room, from the grid to the canvas' edge, so
	// that it hides whole the labels it passes over: as wide as its text,
	// a label in the axis' larger font showed past it.
	m.tag.Call("attr", map[string]any{"ignore": hide, "x": right + tagGap, "y": y,
		"style": map[string]any{"text": text, "backgroundColor": colour, "width": c.room - tagGap - tagEdge - 2*tagPad}})
	c.live.moved = true // painted with the newest candle (paintLast)
}

// The tag's box: tagGap px right of the price grid, tagEdge px short of the
// canvas' right edge, its text tagPad px inside it left and right.
const tagGap, tagEdge, tagPad = 2, 1, 4

// ensure creates the mark's shapes: silent, above the series, below the crosshair.
func (m *lastMark) ensure(zr app.Value) {
	if m.line != nil {
		return
	}
	g := app.Window().Get("echarts").Get("graphic")
	m.line = g.Get("Line").New(map[string]any{"name": "last-price-line", "z": 9, "silent": true,
		"style": map[string]any{"lineWidth": 1, "lineDash": []any{4, 3}}})
	m.tag = g.Get("Text").New(map[string]any{"name": "last-price-tag", "z": 12, "silent": true,
		"style": map[string]any{"fill": "#fff", "fontSize": 11, "padding": []any{2, tagPad}, "borderRadius": 2, "verticalAlign": "middle", "lineHeight": 13}})
	zr.Call("add", m.line)
	zr.Call("add", m.tag)
}

// DataURL is the chart as a PNG image (ECharts' own export), at twice the
// screen's resolution, on background bg (the canvas itself is transparent).
func (c *Chart) DataURL(bg string) string {
	return c.v.Call("getDataURL", map[string]any{"type": "png", "pixelRatio": 2, "backgroundColor": bg}).String()
}
