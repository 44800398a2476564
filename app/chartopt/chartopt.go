// Package chartopt builds the ECharts options of Riskchart's candlestick
// chart from go-echarts' option types. The frame (grids, axes, series, zoom,
// crosshair) is built once per style; candles travel separately as compact
// JSON arrays, so that a live update or a prepend re-sends only data.
//
// Only go-echarts' opts package is used: its charts package links the HTML
// renderer (html/template), which would add megabytes to app.wasm and which a
// page that draws with ECharts itself never calls.
//
// Numbers stay exact decimals until here: they are written into the JSON as
// the venue wrote them, and become float64 only inside ECharts.
package chartopt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/riskchart/riskchart/venueapi"
)

// Style is what the frame depends on.
type Style struct {
	Dark     bool
	Up, Down string // colours of rising and falling candles and their volume
	Scale    Scale  // the price axis' scale (look.go)
	Kind     Kind   // how candles are drawn (look.go)
	// Studies are the study lines drawn after the candles (studies.go).
	Studies []StudyLine
	// Narrow is a chart with studies NarrowWidth wide or less, over which
	// the legend holding their values keeps to one line (web/style.css).
	Narrow bool
	// PriceTop is where the price grid starts under the studies' legend on
	// a chart that is not narrow, in px, from the legend the app measured
	// (PriceTopUnder); 0 until it has: the rule's (studies.go).
	PriceTop int
	// PriceRoom is the width right of the grids, where the price axis
	// writes its labels, in px (PriceRoom); 0: DefaultPriceRoom.
	PriceRoom int
}

// DefaultPriceRoom is the price axis' room when its labels need no more
// (PriceRoom): "120,000.0" in the axis' font, 53 px, after ECharts' margin.
// The frames have it; the first paint and the app give more when it is short.
const DefaultPriceRoom = 64

// The price axis' labels: the font's size (ECharts' default family,
// sans-serif), in the frame and in the compact layout.
const (
	AxisFontSize        = 12
	CompactAxisFontSize = 11
)

// AxisFont is the CSS font ECharts writes an axis' labels in at size px.
func AxisFont(size int) string { return strconv.Itoa(size) + "px sans-serif" }

// The rule of PriceRoom and PriceRoomLabels, which the first paint
// (web/chart-boot.js) is handed as data.
const (
	// PriceRoomPad is the room past the widest label: ECharts' margin of
	// 8 px between the grid and a label, and 2 to spare.
	PriceRoomPad = 10
	// PriceRoomStep is what the room grows by: a label a few pixels wider
	// than the last (a new high) does not move the grids.
	PriceRoomStep = 8
	// PriceRoomAbove is how far above the highest high, as a share of the
	// span from the lowest low, the axis' highest label may lie: ECharts'
	// labels are an interval apart, about a fifth of the span in view.
	PriceRoomAbove = 0.5
)

// PriceRoom is the room the price axis needs whose widest label is
// labelWidth px wide (PriceRoomLabels): DefaultPriceRoom, or more in
// steps of PriceRoomStep.
func PriceRoom(labelWidth float64) int {
	need := int(math.Ceil(labelWidth)) + PriceRoomPad
	return max(DefaultPriceRoom, (need+PriceRoomStep-1)/PriceRoomStep*PriceRoomStep)
}

// PriceRoomLabels are the labels whose width sets the price axis' room
// for candles from lo to hi, written at decimals: the lowest low's and a
// price PriceRoomAbove of the span over the highest high.
func PriceRoomLabels(lo, hi float64, decimals int32) [2]string {
	return [2]string{FormatPrice(lo, decimals), FormatPrice(hi+(hi-lo)*PriceRoomAbove, decimals)}
}

// Room is the price axis' room of the frame, in px.
func (s Style) Room() int { return cmp.Or(s.PriceRoom, DefaultPriceRoom) }

// NarrowWidth is the widest chart whose legend keeps to one line when it
// holds the studies' values: web/style.css's container query of 640 px.
const NarrowWidth = 640

// DefaultStyle is green up, red down.
func DefaultStyle(dark bool) Style {
	return Style{Dark: dark, Up: "#16a34a", Down: "#dc2626"}
}

// Series indexes of the frame, for data patches.
const (
	SeriesPrice      = 0
	SeriesVolumeUp   = 1
	SeriesVolumeDown = 2
)

