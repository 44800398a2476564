// Package echarts wraps the Apache ECharts instance behind a Go type, so that
// the rest of the UI never touches JavaScript values. Options and data cross
// the bridge as JSON text (go-app's ValueOf cannot convert Go slices or
// structs); the chart's data arrays stay on the JavaScript side, where a live
// update changes one element and a prepend splices a chunk, without
// re-sending what the chart already holds. The newest candle is drawn by a
// layer of the package's own (live.go), so that a live update repaints it
// alone.
package echarts

import (
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// Chart is one ECharts instance drawn in a DOM element, with its data.
type Chart struct {
	v    app.Value
	json app.Value
	// The chart's arrays, shared with ECharts: labels of both x axes, then
	// the price and the two volume series.
	labels, prices, ups, downs app.Value
	funcs                      []app.Func
	axisFuncs                  []app.Func     // the label rules of SetAxes (axes.go)
	axes                       map[string]any // SetAxes' option, not yet handed to ECharts
	priceStep                  float64        // the price axis' least interval (Axes.PriceStep)
	staleAxisFuncs             []app.Func     // rules ECharts holds until axes are handed over
	// The view, as indexes of the first and last candles shown: kept here
	// because reading it back (getOption) copies the whole option.
	start, end int
	live       liveLayer   // the newest candle (live.go)
	mark       lastMark    // the last-price line and tag (lastprice.go)
	marks      viewMarks   // the view's high and low (extremes.go)
	lines      []app.Value // the study lines' arrays (studies.go)
	xAxes      int         // how many x axes the frame has, all on the candles' labels
	custom     bool        // the frame's style draws prices with a custom series (styles.go)
	rows       app.Value   // the custom series' rows of prices (seriesData); nil: none kept
	resized    app.Value   // a ResizeObserver of the chart's element
	onResize   func()      // OnResize's
	logLabels  logLabels   // the price axis' labels on a log scale (logticks.go)
	room       float64     // the price axis' room right of the grids, px (chartopt.Style.Room)
	measure    app.Value   // a canvas' 2D context that TextWidth measures with; nil until asked
}

// Init draws a new chart with the named theme ("" or "dark") in an element
// of its own, div#chart.chart, put first into host. It returns nil when
// ECharts is not loaded (the page's script failed).
func Init(host app.Value, theme string) *Chart {
	ec := app.Window().Get("echarts")
	if !ec.Truthy() || !host.Truthy() {
		return nil
	}
	var th any
	if theme != "" {
		th = theme
	}
	el := app.Window().Get("document").Call("createElement", "div")
	el.Set("id", "chart")
	el.Set("className", "chart")
	host.Call("prepend", el)
	return newChart(ec.Call("init", el, th))
}

// Adopt takes over the chart that the page's first-paint script
// (web/chart-boot.js) drew before the app ran in the prerendered #chart:
// instance is its ECharts instance, el its element, dark whether its frame
// is dark (app/browser.AdoptFirstPaint). The element moves into host, first,
// and its drawing stays. The script starts ECharts only to draw candles, so
// an adopted chart always shows them, in the frame of chartopt.DefaultStyle
// with the price axis' room the script fitted to its labels.
func Adopt(host, instance, el app.Value, dark bool) *Chart {
	host.Call("prepend", el)
	c := newChart(instance)
	s := chartopt.DefaultStyle(dark)
	c.live.up, c.live.down = s.Up, s.Down
	c.marks.colour = chartopt.AxisColor(dark)
	c.mark.bg = chartopt.Background(dark)
	opt := c.v.Call("getOption")
	if dz := opt.Get("dataZoom"); dz.Truthy() && dz.Length() > 0 {
		c.readZoom(dz.Index(0)) // where the user may have moved it already
	}
	if g := opt.Get("grid"); g.Truthy() && g.Length() > 0 {
		if right := g.Index(0).Get("right"); right.Type() == app.TypeNumber {
			c.room = right.Float()
		}
	}
	return c
}

func newChart(v app.Value) *Chart {
	w := app.Window()
	c := &Chart{v: v, json: w.Get("JSON"), xAxes: 2, room: chartopt.DefaultPriceRoom,
		labels: w.Get("Array").New(), prices: w.Get("Array").New(), ups: w.Get("Array").New(), downs: w.Get("Array").New(),
		live: liveLayer{zr: v.Call("getZr")}}
	c.followSize()
	return c
}

// followSize resizes the chart whenever its element changes size, not only
// when the window does: the page around it can (on a phone, the panels
// below filling made the element shorter, and the canvas ran over them).
func (c *Chart) followSize() {
	observer := app.Window().Get("ResizeObserver")
	if !observer.Truthy() {
		return
	}
	fn := app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 || args[0].Length() == 0 {
			return nil
		}
		box := args[0].Index(0).Get("contentRect")
		w, h := box.Get("width").Float(), box.Get("height").Float()
		if int(w+0.5) != c.v.Call("getWidth").Int() || int(h+0.5) != c.v.Call("getHeight").Int() {
			c.resize() // observing reports the size at once: no redraw for the same one
			if f := c.onResize; f != nil {
				go f() // as on's: not inside the observer's callback
			}
		}
		return nil
	})
	c.funcs = append(c.funcs, fn)
	c.resized = observer.New(fn)
	c.resized.Call("observe", c.v.Call("getDom"))
}

