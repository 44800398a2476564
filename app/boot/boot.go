// Package boot is the contract between the chart page's first paint
// (web/chart-boot.js), which draws the chart before app.wasm runs, and the
// app, which then takes that chart over. The page prerenders a Config for
// the script; the script leaves a State in the window for the app.
//
// It is pure, so that the server (which prerenders the page) and the
// browser build share it.
package boot

import (
	"encoding/json"
	"fmt"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/studies"
	"github.com/riskchart/riskchart/venueapi"
)

// Where the page and the script meet.
const (
	// ConfigID is the id of the script element (type application/json)
	// holding the Config.
	ConfigID = "chart-boot"
	// Script is the first-paint script, run as soon as the chart's element
	// is parsed.
	Script = "/web/chart-boot.js"
	// Global names the window's property holding the script's State.
	Global = "riskchartBoot"
	// LookID is the id of the script element (type application/json)
	// holding the Look of a page whose view names studies, a scale or a
	// style.
	LookID = "chart-look"
	// SketchAttr marks the Look's element when the first paint sketches
	// the view's candles before ECharts runs (Look.Sketched); SketchMark
	// is the attribute as the element carries it, valued as the server's
	// page writes a bare one (server/internal/bundle/attrs.go).
	SketchAttr = "data-sketch"
	SketchMark = SketchAttr + `="true"`
)

// Config is all the first-paint script knows. The script holds no rule of
// its own: it reads the view from the URL with the app's rules, given here
// as data, and labels the candles with the app's layouts. The view is not in
// it: the service worker may answer a navigation with a page prerendered
// for another.
type Config struct {
	Path  string `json:"path"`  // the KLine path
	Size  int    `json:"size"`  // candles to load
	Shown int    `json:"shown"` // candles to show at first
	// The default view.
	Contract string          `json:"contract"`
	Period   venueapi.Period `json:"period"`
	// ContractPattern and ContractMaxLen say which contract codes of the
	// URL the app reads (venueapi.ContractCodePattern); any other is the
	// default contract.
	ContractPattern string `json:"contractPattern"`
	ContractMaxLen  int    `json:"contractMaxLen"`
	// Labels holds, for each period, the Go time layout (chartopt.LabelLayout)
	// of its candles' labels; a period not in it is the default period.
	Labels map[venueapi.Period]string `json:"labels"`
	// UTCLabels lists the periods labelled in UTC in every zone
	// (chartopt.LabelsInUTC).
	UTCLabels []venueapi.Period `json:"utcLabels"`
	// Steps holds, for each period, the round time the time axis labels
	// with each count of candles in view up to Shown (chartopt.StepFor), as
	// runs of counts (Step): a history of fewer than Shown candles shows
	// them all, on a finer step. A candle is labelled when its step differs
	// from the previous candle's (chartopt.Bucket), unless a label centred
	// on it would lie within EdgeHalf px of the grid's edge, where only the
	// first and last candles' are written, aligned inside it
	// (app/echarts.SetAxes).
	Steps    map[venueapi.Period][]Step `json:"steps"`
	EdgeHalf int                        `json:"edgeHalf"`
	// UTC is the value of ?tz= that shows times in UTC (else the browser's
	// zone); Themes are the values of ?theme= that choose one (else "auto").
	UTC    string   `json:"utc"`
	Themes []string `json:"themes"`
	// Frames holds the chart's option without data, "light" and "dark".
	Frames map[string]json.RawMessage `json:"frames"`
	// ContractsID names the element holding the contract list the server
	// may put in the page (ContractsID): the script writes the price axis'
	// labels at the contract's decimals, as the app does once it adopts the
	// same list, and fits the axis' room to them by PriceRoom.
	ContractsID string   `json:"contractsID"`
	PriceRoom   RoomRule `json:"priceRoom"`
	// VolumeUnits are the units the volume axis' labels are written in,
	// with a decimal at most (chartopt.FormatVolume).
	VolumeUnits [3]chartopt.VolumeUnit `json:"volumeUnits"`
	// LookID names the element holding the page's Look, when its view
	// names studies, a scale or a style: what the first paint then draws.
	LookID string `json:"lookID"`
	// SketchAttr marks the Look's element of a view the first paint
	// sketches.
	SketchAttr string `json:"sketchAttr"`
	// Compact is a chart embed's compact layout and the height rule that
	// takes it before the app runs.
	Compact CompactRule `json:"compact"`
}