// option is an ECharts option made of go-echarts parts.
type option struct {
	Animation       bool              `json:"animation"`
	BackgroundColor string            `json:"backgroundColor"`
	Tooltip         tooltip           `json:"tooltip"`
	AxisPointer     *opts.AxisPointer `json:"axisPointer"`
	Grid            []grid            `json:"grid"`
	XAxis           []opts.XAxis      `json:"xAxis"`
	YAxis           []yAxis           `json:"yAxis"`
	DataZoom        []dataZoom        `json:"dataZoom"`
	Series          []series          `json:"series"`
}

// tooltip drives the crosshair but shows no box: the page's legend says
// what a box would (go-echarts' Tooltip lacks showContent).
type tooltip struct {
	opts.Tooltip
	ShowContent bool `json:"showContent"`
}

// yAxis adds the values ECharts (5.5 and later) puts an axis' labels, ticks
// and split lines at instead of its own (customValues), which go-echarts'
// YAxis lacks: the RSI pane's levels. Its AxisLabel stands in for the
// embedded one, which is never written.
type yAxis struct {
	opts.YAxis
	AxisLabel *axisLabel `json:"axisLabel,omitempty"`
	AxisTick  *axisTick  `json:"axisTick,omitempty"`
}

type axisLabel struct {
	opts.AxisLabel
	CustomValues []float64 `json:"customValues,omitempty"`
}

// axisTick's values place the split lines too.
type axisTick struct {
	CustomValues []float64 `json:"customValues,omitempty"`
}

// grid adds ECharts 6's outerBoundsMode, which go-echarts lacks.
type grid struct {
	opts.Grid
	OuterBoundsMode string `json:"outerBoundsMode,omitempty"`
}

// dataZoom adds the placement go-echarts' DataZoom lacks.
type dataZoom struct {
	opts.DataZoom
	Bottom string `json:"bottom,omitempty"`
	Height string `json:"height,omitempty"`
	// PreventDefaultMouseMove false lets a vertical swipe over the chart
	// scroll the page (with touch-action: pan-y in web/style.css).
	PreventDefaultMouseMove *bool `json:"preventDefaultMouseMove,omitempty"`
}

type series struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	XAxisIndex int             `json:"xAxisIndex"`
	YAxisIndex int             `json:"yAxisIndex"`
	Stack      string          `json:"stack,omitempty"`
	ItemStyle  *opts.ItemStyle `json:"itemStyle,omitempty"`
	Large      bool            `json:"large,omitempty"`
	BarWidth   string          `json:"barWidth,omitempty"`
	ShowSymbol *bool           `json:"showSymbol,omitempty"`
	Silent     bool            `json:"silent,omitempty"`
	LineStyle  *opts.LineStyle `json:"lineStyle,omitempty"`
	Dimensions []string        `json:"dimensions,omitempty"` // a custom series' (styles.go)
	Encode     map[string]any  `json:"encode,omitempty"`
	Clip       bool            `json:"clip,omitempty"`
	Data       []int           `json:"data"`
}

// VolumeBarShare is the width of a volume bar, as a share of its candle's
// band: set, not left to ECharts, since the chart's live layer
// (app/echarts) draws the newest bar itself.
const VolumeBarShare = 0.7

// barWidth is VolumeBarShare as ECharts' barWidth, a percentage of the band.
func barWidth() string { return strconv.FormatFloat(VolumeBarShare*100, 'g', -1, 64) + "%" }