// SetFrame replaces the option with the frame of style s (chartopt.Frame);
// the newest candle's shapes take its colours.
func (c *Chart) SetFrame(s chartopt.Style) error {
	frame, err := chartopt.Frame(s)
	if err != nil {
		return err
	}
	c.live.hide() // the frame holds no candles until the next Draw
	opt := c.json.Call("parse", string(frame))
	c.custom = s.Kind.Custom()
	if c.custom {
		opt.Get("series").Index(chartopt.SeriesPrice).Set("renderItem", renderItem(s))
	}
	c.seal() // the newest candle is hidden in ECharts' copy only when the live layer draws it
	c.v.Call("setOption", opt, map[string]any{"notMerge": true})
	c.live.moved = false // setOption has painted
	c.live.up, c.live.down = s.Up, s.Down
	c.marks.colour = chartopt.AxisColor(s.Dark)
	c.mark.bg = chartopt.Background(s.Dark)
	c.xAxes, c.lines = chartopt.TimeAxis(s)+1, nil
	c.logLabels = logLabels{on: s.Scale == chartopt.ScaleLog}
	c.room = float64(s.Room())
	c.mark.labels = nil
	return nil
}

// TextWidth is the width of text written in font (CSS, chartopt.AxisFont),
// as the browser measures it: a canvas' own, as ECharts measures its labels.
func (c *Chart) TextWidth(text, font string) float64 {
	if c.measure == nil {
		c.measure = app.Window().Get("document").Call("createElement", "canvas").Call("getContext", "2d")
	}
	c.measure.Set("font", font)
	return c.measure.Call("measureText", text).Get("width").Float()
}

// Load replaces the chart's data with the arrays given as JSON.
func (c *Chart) Load(labels, prices, ups, downs []byte) {
	c.labels = c.json.Call("parse", string(labels))
	c.prices = c.json.Call("parse", string(prices))
	c.ups = c.json.Call("parse", string(ups))
	c.downs = c.json.Call("parse", string(downs))
	c.rows = nil
	c.seal()
}

// Prepend puts older candles, given as JSON arrays, before the held ones.
func (c *Chart) Prepend(labels, prices, ups, downs []byte) {
	for _, p := range []struct {
		dst app.Value
		src []byte
	}{{c.labels, labels}, {c.prices, prices}, {c.ups, ups}, {c.downs, downs}} {
		p.dst.Get("unshift").Call("apply", p.dst, c.json.Call("parse", string(p.src)))
	}
	c.rows = nil // every candle's index moved
	c.seal()
}

// SetLast replaces the newest candle (each value one JSON element), or
// appends it when appendNew is set. The chart shows the change at the next
// Draw, Redraw or ShowLast.
func (c *Chart) SetLast(label, price, up, down string, appendNew bool) {
	for _, p := range []struct {
		dst app.Value
		src string
	}{{c.labels, label}, {c.prices, price}, {c.ups, up}, {c.downs, down}} {
		v := c.json.Call("parse", p.src)
		if appendNew || p.dst.Length() == 0 {
			p.dst.Call("push", v)
		} else {
			p.dst.Call("splice", p.dst.Length()-1, 1, v) // SetIndex cannot take a JS value here
		}
	}
	c.seal()
}

// Len is how many candles the chart holds.
func (c *Chart) Len() int { return c.prices.Length() }

// Draw hands the held arrays to ECharts and shows the candles from index
// start to end (inclusive).
func (c *Chart) Draw(start, end int) {
	c.setOption(map[string]any{
		"xAxis":    c.axesData(),
		"series":   c.seriesData(),
		"dataZoom": []any{map[string]any{"startValue": start, "endValue": end}, map[string]any{"startValue": start, "endValue": end}},
	}, map[string]any{"lazyUpdate": false})
	c.start, c.end = start, end
	c.followLast()
}

// Redraw hands the held arrays to ECharts, keeping the view.
func (c *Chart) Redraw() {
	c.setOption(map[string]any{
		"xAxis":  c.axesData(),
		"series": c.seriesData(),
	})
	c.followLast()
}

// redrawSeries hands ECharts the series again, not the time axis: the
// candles are the same ones, the newest changed.
func (c *Chart) redrawSeries() {
	c.setOption(map[string]any{
		"series": c.seriesData(),
	})
	c.followLast()
}