// Step is the time axis' step (chartopt.StepFor) with UpTo candles in
// view or fewer, and more than the previous Step's of its period.
type Step struct {
	UpTo int `json:"upTo"`
	chartopt.TimeStep
}

// stepsFor are period p's steps for 1 to shown candles in view, each run
// of counts with the same step as one Step, fewest candles first.
func stepsFor(p venueapi.Period, shown int) []Step {
	var out []Step
	for visible := 1; visible <= max(shown, 1); visible++ {
		s := chartopt.StepFor(p, visible, chartopt.TimeLabels)
		if n := len(out); n > 0 && out[n-1].TimeStep == s {
			out[n-1].UpTo = visible
			continue
		}
		out = append(out, Step{UpTo: visible, TimeStep: s})
	}
	return out
}

// CompactRule is how a chart embed too low for the full layout takes the
// compact one (app/pages/embed.go), as data: under Below px, and PerPane
// more for each of the Panes studies the URL names, or where the frame's
// price grid in the chart's box would be under MinPane px high
// (chartopt.MinPricePane), the embed's root takes the class embed-compact
// and the frame of either theme the patch Patch (chartopt.Compact, which
// sets sizes, not colours), its price labels measured in Font. With
// studies the script measures the grid again once it has the candles,
// under the legend the app will write (Look.Studies), and takes the compact
// layout then where the app would.
type CompactRule struct {
	Below   int             `json:"below"`
	PerPane int             `json:"perPane"`
	MinPane int             `json:"minPane"`
	Panes   []string        `json:"panes"`
	Patch   json.RawMessage `json:"patch"`
	Font    string          `json:"font"`
}

// RoomRule is the rule by which the app fits the price axis' room to the
// candles held (chartopt.PriceRoomLabels and chartopt.PriceRoom), as data:
// the labels of the lowest low and of a price Above × the span over the
// highest high, written at the contract's decimals with thousands
// separators, are measured in Font; the room is the widest plus Pad, rounded
// up to a multiple of Step, and Min at the least, which the frames have.
type RoomRule struct {
	Min   int     `json:"min"`
	Step  int     `json:"step"`
	Pad   int     `json:"pad"`
	Above float64 `json:"above"`
	Font  string  `json:"font"`
}

// Page is what the chart page tells its first paint about itself.
type Page struct {
	// The default view.
	Contract string
	Period   venueapi.Period
	// The values of ?tz= and ?theme= the page reads (Config).
	UTC    string
	Themes []string
	// Size candles are loaded, Shown of them shown at first.
	Size, Shown int
}

// NewConfig is the configuration of the first paint of page p.
func NewConfig(p Page) (Config, error) {
	c := Config{Path: venueapi.PathKLine, Size: p.Size, Shown: p.Shown, Contract: p.Contract, Period: p.Period,
		ContractPattern: venueapi.ContractCodePattern, ContractMaxLen: venueapi.ContractCodeMaxLen,
		Labels: map[venueapi.Period]string{}, UTC: p.UTC, Themes: p.Themes,
		Steps: map[venueapi.Period][]Step{}, EdgeHalf: chartopt.TimeLabelHalf,
		ContractsID: ContractsID, LookID: LookID, SketchAttr: SketchAttr, VolumeUnits: chartopt.VolumeUnits(),
		PriceRoom: RoomRule{Min: chartopt.DefaultPriceRoom, Step: chartopt.PriceRoomStep, Pad: chartopt.PriceRoomPad,
			Above: chartopt.PriceRoomAbove, Font: chartopt.AxisFont(chartopt.AxisFontSize)},
		Compact: CompactRule{Below: chartopt.CompactHeight, PerPane: chartopt.CompactPaneRoom, MinPane: chartopt.MinPricePane,
			Panes: []string{string(studies.MACD), string(studies.RSI)}, Font: chartopt.AxisFont(chartopt.CompactAxisFontSize)}}
	for _, period := range venueapi.Periods() {
		c.Labels[period] = chartopt.LabelLayout(period)
		c.Steps[period] = stepsFor(period, p.Shown)
		if chartopt.LabelsInUTC(period) {
			c.UTCLabels = append(c.UTCLabels, period)
		}
	}
	plain, err := NewLook(View{}) // the frames and the compact patch without studies
	if err != nil {
		return Config{}, err
	}
	c.Frames, c.Compact.Patch = plain.Frames, plain.Compact
	return c, nil
}