// Frame returns the option without data: a candlestick grid above a volume
// grid sharing one time axis and one zoom, the price axis fitted to the
// visible candles, and a crosshair linking both grids.
func Frame(s Style) ([]byte, error) {
	axis, split := frameColors(s.Dark)
	hidden := &opts.AxisLabel{Show: opts.Bool(false)}
	volumeBarWidth := barWidth()
	right := strconv.Itoa(s.Room())
	o := option{
		BackgroundColor: "transparent",
		Tooltip:         tooltip{Tooltip: opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", TriggerOn: "mousemove|click", AxisPointer: &opts.AxisPointer{Type: "cross"}}},
		AxisPointer:     &opts.AxisPointer{Link: []opts.AxisPointerLink{{XAxisIndex: []int{0, 1}}}},
		Grid: []grid{
			// The page's legend lies over the top (web/style.css): two lines clear the candles.
			{Grid: opts.Grid{Left: "8", Right: right, Top: "52", Bottom: strconv.Itoa(framePriceBottom) + "%"}, OuterBoundsMode: "none"},
			{Grid: opts.Grid{Left: "8", Right: right, Top: "70%", Height: "13%"}, OuterBoundsMode: "none"},
		},
		XAxis: []opts.XAxis{
			{Type: "category", GridIndex: 0, AxisLabel: hidden, AxisLine: &opts.AxisLine{LineStyle: &opts.LineStyle{Color: axis}},
				AxisPointer: &opts.AxisPointer{Label: &opts.Label{Show: opts.Bool(false)}}},
			// The first and last labels keep inside the chart (the app's own
			// rules align them too: app/echarts/axes.go); centred, the first
			// paint's first label began 19 px left of the canvas.
			{Type: "category", GridIndex: 1, AxisLabel: &opts.AxisLabel{Show: opts.Bool(true), Color: axis, HideOverlap: opts.Bool(true),
				AlignMinLabel: "left", AlignMaxLabel: "right"},
				AxisLine: &opts.AxisLine{LineStyle: &opts.LineStyle{Color: axis}}},
		},
		YAxis: []yAxis{
			{YAxis: opts.YAxis{Scale: opts.Bool(true), Position: "right", GridIndex: 0,
				SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: split}}},
				AxisLabel: &axisLabel{AxisLabel: opts.AxisLabel{Show: opts.Bool(true), Color: axis}}},
			// The volume's top label is left out: it lay two hundredths of the
			// chart's height under the price axis's lowest, over it on a chart
			// under 700 px (the app shows the others: app/echarts/axes.go).
			{YAxis: opts.YAxis{Position: "right", GridIndex: 1, SplitNumber: 2, SplitLine: &opts.SplitLine{Show: opts.Bool(false)}},
				AxisLabel: &axisLabel{AxisLabel: opts.AxisLabel{Show: opts.Bool(false), ShowMaxLabel: opts.Bool(false)}}},
		},
		DataZoom: []dataZoom{
			{DataZoom: opts.DataZoom{Type: "inside", XAxisIndex: []int{0, 1}, Start: 70, End: 100}, PreventDefaultMouseMove: opts.Bool(false)},
			{DataZoom: opts.DataZoom{Type: "slider", XAxisIndex: []int{0, 1}, Start: 70, End: 100}, Bottom: "6", Height: "22"},
		},
		Series: []series{
			{Name: "price", Type: "candlestick", ItemStyle: &opts.ItemStyle{Color: s.Up, Color0: s.Down, BorderColor: s.Up, BorderColor0: s.Down}, Large: true},
			// Volume is two stacked bar series, rising and falling, so that each bar
			// takes its candle's colour without a style object per bar.
			{Name: "volume up", Type: "bar", XAxisIndex: 1, YAxisIndex: 1, Stack: "volume", BarWidth: volumeBarWidth, ItemStyle: &opts.ItemStyle{Color: s.Up}},
			{Name: "volume down", Type: "bar", XAxisIndex: 1, YAxisIndex: 1, Stack: "volume", BarWidth: volumeBarWidth, ItemStyle: &opts.ItemStyle{Color: s.Down}},
		},
	}
	for i := range o.Series {
		o.Series[i].Data = []int{}
	}
	applyLook(&o, s)
	applyStudies(&o, s)
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encoding the chart frame: %w", err)
	}
	return b, nil
}

// Arrays are the chart's data as JSON arrays, one element per candle.
type Arrays struct {
	Labels, Prices, Ups, Downs []byte
}

// Data returns candles (ascending) as the chart's arrays: time labels in loc,
// [open, close, low, high] per candle, and the volume of each candle in the
// rising or the falling volume series ("-" in the other).
func Data(candles []venueapi.Candle, p venueapi.Period, loc *time.Location) Arrays {
	a := Arrays{
		Labels: make([]byte, 0, 16*len(candles)+2),
		Prices: make([]byte, 0, 40*len(candles)+2),
		Ups:    make([]byte, 0, 10*len(candles)+2),
		Downs:  make([]byte, 0, 10*len(candles)+2),
	}
	a.Labels, a.Prices, a.Ups, a.Downs = append(a.Labels, '['), append(a.Prices, '['), append(a.Ups, '['), append(a.Downs, '[')
	for i, c := range candles {
		if i > 0 {
			a.Labels, a.Prices, a.Ups, a.Downs = append(a.Labels, ','), append(a.Prices, ','), append(a.Ups, ','), append(a.Downs, ',')
		}
		a.Labels = AppendLabel(a.Labels, c.ID, p, loc)
		a.Prices = AppendPrice(a.Prices, c)
		a.Ups, a.Downs = AppendVolume(a.Ups, a.Downs, c)
	}
	a.Labels, a.Prices, a.Ups, a.Downs = append(a.Labels, ']'), append(a.Prices, ']'), append(a.Ups, ']'), append(a.Downs, ']')
	return a
}