// followLast moves the newest candle's shapes after ECharts has drawn
// (setOption paints at once) and repaints at once, so that no frame shows
// them where the previous axes put them: a second paint, a few milliseconds
// beside the tens that setOption takes.
func (c *Chart) followLast() {
	c.mark.labels = nil // ECharts laid the axes out again
	c.placeLogLabels()
	c.placeLast()
	c.paintLast()
}

// View returns the indexes of the first and last candles in view.
func (c *Chart) View() (start, end int) { return c.start, c.end }

// Zoom shows the candles from index start to end.
func (c *Chart) Zoom(start, end int) {
	c.v.Call("dispatchAction", map[string]any{"type": "dataZoom", "startValue": start, "endValue": end})
	c.start, c.end = start, end
}

// OnZoom calls f after the user zooms or pans, with the view's indexes. The
// newest candle's shapes follow the zoom at once, in the frame ECharts
// paints; f's caller then calls FollowZoom, for the case where the newest
// candle has left the range of the axes ECharts drew for the new view, and
// for a log axis' labels.
func (c *Chart) OnZoom(f func(start, end int)) {
	c.on("datazoom", func(ev app.Value) func() {
		c.readZoom(ev)
		c.mark.labels = nil // the zoom laid the price axis out again
		c.placeLast()
		c.live.moved = false // ECharts paints the zoom, the shapes with it
		s, e := c.start, c.end
		return func() { f(s, e) }
	})
}

// FollowZoom fits to the view ECharts drew for a zoom what ECharts does
// not redraw itself: the log axis' labels (logticks.go) and the newest
// candle (ShowLast). A live update calls ShowLast alone: it moves no axis
// that the newest candle still fits.
func (c *Chart) FollowZoom() {
	c.placeLogLabels()
	c.ShowLast()
}

// readZoom keeps the view from a datazoom event: indexes when the action
// gave them, otherwise percentages of the axis.
func (c *Chart) readZoom(ev app.Value) {
	if b := ev.Get("batch"); b.Truthy() && b.Length() > 0 {
		ev = b.Index(0)
	}
	last := max(c.Len()-1, 0)
	if sv, ev2 := ev.Get("startValue"), ev.Get("endValue"); sv.Type() == app.TypeNumber && ev2.Type() == app.TypeNumber {
		c.start, c.end = sv.Int(), ev2.Int()
		return
	}
	if sp, ep := ev.Get("start"), ev.Get("end"); sp.Type() == app.TypeNumber && ep.Type() == app.TypeNumber {
		c.start = int(sp.Float()/100*float64(last) + 0.5)
		c.end = int(ep.Float()/100*float64(last) + 0.5)
	}
}

// OnPointer calls f with the index of the candle under the crosshair.
func (c *Chart) OnPointer(f func(index int)) {
	c.on("updateAxisPointer", func(ev app.Value) func() {
		info := ev.Get("axesInfo")
		if !info.Truthy() || info.Length() == 0 {
			return nil
		}
		v := info.Index(0).Get("value")
		if v.Type() != app.TypeNumber {
			return nil
		}
		i := v.Int()
		return func() { f(i) }
	})
}

// OnPointerOut calls f when the pointer leaves the chart.
func (c *Chart) OnPointerOut(f func()) {
	c.on("globalout", func(app.Value) func() { return f })
}

// OnClick calls f with the index of a clicked candle or volume bar.
func (c *Chart) OnClick(f func(index int)) {
	c.on("click", func(ev app.Value) func() {
		if i := ev.Get("dataIndex"); i.Type() == app.TypeNumber {
			n := i.Int()
			return func() { f(n) }
		}
		return nil
	})
}

// on listens to an ECharts event. read runs inside the JavaScript callback
// and reads what it needs of the event; the function it returns runs on a
// goroutine of its own. ECharts fires some events while Go is calling it
// (setOption), and a callback that blocked there would deadlock the page.
func (c *Chart) on(event string, read func(app.Value) func()) {
	fn := app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		if then := read(args[0]); then != nil {
			go then()
		}
		return nil
	})
	c.funcs = append(c.funcs, fn)
	c.v.Call("on", event, fn)
}

// OnResize calls f after the chart has followed a change of its element's
// size.
func (c *Chart) OnResize(f func()) { c.onResize = f }

// Width is the chart's width, CSS px.
func (c *Chart) Width() int { return c.v.Call("getWidth").Int() }

// resize fits the chart to its element's current size.
func (c *Chart) resize() {
	c.v.Call("resize")
	c.followLast()
}

// Dispose frees the chart and its callbacks; c must not be used afterwards.
func (c *Chart) Dispose() {
	if c.resized != nil {
		c.resized.Call("disconnect")
	}
	c.v.Call("dispose")
	for _, f := range slices.Concat(c.funcs, c.axisFuncs, c.staleAxisFuncs) {
		f.Release()
	}
	c.funcs, c.axisFuncs, c.staleAxisFuncs = nil, nil, nil
}