// Look is the layout and the drawing of a view that names studies, a price
// scale or a chart style, for its first paint: the frames of either theme
// (chartopt.Frame: with the studies, the price grid under their legend, a
// pane per oscillator under the volume, the time axis the lowest pane's, a
// series per study line, empty; the price axis of the scale; the price
// series of the style), the patches that make them a narrow chart's
// (chartopt.NarrowPatch), for a chart NarrowWidth px wide or less, and a
// compact one's (chartopt.Compact), and what the frames cannot hold as data:
// the drawing function of a custom price series, and the percent scale's
// labels; with studies, the studies themselves (Studies): the first paint
// works their lines out and draws them, and starts the price grid under
// the legend the app writes. The first paint draws the candles into it, so
// that the app, which draws the same frame, does not change how they look
// or move them. Unlike
// Config, a Look is of one page: the server writes it into the page it
// prerenders for such a URL, and the view is the page's.
type Look struct {
	Frames map[string]json.RawMessage `json:"frames"`
	// NarrowWidth and Narrow: a view without studies has no narrow frame
	// (its legend is the same at any width), and neither is written.
	NarrowWidth int             `json:"narrowWidth,omitempty"`
	Narrow      json.RawMessage `json:"narrow,omitempty"`
	Compact     json.RawMessage `json:"compact"`
	// Draw is, per theme, the price series' drawing function for a style
	// ECharts has no series for (chartopt.Style.Drawing); none for candles.
	Draw map[string]chartopt.Drawing `json:"draw,omitempty"`
	// Percent: the price axis is labelled by how far a price is from the
	// close of the first candle in view (chartopt.FormatPercent).
	Percent bool `json:"percent,omitempty"`
	// Log: the price axis is logarithmic, labelled by the app's rule
	// (chartopt.LogTicks), which ECharts' own log axis does not follow.
	Log *LogRule `json:"log,omitempty"`
	// Studies: the view's studies, which the first paint works out in
	// floating point (their definitions are docs/studies.md) and draws in
	// the frame's study series, and writes in a copy of the app's legend of
	// the latest candle, out of sight, to measure its foot; LegendFit is how
	// the app starts the price grid under that foot (chartopt.PriceTopUnder)
	// on a chart wider than NarrowWidth.
	Studies   []LookStudy         `json:"studies,omitempty"`
	LegendFit *chartopt.LegendFit `json:"legendFit,omitempty"`
}

// LookStudy is one study of the view: its kind and numbers
// (studies.Spec.Params), and its lines (studies.Spec.Lines), in the order
// of the frame's study series and of the legend's items.
type LookStudy struct {
	Kind   studies.Kind `json:"kind"`
	Params []int        `json:"params"`
	Lines  []LookLine   `json:"lines"`
}

// LookLine is one line of a study: its name (the legend's term), its pane,
// and its value's decimals in the legend (studies.LegendPlaces): the
// contract's and Finer more when Finer > 0 and they are known, else Places.
type LookLine struct {
	Name   string       `json:"name"`
	Pane   studies.Pane `json:"pane"`
	Places int32        `json:"places"`
	Finer  int32        `json:"finer,omitempty"`
}

