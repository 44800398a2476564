package echarts

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// The last-price mark: a dashed line across the price grid at the newest
// close, and a tag over the price axis with its value and the time left in
// the candle, coloured by the candle's direction. Like the newest candle
// (live.go), it is drawn by the chart's own shapes, so that a live update
// or the countdown's tick moves it without handing ECharts its series. A
// price label the tag would cut is hidden whole under a cover of the page's
// background: the tag's edge showed half of one.

// lastMark is the mark's shapes and what it shows.
type lastMark struct {
	line, tag, cover app.Value // created on the first draw
	price            func(float64) string
	left             string // time left in the newest candle
	bg               string // the page's background (chartopt.Background)
	// labels are the price labels' middles, px, as ECharts last laid out
	// the axis, each labelHalf px high on either side; nil: to be read
	// again (priceLabels), after any draw, zoom or resize (followLast).
	labels    []float64
	labelHalf float64
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
			m.cover.Call("attr", "ignore", true)
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
	c.coverLabels(right, y, hide)
	c.live.moved = true // painted with the newest candle (paintLast)
}

// coverLabels puts the cover beneath the tag at y (right of the price grid
// at right) over the price labels its edges meet, or hides it.
func (c *Chart) coverLabels(right, y float64, hide bool) {
	m := &c.mark
	lines := 1.0
	if m.left != "" {
		lines = 2
	}
	top, bottom, cut := c.labelsCut(y-lines*tagLine/2-tagPadY, y+lines*tagLine/2+tagPadY)
	m.cover.Call("attr", map[string]any{"ignore": hide || !cut,
		"shape": map[string]any{"x": right + 1, "y": top, "width": c.room - 1, "height": bottom - top},
		"style": map[string]any{"fill": m.bg}})
}

// labelsCut is the span from top to bottom over the price axis' labels
// that the band from y0 to y1 (a tag) meets, and whether any does.
func (c *Chart) labelsCut(y0, y1 float64) (top, bottom float64, cut bool) {
	m := &c.mark
	if m.labels == nil {
		m.labels, m.labelHalf = c.priceLabels()
	}
	top, bottom = y0, y1
	for _, y := range m.labels {
		if y+m.labelHalf > y0 && y-m.labelHalf < y1 {
			top, bottom, cut = min(top, y-m.labelHalf), max(bottom, y+m.labelHalf), true
		}
	}
	return top, bottom, cut
}

// priceLabels reads where the price axis' labels are, as ECharts laid them
// out: at the axis' ticks, or at the values handed to it on a log scale
// (logticks.go), read from its model (priceAxis and the axis' scale: not
// in ECharts' documented API) without writing them; middles, px, never nil, and
// the half of a label's line, its font's size times labelLine. Read once
// per layout: a read took 88 µs, and the tag moves with each live update
// and each second of its countdown.
func (c *Chart) priceLabels() (middles []float64, half float64) {
	middles = []float64{}
	axis, ok := priceAxis(c.v.Call("getModel"))
	if !ok {
		return middles, 0
	}
	labels := axis.Call("getLabelModel")
	half = float64(chartopt.AxisFontSize) * labelLine / 2
	if fs := labels.Call("get", "fontSize"); fs.Type() == app.TypeNumber {
		half = fs.Float() * labelLine / 2
	}
	values, ticks := labels.Call("get", "customValues"), false
	if values.Type() != app.TypeObject {
		values, ticks = axis.Get("scale").Call("getTicks"), true
	}
	for i := range values.Length() {
		v := values.Index(i)
		if ticks {
			v = v.Get("value")
		}
		middles = append(middles, axis.Call("toGlobalCoord", axis.Call("dataToCoord", v)).Float())
	}
	return middles, half
}

// The tag's box: tagGap px right of the price grid, tagEdge px short of the
// canvas' right edge, its text tagPad px inside it left and right and
// tagPadY above and below its lines of tagLine px. A label's line is taken
// as labelLine times its font's size, more than its digits' height.
const (
	tagGap, tagEdge, tagPad = 2, 1, 4
	tagPadY, tagLine        = 2, 13
	labelLine               = 1.4
)

// ensure creates the mark's shapes: silent, above the series, below the crosshair.
func (m *lastMark) ensure(zr app.Value) {
	if m.line != nil {
		return
	}
	g := app.Window().Get("echarts").Get("graphic")
	m.line = g.Get("Line").New(map[string]any{"name": "last-price-line", "z": 9, "silent": true,
		"style": map[string]any{"lineWidth": 1, "lineDash": []any{4, 3}}})
	m.tag = g.Get("Text").New(map[string]any{"name": "last-price-tag", "z": 12, "silent": true,
		"style": map[string]any{"fill": "#fff", "fontSize": 11, "padding": []any{tagPadY, tagPad}, "borderRadius": 2, "verticalAlign": "middle", "lineHeight": tagLine}})
	m.cover = g.Get("Rect").New(map[string]any{"name": "last-price-cover", "z": 11, "silent": true, "ignore": true})
	zr.Call("add", m.line)
	zr.Call("add", m.cover)
	zr.Call("add", m.tag)
}

// DataURL is the chart as a PNG image (ECharts' own export), at twice the
// screen's resolution, on background bg (the canvas itself is transparent).
func (c *Chart) DataURL(bg string) string {
	return c.v.Call("getDataURL", map[string]any{"type": "png", "pixelRatio": 2, "backgroundColor": bg}).String()
}
