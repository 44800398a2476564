package echarts

import (
	"math"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The high and the low of the candles in view, marked on the chart at their
// candles by two texts of the chart's own, like the last price
// (lastprice.go): they move with every zoom, draw and live update, without
// handing ECharts its series.

// Extreme is a price marked at a candle: its index, its value as drawn and
// its text, exact as the page writes it.
type Extreme struct {
	Index int
	Value float64
	Text  string
}

// viewMarks are the two texts and the rule that finds them.
type viewMarks struct {
	high, low app.Value // created on the first draw
	find      func(start, end int) (high, low Extreme, ok bool)
	colour    string
}

// SetExtremes sets how the chart finds the high and the low of the candles
// from index start to end (the page holds the candles, as exact decimals).
func (c *Chart) SetExtremes(find func(start, end int) (high, low Extreme, ok bool)) {
	c.marks.find = find
	c.placeExtremes()
}

// placeExtremes puts the marks at the view's high and low; each is hidden
// when its candle's point is off the price grid.
func (c *Chart) placeExtremes() {
	m := &c.marks
	if m.find == nil {
		return
	}
	hi, lo, ok := m.find(c.start, c.end)
	if !ok && m.high == nil {
		return
	}
	m.ensure(c.live.zr)
	c.placeExtreme(m.high, hi, ok, true)
	c.placeExtreme(m.low, lo, ok, false)
	c.live.moved = true // painted with the newest candle (paintLast)
}

// placeExtreme writes e beside its candle: above a high, below a low, and
// pointing left or right so that the text stays inside the grid.
func (c *Chart) placeExtreme(el app.Value, e Extreme, ok, above bool) {
	x, y := c.pixel(0, e.Index, e.Value)
	if !ok || math.IsNaN(x) || !c.inGrid(0, x, y) {
		el.Call("attr", "ignore", true)
		return
	}
	text, align := "← "+e.Text, "left"
	if x > c.v.Call("getWidth").Float()/2 {
		text, align = e.Text+" →", "right"
	}
	valign := "top"
	if above {
		valign = "bottom"
	}
	el.Call("attr", map[string]any{"ignore": false, "x": x, "y": y,
		"style": map[string]any{"text": text, "align": align, "verticalAlign": valign, "fill": c.marks.colour}})
}

// ensure creates the texts: silent, above the series, below the crosshair.
func (m *viewMarks) ensure(zr app.Value) {
	if m.high != nil {
		return
	}
	g := app.Window().Get("echarts").Get("graphic")
	text := func(name string) app.Value {
		el := g.Get("Text").New(map[string]any{"name": name, "z": 12, "silent": true, "ignore": true,
			"style": map[string]any{"fontSize": 11, "padding": []any{2, 0}}})
		zr.Call("add", el)
		return el
	}
	m.high, m.low = text("view-high"), text("view-low")
}