// lookStudies are the LookStudy of each of specs.
func lookStudies(specs []studies.Spec) []LookStudy {
	var out []LookStudy
	for _, s := range specs {
		st := LookStudy{Kind: s.Kind, Params: s.Params()}
		for _, line := range s.Lines() {
			places, finer := studies.LegendPlaces(line.Pane)
			st.Lines = append(st.Lines, LookLine{Name: line.Name, Pane: line.Pane, Places: places, Finer: finer})
		}
		out = append(out, st)
	}
	return out
}

// LogRule is what chartopt.LogTicks is given besides the axis' range.
type LogRule struct {
	Gap int `json:"gap"` // chartopt.LogTickGap
	Max int `json:"max"` // chartopt.LogTicksMax
}

// View is what of a chart's view its Look depends on: the lines of the
// studies Specs, for the frames.
type View struct {
	Scale   chartopt.Scale
	Kind    chartopt.Kind
	Specs   []studies.Spec
	Studies []chartopt.StudyLine
}

// NewLook is the Look of view v; for the zero View, its frames and compact
// patch are the Config's.
func NewLook(v View) (Look, error) {
	l := Look{Frames: map[string]json.RawMessage{}, Percent: v.Scale == chartopt.ScalePercent}
	if v.Scale == chartopt.ScaleLog {
		l.Log = &LogRule{Gap: chartopt.LogTickGap, Max: chartopt.LogTicksMax}
	}
	if len(v.Studies) > 0 {
		l.NarrowWidth, l.Narrow = chartopt.NarrowWidth, chartopt.NarrowPatch()
		fit := chartopt.LegendRule()
		l.Studies, l.LegendFit = lookStudies(v.Specs), &fit
	}
	for name, dark := range map[string]bool{"light": false, "dark": true} {
		s := chartopt.DefaultStyle(dark)
		s.Scale, s.Kind, s.Studies = v.Scale, v.Kind, v.Studies
		f, err := chartopt.Frame(s)
		if err != nil {
			return Look{}, fmt.Errorf("the first paint's %s frame: %w", name, err)
		}
		l.Frames[name] = f
		if d, ok := s.Drawing(); ok {
			if l.Draw == nil {
				l.Draw = map[string]chartopt.Drawing{}
			}
			l.Draw[name] = d
		}
		if !dark {
			if l.Compact, err = chartopt.Compact(s); err != nil {
				return Look{}, fmt.Errorf("the first paint's compact layout: %w", err)
			}
		}
	}
	return l, nil
}

// JSON is the look as the page holds it, escaped as Config's.
func (l Look) JSON() ([]byte, error) { return json.Marshal(l) }

// Sketched says whether the first paint sketches the candles of a view of
// this look on a canvas before ECharts runs, as it does a view without a
// look: in a chart style or on a percent scale, not with studies, whose
// panes and lines come with ECharts, nor on a log scale, whose axis is
// ECharts' (docs/performance.md, "The candles sketched before ECharts").
func (l Look) Sketched() bool { return l.Log == nil && l.LegendFit == nil } // LegendFit: the view's study lines

// JSON is the configuration as the page holds it. json.Marshal escapes <, >
// and &: the text cannot end the script element.
func (c Config) JSON() ([]byte, error) { return json.Marshal(c) }

// State is what the first-paint script did, as it leaves it in the window
// (Global). Its ECharts instance and element, and the text of the answer it
// read, stay there: app/browser hands them to the app.
type State struct {
	// The view the script drew, or fetched for.
	Contract string
	Period   venueapi.Period
	// Dark: the frame drawn is the dark one.
	Dark bool
	// Drawn: candles are on show; only then is there a chart to adopt.
	Drawn bool
	// Adopted: the app has claimed the chart; the script draws no more.
	Adopted bool
	// Settled: the script is done, drawn or not.
	Settled bool
	// Compact: the script gave a chart embed the compact layout
	// (CompactRule), which the app keeps at that size.
	Compact bool
	// PriceTop is where the script started the price grid under the legend
	// it measured (Look.LegendFit), in px; 0 where it kept the frame's top.
	PriceTop int
}

// Shows reports whether the first paint is of contract and period.
func (s State) Shows(contract string, period venueapi.Period) bool {
	return s.Contract == contract && s.Period == period
}