// AppendLabel appends the quoted time label of candle id. A label is
// ASCII digits and separators, which JSON quotes as they are.
func AppendLabel(b []byte, id int64, p venueapi.Period, loc *time.Location) []byte {
	b = append(b, '"')
	b = appendLabel(b, id, p, loc)
	return append(b, '"')
}

// LabelZone is the zone the time axis names period p's candles in, and
// finds their round times in (TimeStep.Bucket), when the chart shows times
// in loc: UTC for the candles of whole venue days and months (LabelsInUTC).
func LabelZone(p venueapi.Period, loc *time.Location) *time.Location {
	if LabelsInUTC(p) {
		return time.UTC
	}
	return loc
}

// Label is how the time axis names candle id: in loc, except the candles
// of whole venue days and months, which are named by their UTC date
// whatever the zone (LabelsInUTC).
func Label(id int64, p venueapi.Period, loc *time.Location) string {
	var buf [16]byte
	return string(appendLabel(buf[:0], id, p, loc))
}

// appendLabel appends what time.Time.Format writes with LabelLayout(p),
// from the time's fields: the time axis names every candle of each draw,
// and Format's general layout parser was most of that cost in app.wasm
// (docs/startup.md#the-candles-labels-and-digits).
func appendLabel(b []byte, id int64, p venueapi.Period, loc *time.Location) []byte {
	t := time.Unix(id, 0).In(LabelZone(p, loc))
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, LabelLayout(p))
	}
	switch p {
	case venueapi.Period1Day: // 2006-01-02
		b = append(AppendDigits(b, year, 4), '-')
		b = append(AppendDigits(b, int(month), 2), '-')
		return AppendDigits(b, day, 2)
	case venueapi.Period1Mon: // 2006-01
		b = append(AppendDigits(b, year, 4), '-')
		return AppendDigits(b, int(month), 2)
	}
	hour, minute, _ := t.Clock() // 01-02 15:04
	b = append(AppendDigits(b, int(month), 2), '-')
	b = append(AppendDigits(b, day, 2), ' ')
	b = append(AppendDigits(b, hour, 2), ':')
	return AppendDigits(b, minute, 2)
}

// AppendDigits appends 0 <= v < 10^width in exactly width digits (width at
// most 4): the labels here and the panels' times of day (app/components).
func AppendDigits(b []byte, v, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, buf[:width]...)
}

// LabelsInUTC reports whether candles of period p are labelled by their
// UTC date in every zone: a daily or monthly candle is a venue day or month
// (docs/decisions.md#day-candle-labels), which a zone west of UTC would
// otherwise name by the day before.
func LabelsInUTC(p venueapi.Period) bool {
	return p == venueapi.Period1Day || p == venueapi.Period1Mon
}

// AppendPrice appends [open, close, low, high], exactly as decoded.
func AppendPrice(b []byte, c venueapi.Candle) []byte {
	b = append(b, '[')
	b = venueapi.AppendDecimal(b, c.Open)
	b = append(b, ',')
	b = venueapi.AppendDecimal(b, c.Close)
	b = append(b, ',')
	b = venueapi.AppendDecimal(b, c.Low)
	b = append(b, ',')
	b = venueapi.AppendDecimal(b, c.High)
	return append(b, ']')
}

// AppendVolume appends the candle's volume to the series of its direction
// and "-" (no bar) to the other.
func AppendVolume(ups, downs []byte, c venueapi.Candle) ([]byte, []byte) {
	if c.Close.LessThan(c.Open) {
		return append(ups, `"-"`...), venueapi.AppendDecimal(downs, c.Vol)
	}
	return venueapi.AppendDecimal(ups, c.Vol), append(downs, `"-"`...)
}

// LabelLayout is the Go time layout Label writes the times of period p
// with. The page's first-paint script (web/chart-boot.js) is handed these
// layouts (app/boot.Config) and writes the same.
func LabelLayout(p venueapi.Period) string {
	switch p {
	case venueapi.Period1Day:
		return "2006-01-02"
	case venueapi.Period1Mon:
		return "2006-01"
	}
	return "01-02 15:04"
}
