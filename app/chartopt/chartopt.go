// Package chartopt builds the ECharts options of Riskchart's candlestick
// chart with go-echarts. The option's frame (grids, axes, series, zoom,
// tooltip) is built once per style; candles travel separately as a compact
// data patch, so that a live update or a prepend re-sends only data.
//
// Numbers stay exact decimals until here: they are written into the JSON as
// the venue wrote them, and become float64 only inside ECharts.
package chartopt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/riskchart/riskchart/venueapi"
)

// Style is what the frame depends on.
type Style struct {
	Dark     bool
	Up, Down string // candle colours for rising and falling candles
}

// DefaultStyle is green up, red down, light background.
func DefaultStyle(dark bool) Style {
	return Style{Dark: dark, Up: "#16a34a", Down: "#dc2626"}
}

// Frame returns the option without data: a candlestick grid above a volume
// grid sharing one zoom, with a crosshair.
func Frame(s Style) ([]byte, error) {
	k := charts.NewKLine()
	axisColor, splitColor := "#6b7280", "#e5e7eb"
	if s.Dark {
		splitColor = "#1f2937"
	}
	k.SetGlobalOptions(
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}), // the page draws its own legend
		charts.WithInitializationOpts(opts.Initialization{BackgroundColor: "transparent"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", TriggerOn: "mousemove|click", AxisPointer: &opts.AxisPointer{Type: "cross"}}),
		charts.WithAxisPointerOpts(&opts.AxisPointer{Link: []opts.AxisPointerLink{{XAxisIndex: []int{0, 1}}}}),
		charts.WithGridOpts(
			opts.Grid{Left: "64", Right: "16", Top: "16", Height: "62%"},
			opts.Grid{Left: "64", Right: "16", Top: "76%", Height: "14%"},
		),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Scale: opts.Bool(true), GridIndex: 0,
			AxisLabel: &opts.AxisLabel{Show: opts.Bool(false)}, AxisLine: &opts.AxisLine{LineStyle: &opts.LineStyle{Color: axisColor}}}),
		charts.WithYAxisOpts(opts.YAxis{Scale: opts.Bool(true), Position: "right",
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: splitColor}}}),
		charts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: []int{0, 1}, Start: 80, End: 100},
			opts.DataZoom{Type: "slider", XAxisIndex: []int{0, 1}, Start: 80, End: 100},
		),
	)
	k.ExtendXAxis(opts.XAxis{Type: "category", GridIndex: 1, AxisLabel: &opts.AxisLabel{Show: opts.Bool(true), Color: axisColor}})
	k.ExtendYAxis(opts.YAxis{GridIndex: 1, Position: "right", SplitNumber: 2, AxisLabel: &opts.AxisLabel{Show: opts.Bool(false)},
		SplitLine: &opts.SplitLine{Show: opts.Bool(false)}})
	k.AddSeries("price", nil, charts.WithItemStyleOpts(opts.ItemStyle{
		Color: s.Up, Color0: s.Down, BorderColor: s.Up, BorderColor0: s.Down,
	}))
	// Volume is two stacked bar series, rising and falling, so that each bar
	// takes its candle's colour without a style object per bar.
	vol := charts.NewBar()
	for _, v := range []struct{ name, color string }{{"volume up", s.Up}, {"volume down", s.Down}} {
		vol.AddSeries(v.name, nil,
			charts.WithBarChartOpts(opts.BarChart{XAxisIndex: 1, YAxisIndex: 1, Stack: "volume"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: v.color}))
	}
	k.Overlap(vol)
	k.Validate()
	b, err := json.Marshal(k.JSON())
	if err != nil {
		return nil, fmt.Errorf("encoding the chart frame: %w", err)
	}
	return b, nil
}

// Data returns the option patch that puts candles (ascending) on the frame:
// the time labels of both x axes, [open, close, low, high] per candle, and
// the volume of each candle in the rising or the falling volume series ("-"
// in the other). loc is the zone the labels are written in.
func Data(candles []venueapi.Candle, p venueapi.Period, loc *time.Location) []byte {
	labels := make([]byte, 0, 20*len(candles))
	prices := make([]byte, 0, 48*len(candles))
	ups := make([]byte, 0, 12*len(candles))
	downs := make([]byte, 0, 12*len(candles))
	layout := labelLayout(p)
	for i, c := range candles {
		if i > 0 {
			labels, prices = append(labels, ','), append(prices, ',')
			ups, downs = append(ups, ','), append(downs, ',')
		}
		labels = strconv.AppendQuote(labels, time.Unix(c.ID, 0).In(loc).Format(layout))
		prices = append(prices, '[')
		prices = append(prices, c.Open.String()...)
		prices = append(prices, ',')
		prices = append(prices, c.Close.String()...)
		prices = append(prices, ',')
		prices = append(prices, c.Low.String()...)
		prices = append(prices, ',')
		prices = append(prices, c.High.String()...)
		prices = append(prices, ']')
		if c.Close.LessThan(c.Open) {
			ups = append(ups, `"-"`...)
			downs = append(downs, c.Vol.String()...)
		} else {
			ups = append(ups, c.Vol.String()...)
			downs = append(downs, `"-"`...)
		}
	}
	out := make([]byte, 0, len(labels)*2+len(prices)+len(ups)+len(downs)+96)
	out = append(out, `{"xAxis":[{"data":[`...)
	out = append(out, labels...)
	out = append(out, `]},{"data":[`...)
	out = append(out, labels...)
	out = append(out, `]}],"series":[{"data":[`...)
	out = append(out, prices...)
	out = append(out, `]},{"data":[`...)
	out = append(out, ups...)
	out = append(out, `]},{"data":[`...)
	out = append(out, downs...)
	return append(out, `]}]}`...)
}

func labelLayout(p venueapi.Period) string {
	switch p {
	case venueapi.Period1Day:
		return "2006-01-02"
	case venueapi.Period1Mon:
		return "2006-01"
	}
	return "01-02 15:04"
}
