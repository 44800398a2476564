package chartopt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/studies"
	"github.com/riskchart/riskchart/venueapi"
)

func TestFrameIsAValidOptionWithTheThreeSeries(t *testing.T) {
	b, err := Frame(DefaultStyle(true))
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Series []struct {
			Type       string `json:"type"`
			XAxisIndex int    `json:"xAxisIndex"`
		} `json:"series"`
		XAxis    []json.RawMessage `json:"xAxis"`
		DataZoom []json.RawMessage `json:"dataZoom"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Series) != 3 || o.Series[SeriesPrice].Type != "candlestick" || o.Series[SeriesVolumeUp].XAxisIndex != 1 || len(o.XAxis) != 2 || len(o.DataZoom) != 2 {
		t.Fatalf("frame %s", b)
	}
}

func TestDataWritesTheVenuesDigitsAndSplitsVolumeByDirection(t *testing.T) {
	d := decimal.RequireFromString
	candles := []venueapi.Candle{
		{ID: 1700000040, Open: d("100.10"), Close: d("100.25"), Low: d("99.9"), High: d("100.3"), Vol: d("12")},
		{ID: 1700000100, Open: d("100.25"), Close: d("100.2"), Low: d("100.1"), High: d("100.30000000000001"), Vol: d("7")},
	}
	a := Data(candles, venueapi.Period1Min, time.UTC)
	if got := string(a.Prices); got != `[[100.1,100.25,99.9,100.3],[100.25,100.2,100.1,100.30000000000001]]` {
		t.Errorf("prices %s", got)
	}
	if got := string(a.Ups) + string(a.Downs); got != `[12,"-"]["-",7]` {
		t.Errorf("volumes %s", got)
	}
	if got := string(a.Labels); got != `["11-14 22:14","11-14 22:15"]` {
		t.Errorf("labels %s", got)
	}
	for _, arr := range [][]byte{a.Labels, a.Prices, a.Ups, a.Downs} {
		if !json.Valid(arr) {
			t.Errorf("invalid JSON %s", arr)
		}
	}
}

func BenchmarkData2000(b *testing.B) {
	c := venueapi.Candle{Open: decimal.RequireFromString("98803.8"), Close: decimal.RequireFromString("98761.2"),
		Low: decimal.RequireFromString("98759"), High: decimal.RequireFromString("98827.7"), Vol: decimal.NewFromInt(4146)}
	candles := make([]venueapi.Candle, 2000)
	for i := range candles {
		c.ID = int64(i) * 60
		candles[i] = c
	}
	b.ReportAllocs()
	for b.Loop() {
		Data(candles, venueapi.Period1Min, time.UTC)
	}
}

// Labels are written from the time's fields; they must be what
// time.Format writes with LabelLayout, quoted as strconv.Quote quotes.
func TestLabelsAreWhatFormatWrites(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	zones := []*time.Location{time.UTC, newYork, time.FixedZone("UTC+5:30", 5*3600+1800),
		time.FixedZone("UTC+12:45", 12*3600+2700), time.FixedZone("UTC-9:30", -(9*3600 + 1800))}
	ids := []int64{0, -1, 59, 1700000040,
		time.Date(-1, 12, 31, 23, 59, 0, 0, time.UTC).Unix(), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix(),
		time.Date(999, 6, 1, 8, 5, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC).Unix(),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC).Unix()}
	for id := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix(); id < time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Unix(); id += 7919 * 60 {
		ids = append(ids, id, id+17)
	}
	var n int
	for _, p := range venueapi.Periods() {
		for _, loc := range zones {
			for _, id := range ids {
				at := loc
				if LabelsInUTC(p) {
					at = time.UTC
				}
				want := time.Unix(id, 0).In(at).Format(LabelLayout(p))
				if got := Label(id, p, loc); got != want {
					t.Errorf("Label(%d, %s, %s) = %q, want %q", id, p, loc, got, want)
				}
				if got := string(AppendLabel([]byte("x"), id, p, loc)); got != "x"+strconv.Quote(want) {
					t.Errorf("AppendLabel(%d, %s, %s) = %s, want x%q", id, p, loc, got, want)
				}
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("compared %d labels", n)
	}
}

func BenchmarkLabel(b *testing.B) {
	loc := time.FixedZone("UTC+8", 8*3600)
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendLabel(buf[:0], 1700000040, venueapi.Period1Min, loc)
	}
}

func TestDayAndMonthCandlesAreNamedByTheirUTCDateInEveryZone(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tokyo := time.FixedZone("UTC+9", 9*3600)
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC).Unix() // the venue's day of 25 November
	month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Unix()
	minute := time.Date(2026, 11, 25, 0, 30, 0, 0, time.UTC).Unix()
	for _, tc := range []struct {
		name   string
		id     int64
		period venueapi.Period
		loc    *time.Location
		want   string
	}{
		{"a daily candle west of UTC keeps its UTC date", day, venueapi.Period1Day, newYork, "2026-11-25"},
		{"a daily candle east of UTC keeps its UTC date", day, venueapi.Period1Day, tokyo, "2026-11-25"},
		{"a monthly candle west of UTC keeps its UTC month", month, venueapi.Period1Mon, newYork, "2026-11"},
		{"a minute candle is named in the zone asked", minute, venueapi.Period1Min, newYork, "11-24 19:30"},
		{"a minute candle in UTC", minute, venueapi.Period1Min, time.UTC, "11-25 00:30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Label(tc.id, tc.period, tc.loc); got != tc.want {
				t.Errorf("Label = %q, want %q", got, tc.want)
			}
			if got := string(AppendLabel(nil, tc.id, tc.period, tc.loc)); got != `"`+tc.want+`"` {
				t.Errorf("AppendLabel = %s, want %q", got, tc.want)
			}
		})
	}
}

// TestStackedPanesLeaveTheirTopLabelOut: with oscillator panes under the
// volume, every pane under the price leaves its top value label out, which
// ran into the lowest label of the pane above, and every pane with one under
// it its lowest; without them, the volume pane its top label alone. The RSI
// pane's labels are its levels, a third of the pane from its edges: both
// are written (TestTheRSIPaneReadsZeroToAHundredWithItsLevels).
func TestStackedPanesLeaveTheirTopLabelOut(t *testing.T) {
	// edgeLabels is each y axis' showMaxLabel and showMinLabel.
	edgeLabels := func(s Style) (top, lowest []any) {
		t.Helper()
		var o struct {
			YAxis []struct {
				AxisLabel struct {
					ShowMaxLabel any `json:"showMaxLabel"`
					ShowMinLabel any `json:"showMinLabel"`
				} `json:"axisLabel"`
			} `json:"yAxis"`
		}
		decodeFrame(t, s, &o)
		for _, y := range o.YAxis {
			top, lowest = append(top, y.AxisLabel.ShowMaxLabel), append(lowest, y.AxisLabel.ShowMinLabel)
		}
		return top, lowest
	}
	stacked := DefaultStyle(false)
	stacked.Studies = []StudyLine{{Name: "MA 7"}, {Name: "MACD DIF", Pane: 2}, {Name: "RSI 14", Pane: 3}}
	top, lowest := edgeLabels(stacked)
	if got := fmt.Sprint(top); got != "[<nil> false false <nil>]" {
		t.Errorf("price, volume, MACD and RSI axes' showMaxLabel: %s, want the volume's and MACD's false", got)
	}
	if got := fmt.Sprint(lowest); got != "[<nil> false false <nil>]" {
		t.Errorf("price, volume, MACD and RSI axes' showMinLabel: %s, want false for the two with a pane under them", got)
	}
	flat := DefaultStyle(false)
	flat.Studies = []StudyLine{{Name: "MA 7"}}
	if top, _ := edgeLabels(flat); fmt.Sprint(top) != "[<nil> false]" {
		t.Errorf("without panes: %v, want the volume's false, under the price", top)
	}
}

// TestTheCandlesStartUnderTheLegend: the price grid starts under the
// legend's lines: two without studies at any width, four with them, one
// with them on a narrow chart, where the legend keeps to a line.
func TestTheCandlesStartUnderTheLegend(t *testing.T) {
	ma := []StudyLine{{Name: "MA 7"}}
	for _, tc := range []struct {
		studies  []StudyLine
		narrow   bool
		priceTop int
		want     string
	}{
		{nil, false, 0, "52"},
		{nil, true, 0, "52"},
		{ma, false, 0, "96"},
		{ma, true, 0, "38"},
		{ma, false, 77, "77"}, // under a legend the app measured
		{ma, true, 77, "38"},  // a narrow chart's legend keeps to its line
		{nil, false, 77, "52"},
	} {
		s := DefaultStyle(true)
		s.Studies, s.Narrow, s.PriceTop = tc.studies, tc.narrow, tc.priceTop
		var o struct {
			Grid []struct {
				Top string `json:"top"`
			} `json:"grid"`
		}
		decodeFrame(t, s, &o)
		if o.Grid[0].Top != tc.want {
			t.Errorf("studies %v, narrow %v, price top %d: the price grid starts at %q, want %q", tc.studies, tc.narrow, tc.priceTop, o.Grid[0].Top, tc.want)
		}
	}
}

// TestThePriceGridStartsALineUnderTheMeasuredLegend: PriceTopUnder leaves
// a line to spare under the legend's foot, keeps under the frame's rule
// while that is enough, and under the top price label's room.
func TestThePriceGridStartsALineUnderTheMeasuredLegend(t *testing.T) {
	for _, tc := range []struct {
		bottom, want int
		why          string
	}{
		{49, 77, "two lines: 6 px clear and a line to spare"},
		{17, 45, "the legend over the chart area's margin"},
		{-5, 38, "ending above the chart: the top price label's room"},
		{68, 96, "the rule's 96 is a line under the legend"},
		{80, 96, "the rule's 96 clears the legend by 16 px"},
		{94, 100, "below the rule, 6 px clear of the legend"},
		{136, 142, "six lines"},
	} {
		if got := PriceTopUnder(tc.bottom); got != tc.want {
			t.Errorf("under a legend ending at %d px: %d, want %d (%s)", tc.bottom, got, tc.want, tc.why)
		}
	}
	if got, want := string(PriceTopPatch(77)), `{"grid":[{"top":77}]}`; got != want {
		t.Errorf("the patch is %s, want %s", got, want)
	}
}

// TestThePriceAxisHasTheRoomItsLabelsNeed: PriceRoom keeps the default
// while the widest label fits it, and grows in steps of 8 px; every grid
// of the frame (the oscillator panes' too) and of the patch has the room,
// so that the candles and the panes stay aligned.
func TestThePriceAxisHasTheRoomItsLabelsNeed(t *testing.T) {
	for _, tc := range []struct {
		width float64
		want  int
		why   string
	}{
		{0, 64, "no label"},
		{53.4, 64, `"120,000.0" at 12 px`},
		{54, 64, "the widest label the default fits"},
		{54.1, 72, "a pixel more: the next step"},
		{61.9, 72, `"120,000.0" in a wider font`},
		{70.1, 88, `"0.000012345" at 12 px`},
	} {
		if got := PriceRoom(tc.width); got != tc.want {
			t.Errorf("a label %.1f px wide: room %d, want %d (%s)", tc.width, got, tc.want, tc.why)
		}
	}
	for _, room := range []int{0, 88} {
		s := DefaultStyle(false)
		s.PriceRoom = room
		s.Studies = []StudyLine{{Name: "MACD", Pane: 2}, {Name: "RSI 14", Pane: 3}}
		var o struct {
			Grid []struct {
				Right string `json:"right"`
			} `json:"grid"`
		}
		decodeFrame(t, s, &o)
		want := strconv.Itoa(s.Room())
		if len(o.Grid) != 4 {
			t.Fatalf("%d grids, want the price, the volume and two panes", len(o.Grid))
		}
		for i, g := range o.Grid {
			if g.Right != want {
				t.Errorf("PriceRoom %d: grid %d has %q on the right, want %s", room, i, g.Right, want)
			}
		}
	}
	if got, want := string(PriceRoomPatch(88, 3)), `{"grid":[{"right":88},{"right":88},{"right":88}]}`; got != want {
		t.Errorf("the patch is %s, want %s", got, want)
	}
}

// TestTheTimeAxisKeepsItsEndLabelsInside: the first paint draws the frame
// with ECharts' own label intervals, and its first time label, centred on
// the first candle, began 19 px left of the canvas; the frame aligns the
// axis' first and last labels to its ends, with studies' panes too, where
// the lowest pane names the times.
func TestTheTimeAxisKeepsItsEndLabelsInside(t *testing.T) {
	for _, studies := range [][]StudyLine{nil, {{Name: "MACD", Pane: 2}}} {
		s := DefaultStyle(false)
		s.Studies = studies
		var o struct {
			XAxis []struct {
				AxisLabel struct {
					Show                         bool
					AlignMinLabel, AlignMaxLabel string
				} `json:"axisLabel"`
			} `json:"xAxis"`
		}
		decodeFrame(t, s, &o)
		l := o.XAxis[TimeAxis(s)].AxisLabel
		if !l.Show || l.AlignMinLabel != "left" || l.AlignMaxLabel != "right" {
			t.Errorf("with %d study lines, the time axis' labels: %+v; want shown, the first aligned left and the last right", len(studies), l)
		}
	}
}

// decodeFrame builds the frame of s and decodes it into o, which names the
// parts a test reads.
func decodeFrame(t *testing.T, s Style, o any) {
	t.Helper()
	b, err := Frame(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, o); err != nil {
		t.Fatal(err)
	}
}

// TestTheRSIPaneReadsZeroToAHundredWithItsLevels: the RSI pane spans the
// RSI's whole range, whatever the candles in view, with its labels and
// dashed split lines at 30 and 70 alone, above or below MACD; the MACD
// pane keeps a scale fitted to its values.
func TestTheRSIPaneReadsZeroToAHundredWithItsLevels(t *testing.T) {
	type axis struct {
		Min, Max  any
		Scale     any
		AxisLabel struct {
			CustomValues []float64 `json:"customValues"`
			ShowMaxLabel any       `json:"showMaxLabel"`
			ShowMinLabel any       `json:"showMinLabel"`
		} `json:"axisLabel"`
		AxisTick struct {
			CustomValues []float64 `json:"customValues"`
		} `json:"axisTick"`
		SplitLine struct {
			LineStyle struct{ Type string } `json:"lineStyle"`
		} `json:"splitLine"`
	}
	for _, tc := range []struct {
		name    string
		studies []StudyLine
		rsi     int // the RSI pane's y axis
		macd    int // MACD's, or -1
	}{
		{"RSI alone", []StudyLine{{Name: "RSI 14", Pane: studies.PaneRSI}}, 2, -1},
		{"under MACD", []StudyLine{{Name: "MACD DIF", Pane: 2}, {Name: "RSI 14", Pane: studies.PaneRSI}}, 3, 2},
		{"with price studies", []StudyLine{{Name: "MA 7"}, {Name: "RSI 14", Pane: studies.PaneRSI}, {Name: "MACD hist", Pane: 2, Bars: true}}, 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, dark := range []bool{false, true} {
				s := DefaultStyle(dark)
				s.Studies = tc.studies
				var o struct{ YAxis []axis }
				decodeFrame(t, s, &o)
				if len(o.YAxis) <= tc.rsi {
					t.Fatalf("%d y axes", len(o.YAxis))
				}
				y := o.YAxis[tc.rsi]
				levels := fmt.Sprint(RSILevels())
				if fmt.Sprint(y.Min, y.Max, y.Scale) != "0 100 <nil>" || fmt.Sprint(y.AxisLabel.CustomValues) != levels || fmt.Sprint(y.AxisTick.CustomValues) != levels {
					t.Errorf("RSI axis from %v to %v (scale %v), labels at %v, ticks at %v; want 0 to 100, both at %s", y.Min, y.Max, y.Scale, y.AxisLabel.CustomValues, y.AxisTick.CustomValues, levels)
				}
				if y.AxisLabel.ShowMaxLabel != nil || y.AxisLabel.ShowMinLabel != nil || y.SplitLine.LineStyle.Type != "dashed" {
					t.Errorf("RSI axis: showMaxLabel %v, showMinLabel %v, split lines %q; want both labels and dashed lines", y.AxisLabel.ShowMaxLabel, y.AxisLabel.ShowMinLabel, y.SplitLine.LineStyle.Type)
				}
				if tc.macd >= 0 {
					m := o.YAxis[tc.macd]
					if m.Min != nil || m.Max != nil || m.Scale != true || m.AxisLabel.CustomValues != nil || m.SplitLine.LineStyle.Type != "" {
						t.Errorf("MACD axis: %+v, want its scale fitted to its values", m)
					}
				}
			}
		})
	}
}
