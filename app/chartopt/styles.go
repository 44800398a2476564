package chartopt

// OHLC bars, the close line and the close area are ECharts custom series
// over the candles' own [open, close, low, high] arrays, so that every style
// draws the same data the candles do. Their drawing functions are JavaScript
// (server/cmd/echartsbuild/styles.js, part of the page's ECharts build);
// app/echarts hands them to the series, with each candle's index put before
// its prices (indexed, in the same file): the zoom filters a series by its
// value on the time axis, and the price axis then fits the candles in view.

// Custom reports whether kind k is drawn by a custom series, and not by
// ECharts' candlestick series and the chart's own newest-candle shapes.
func (k Kind) Custom() bool { return k == KindOHLC || k == KindLine || k == KindArea }

// ClosesOnly reports whether kind k draws the closes alone (a line or an
// area): its price axis fits them, and the marks of the view's high and low
// name the highest and the lowest close, the points the line reaches.
func (k Kind) ClosesOnly() bool { return k == KindLine || k == KindArea }

// LineColor is the colour of the close line and area: neither the rising
// nor the falling colour, since a line has no direction of its own.
const LineColor = "#2563eb"

// Drawing names a custom price series' drawing function, which the page's
// ECharts build exports (server/cmd/echartsbuild/styles.js), and the
// arguments that make its renderItem: the app and the first paint
// (web/chart-boot.js) call the same one.
type Drawing struct {
	Fn   string `json:"fn"`
	Args []any  `json:"args"`
}

// Drawing is the drawing function of style s's custom price series; ok is
// false for the styles ECharts' candlestick series draws.
func (s Style) Drawing() (d Drawing, ok bool) {
	switch s.Kind {
	case KindOHLC:
		return Drawing{Fn: "ohlcBars", Args: []any{s.Up, s.Down}}, true
	case KindLine, KindArea:
		return Drawing{Fn: "closeLine", Args: []any{LineColor, s.Kind == KindArea}}, true
	}
	return Drawing{}, false
}

// applyCustomKind turns the price series into a custom series for the styles
// that need one, over rows [index, open, close, low, high]: the index places
// a candle on the time axis; the price axis fits the lows and highs of the
// candles in view for OHLC bars, their closes alone for a line or an area.
func applyCustomKind(o *option, s Style) {
	if !s.Kind.Custom() {
		return
	}
	p := &o.Series[SeriesPrice]
	p.Type, p.Large, p.Clip = "custom", false, true
	p.Dimensions = []string{"index", "open", "close", "low", "high"}
	y := []any{"open", "close", "low", "high"}
	if s.Kind.ClosesOnly() {
		y = []any{"close"}
	}
	p.Encode = map[string]any{"x": "index", "y": y}
}

// AxisColor is the axes' colour, which the chart's marks of the view's
// high and low share: they read as part of the frame, not as data.
func AxisColor(dark bool) string {
	axis, _ := frameColors(dark)
	return axis
}

// Background is the page's background behind the chart (web/style.css'
// --bg), whose canvas is transparent: what a PNG of the chart is drawn on,
// and what hides a price label the last-price tag would cut.
func Background(dark bool) string {
	if dark {
		return "#0b1220"
	}
	return "#ffffff"
}

// frameColors are the colours of the axes and of the split lines.
func frameColors(dark bool) (axis, split string) {
	if dark {
		return "#9ca3af", "#1f2937"
	}
	return "#6b7280", "#e5e7eb"
}
