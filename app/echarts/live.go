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
// price axis, a volume above the volume axis), DrawLast reports it, the
// caller hands the series over again, and ECharts rescales.

// liveLayer is the chart's own drawing of its newest candle: its shapes, on
// ECharts' canvas, and their colours.
type liveLayer struct {
	zr              app.Value
	wick, body, bar app.Value // created on the first draw
	up, down        string
	shown           bool       // the shapes are on the canvas
	drawn           [9]float64 // where they are, and which colours (colours), when shown
	moved           bool       // since the canvas was last painted
}

// SetLiveColors sets the colours of the newest candle's shapes, rising and
// falling: the frame's. They take them when next drawn.
func (c *Chart) SetLiveColors(up, down string) {
	c.live.up, c.live.down, c.live.drawn = up, down, [9]float64{}
}

// DrawLast draws the newest candle as the arrays hold it (SetLast) by moving
// its shapes alone, at once, and reports whether it could: false when it has
// left the range of the axes ECharts drew, or the chart holds fewer than two
// candles (ECharts draws a lone candle itself); the caller then hands the
// series over again (RedrawSeries), and the shapes follow.
func (c *Chart) DrawLast() bool {
	if !c.placeLast() {
		return false
	}
	c.paintLast()
	return true
}

// paintLast repaints the canvas at once when the newest candle's shapes
// moved, appeared or went: the change is on screen when it returns.
func (c *Chart) paintLast() {
	if c.live.moved {
		c.live.zr.Call("refreshImmediately")
		c.live.moved = false
	}
}

// FitLast hands ECharts the series again when the newest candle, in view,
// has left the range of the axes ECharts drew: after a zoom or a pan, the
// axes span the candles in view as ECharts holds them, and its copy of the
// newest one may be older than the candle.
func (c *Chart) FitLast() {
	if c.Len() >= 2 && !c.placeLast() {
		c.RedrawSeries(true, true)
	}
}

// seal keeps the invariant between the arrays and the shapes: with two
// candles or more, the newest element of each array is ECharts' hidden copy
// ({value, itemStyle: {opacity: 0}}) and every other element a plain value.
func (c *Chart) seal() {
	isArray := app.Window().Get("Array").Get("isArray")
	for _, a := range []app.Value{c.prices, c.ups, c.downs} {
		n := a.Length()
		if n >= 2 {
			if v := a.Index(n - 2); wrapped(isArray, v) {
				a.Call("splice", n-2, 1, v.Get("value"))
			}
		}
		if n >= 1 {
			v := a.Index(n - 1)
			switch {
			case n >= 2 && !wrapped(isArray, v):
				a.Call("splice", n-1, 1, map[string]any{"value": v, "itemStyle": map[string]any{"opacity": 0}})
			case n == 1 && wrapped(isArray, v):
				a.Call("splice", 0, 1, v.Get("value"))
			}
		}
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
	l := &c.live
	n := c.Len()
	if n < 2 {
		l.hide()
		return false
	}
	if c.end < n-1 || c.start > n-1 {
		l.hide() // the user looks at older candles
		return true
	}
	k := c.newest()
	x, yHigh, inHigh := c.pixel(0, n-1, k.high)
	_, yLow, inLow := c.pixel(0, n-1, k.low)
	_, yOpen, _ := c.pixel(0, n-1, k.open)
	_, yClose, _ := c.pixel(0, n-1, k.close)
	prevX, _, _ := c.pixel(0, n-2, k.open)
	_, yVol, inVol := c.pixel(1, n-1, k.vol)
	_, yBase, _ := c.pixel(1, n-1, 0)
	if !inHigh || !inLow || !inVol || math.IsNaN(x) || math.IsNaN(prevX) {
		l.hide()
		return false
	}
	band := math.Abs(x - prevX)
	// As ECharts lays out a candle: half the band wide, its sides and wick
	// on half pixels, so that one-pixel lines are crisp.
	w := math.Max(band/2, 1)
	left, right := subPixel(x-w/2, true), subPixel(x+w/2, false)
	top := math.Min(yOpen, yClose)
	bw := math.Max(band*chartopt.VolumeBarShare, 1)
	at := [9]float64{x, yHigh, yLow, yOpen, yClose, yVol, yBase, band, colours(k)}
	if l.shown && at == l.drawn {
		return true // as drawn: moving the shapes would only cost a repaint
	}
	l.ensure()
	color := l.color(k.rising)
	xw := subPixel(x, false)
	l.wick.Call("attr", map[string]any{"ignore": false,
		"shape": map[string]any{"x1": xw, "y1": yHigh, "x2": xw, "y2": yLow},
		"style": map[string]any{"stroke": color}})
	l.body.Call("attr", map[string]any{"ignore": false,
		"shape": map[string]any{"x": left, "y": top, "width": right - left, "height": math.Abs(yOpen - yClose)},
		"style": map[string]any{"fill": color, "stroke": color}})
	l.bar.Call("attr", map[string]any{"ignore": k.vol <= 0,
		"shape": map[string]any{"x": x - bw/2, "y": yVol, "width": bw, "height": yBase - yVol},
		"style": map[string]any{"fill": l.color(k.volRising)}})
	l.shown, l.drawn, l.moved = true, at, true
	return true
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
	p := c.prices.Index(n - 1).Get("value")
	k := candle{open: p.Index(0).Float(), close: p.Index(1).Float(), low: p.Index(2).Float(), high: p.Index(3).Float()}
	if v := c.ups.Index(n - 1).Get("value"); v.Type() == app.TypeNumber {
		k.vol, k.volRising = v.Float(), true
	} else if v := c.downs.Index(n - 1).Get("value"); v.Type() == app.TypeNumber {
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

// pixel is where the value v of the candle at index i falls in the grid, and
// whether that point is inside the grid.
func (c *Chart) pixel(grid, i int, v float64) (x, y float64, in bool) {
	finder := map[string]any{"gridIndex": grid}
	p := c.v.Call("convertToPixel", finder, []any{i, v})
	if !p.Truthy() || p.Length() < 2 {
		return math.NaN(), math.NaN(), false
	}
	x, y = p.Index(0).Float(), p.Index(1).Float()
	return x, y, c.v.Call("containPixel", finder, []any{x, y}).Bool()
}

// colours sums up the candle's colours, for liveLayer.drawn.
func colours(k candle) float64 {
	var v float64
	if k.rising {
		v++
	}
	if k.volRising {
		v += 2
	}
	return v
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
