package echarts

import (
	"math"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// The newest candle is drawn by the chart itself: three shapes of its own
// (wick, body, volume bar), placed through ECharts' axes with ECharts'
// geometry, above the series and below the crosshair. A live update moves
// them and repaints the canvas, nothing else. Handing ECharts its series
// again, even with one element changed, re-runs its whole pipeline (the
// model's merge, both grids' axes and labels, the zoom slider, every series
// view, then the repaint): 20-45 ms on a two-core machine, where this takes
// 2-4 ms. (A canvas layer of their own, zlevel 1, would repaint in under a
// millisecond, but would draw them above the crosshair.)
//
// ECharts keeps the newest candle in its data, hidden (opacity 0), so that
// its axes span it, its crosshair snaps to it and a click on it reports it.
// Its copy there is as fresh as the last time the series were handed over;
// when the live candle leaves the range of its axes (a new high above the
// price axis, a volume above the volume axis), ShowLast hands the series
// over again, and ECharts rescales.

// liveLayer is the chart's own drawing of its newest candle: its shapes, on
// ECharts' canvas, and their colours.
type liveLayer struct {
	zr              app.Value
	wick, body, bar app.Value // created on the first draw
	up, down        string    // the frame's colours (SetFrame, Adopt)
	shown           bool      // the shapes are on the canvas
	drawn           placement // where and in which colours, when shown
	moved           bool      // since the canvas was last painted
}

// placement is where the shapes go, in pixels, and their colours.
type placement struct {
	x, high, low, open, close, vol, base, band float64
	body, bar                                  string
}

// ShowLast shows the newest candle as the arrays hold it (SetLast): by
// moving its shapes alone, at once, when it fits the axes ECharts drew, and
// otherwise (a new high above the price axis, more volume than the volume
// axis holds, a lone candle) by handing ECharts the series again, which
// rescales its axes.
func (c *Chart) ShowLast() {
	if c.Len() >= 2 && !c.custom && c.placeLast() {
		c.paintLast()
		return
	}
	c.redrawSeries()
}

// paintLast repaints the canvas at once when the newest candle's shapes
// moved, appeared or went: the change is on screen when it returns.
func (c *Chart) paintLast() {
	if c.live.moved {
		c.live.zr.Call("refreshImmediately")
		c.live.moved = false
	}
}

// seal keeps the invariant between the arrays and the shapes: with two
// candles or more, the newest element of each array is ECharts' hidden copy
// ({value, itemStyle: {opacity: 0}}) and every other element a plain value.
func (c *Chart) seal() {
	isArray := app.Window().Get("Array").Get("isArray")
	for _, a := range []app.Value{c.prices, c.ups, c.downs} {
		n := a.Length()
		if c.custom { // ECharts draws every candle itself (styles.go)
			if n >= 1 {
				plainAt(isArray, a, n-1)
			}
			continue
		}
		if n >= 2 {
			plainAt(isArray, a, n-2)
			hiddenAt(isArray, a, n-1)
		} else if n == 1 {
			plainAt(isArray, a, 0)
		}
	}
}

// plainAt unwraps element i of a when it is a hidden copy.
func plainAt(isArray, a app.Value, i int) {
	if v := a.Index(i); wrapped(isArray, v) {
		a.Call("splice", i, 1, v.Get("value"))
	}
}

// hiddenAt wraps element i of a as a hidden copy when it is a plain value.
func hiddenAt(isArray, a app.Value, i int) {
	if v := a.Index(i); !wrapped(isArray, v) {
		a.Call("splice", i, 1, map[string]any{"value": v, "itemStyle": map[string]any{"opacity": 0}})
	}
}

// wrapped tells a hidden copy from a plain value: an object, not an array.
func wrapped(isArray, v app.Value) bool {
	return v.Type() == app.TypeObject && !isArray.Invoke(v).Bool()
}

// placeLast puts the newest candle's shapes where ECharts' axes put the newest
// candle, hiding them when it is out of view, and reports whether the candle
// fits the axes (true when out of view: nothing is drawn).
func (c *Chart) placeLast() bool {
	defer c.placeMark() // the last price moves with the newest candle
	defer c.placeLines()
	l := &c.live
	n := c.Len()
	if n < 2 {
		l.hide()
		return false
	}
	if c.end < n-1 || c.start > n-1 || c.custom {
		l.hide() // the user looks at older candles, or ECharts draws the newest too
		return true
	}
	k := c.newest()
	x, high := c.pixel(0, n-1, k.high)
	_, low := c.pixel(0, n-1, k.low)
	_, vol := c.pixel(1, n-1, k.vol)
	prevX, _ := c.pixel(0, n-2, k.open)
	p := placement{x: x, high: high, low: low, vol: vol, band: math.Abs(x - prevX), body: l.color(k.rising), bar: l.color(k.volRising)}
	if math.IsNaN(p.band) || !c.inGrid(0, x, high) || !c.inGrid(0, x, low) || !c.inGrid(1, x, vol) {
		l.hide()
		return false
	}
	_, p.open = c.pixel(0, n-1, k.open)
	_, p.close = c.pixel(0, n-1, k.close)
	_, p.base = c.pixel(1, n-1, 0)
	if l.shown && p == l.drawn {
		return true // as drawn: moving the shapes would only cost a repaint
	}
	l.draw(p, k.vol > 0)
	return true
}

// draw moves the shapes to p and shows them (the bar when there is volume).
func (l *liveLayer) draw(p placement, volume bool) {
	l.ensure()
	// As ECharts lays out a candle: half the band wide, its sides and wick
	// on half pixels, so that one-pixel lines are crisp.
	w := math.Max(p.band/2, 1)
	left, right := subPixel(p.x-w/2, true), subPixel(p.x+w/2, false)
	xw := subPixel(p.x, false)
	bw := math.Max(p.band*chartopt.VolumeBarShare, 1)
	l.wick.Call("attr", map[string]any{"ignore": false,
		"shape": map[string]any{"x1": xw, "y1": p.high, "x2": xw, "y2": p.low},
		"style": map[string]any{"stroke": p.body}})
	l.body.Call("attr", map[string]any{"ignore": false,
		"shape": map[string]any{"x": left, "y": math.Min(p.open, p.close), "width": right - left, "height": math.Abs(p.open - p.close)},
		"style": map[string]any{"fill": p.body, "stroke": p.body}})
	l.bar.Call("attr", map[string]any{"ignore": !volume,
		"shape": map[string]any{"x": p.x - bw/2, "y": p.vol, "width": bw, "height": p.base - p.vol},
		"style": map[string]any{"fill": p.bar}})
	l.shown, l.drawn, l.moved = true, p, true
}

// candle is the newest candle as its shapes draw it: prices and volume
// as numbers, since they are being drawn, and the colour of each part.
type candle struct {
	open, close, low, high, vol float64
	// rising colours the body by ECharts' rule: close above open, or a doji
	// at or above the previous close; volRising, the volume bar by the series
	// the volume is in (close at or above open).
	rising, volRising bool
}

// newest reads the newest candle from the arrays (two or more candles).
func (c *Chart) newest() candle {
	n := c.Len()
	p := valueOf(c.prices.Index(n - 1))
	k := candle{open: p.Index(0).Float(), close: p.Index(1).Float(), low: p.Index(2).Float(), high: p.Index(3).Float()}
	if v := valueOf(c.ups.Index(n - 1)); v.Type() == app.TypeNumber {
		k.vol, k.volRising = v.Float(), true
	} else if v := valueOf(c.downs.Index(n - 1)); v.Type() == app.TypeNumber {
		k.vol = v.Float()
	}
	switch {
	case k.close != k.open:
		k.rising = k.close > k.open
	default:
		k.rising = c.prices.Index(n-2).Index(1).Float() <= k.close
	}
	return k
}

// valueOf is an element's value, whether hidden (seal) or plain.
func valueOf(v app.Value) app.Value {
	if v.Type() != app.TypeObject {
		return v // a number, or "-": no volume in this series
	}
	if w := v.Get("value"); !w.IsUndefined() {
		return w
	}
	return v
}

// pixel is where the value v of the candle at index i falls in the grid
// (NaN when ECharts cannot say).
func (c *Chart) pixel(grid, i int, v float64) (x, y float64) {
	p := c.v.Call("convertToPixel", map[string]any{"gridIndex": grid}, []any{i, v})
	if !p.Truthy() || p.Length() < 2 {
		return math.NaN(), math.NaN()
	}
	return p.Index(0).Float(), p.Index(1).Float()
}

// inGrid tells whether the point (x, y) is inside the grid.
func (c *Chart) inGrid(grid int, x, y float64) bool {
	return !math.IsNaN(y) && c.v.Call("containPixel", map[string]any{"gridIndex": grid}, []any{x, y}).Bool()
}

func (l *liveLayer) color(rising bool) string {
	if rising {
		return l.up
	}
	return l.down
}

// ensure creates the layer's shapes: silent, so that the pointer reaches
// ECharts' hidden copy below them; above the series (z 2) and below the
// crosshair (z 50).
func (l *liveLayer) ensure() {
	if l.body != nil {
		return
	}
	g := app.Window().Get("echarts").Get("graphic")
	common := func(name string, z int) map[string]any {
		return map[string]any{"name": name, "z": z, "silent": true, "ignore": true}
	}
	wick, body := common("live-wick", 10), common("live-body", 11)
	wick["style"] = map[string]any{"lineWidth": 1}
	body["style"] = map[string]any{"lineWidth": 1}
	l.wick, l.body, l.bar = g.Get("Line").New(wick), g.Get("Rect").New(body), g.Get("Rect").New(common("live-bar", 10))
	for _, el := range []app.Value{l.wick, l.body, l.bar} {
		l.zr.Call("add", el)
	}
}

func (l *liveLayer) hide() {
	if !l.shown {
		return
	}
	for _, el := range []app.Value{l.wick, l.body, l.bar} {
		el.Call("attr", "ignore", true)
	}
	l.shown, l.moved = false, true
}

// subPixel is ECharts' subPixelOptimize for one-pixel lines: the position
// moved to the nearest half pixel, towards positive or negative.
func subPixel(p float64, positive bool) float64 {
	d := math.Floor(p*2 + 0.5) // JavaScript's Math.round, as ECharts rounds
	if int64(d+1)%2 == 0 {
		return d / 2
	}
	if positive {
		return (d + 1) / 2
	}
	return (d - 1) / 2
}
