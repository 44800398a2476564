package chartopt

import (
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

func TestFrameDrawsTheScaleAndStyleAsked(t *testing.T) {
	tests := []struct {
		name          string
		scale         Scale
		kind          Kind
		yType, upFill string
	}{
		{"linear filled candles by default", ScaleLinear, KindCandles, "", "#16a34a"},
		{"a log scale makes the price axis logarithmic", ScaleLog, KindCandles, "log", "#16a34a"},
		{"percent keeps a linear axis (its labels say percent)", ScalePercent, KindCandles, "", "#16a34a"},
		{"hollow candles leave rising bodies unfilled", ScaleLinear, KindHollow, "", "transparent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultStyle(false)
			s.Scale, s.Kind = tt.scale, tt.kind
			var o struct {
				YAxis []struct {
					Type string `json:"type"`
				} `json:"yAxis"`
				Series []struct {
					ItemStyle struct {
						Color, BorderColor string
					} `json:"itemStyle"`
				} `json:"series"`
			}
			decodeFrame(t, s, &o)
			if o.YAxis[0].Type != tt.yType || o.Series[SeriesPrice].ItemStyle.Color != tt.upFill || o.Series[SeriesPrice].ItemStyle.BorderColor != s.Up {
				t.Errorf("price axis %q, rising fill %q border %q", o.YAxis[0].Type, o.Series[SeriesPrice].ItemStyle.Color, o.Series[SeriesPrice].ItemStyle.BorderColor)
			}
		})
	}
}

func TestParseScaleAndKindNameTheRule(t *testing.T) {
	for _, s := range []string{"linear", "log", "percent"} {
		if _, err := ParseScale(s); err != nil {
			t.Errorf("scale=%s: %v", s, err)
		}
	}
	for _, s := range []string{"candles", "hollow", "ohlc", "line", "area"} {
		if _, err := ParseKind(s); err != nil {
			t.Errorf("style=%s: %v", s, err)
		}
	}
	if _, err := ParseScale("foo"); err == nil || err.Error() != "scale=foo (scale must be linear, log or percent)" {
		t.Errorf("scale=foo: %v", err)
	}
	if _, err := ParseKind("Log"); err == nil || err.Error() != "style=Log (style must be candles, hollow, ohlc, line or area)" {
		t.Errorf("style=Log: %v", err)
	}
}

func TestLabelsWriteTicksSeparatorsAndPercent(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"a 0.1 tick rounds the crosshair's price", FormatPrice(99518.27, 1), "99,518.3"},
		{"no known tick keeps the digits needed", FormatPrice(99518.25, -1), "99,518.25"},
		{"millions group twice", FormatPrice(-1234567.5, 2), "-1,234,567.50"},
		{"small prices are not grouped", FormatPrice(0.00012345, 8), "0.00012345"},
		{"above the first visible close", FormatPercent(101.25, 100), "+1.25%"},
		{"below it", FormatPercent(99, 100), "-1.00%"},
		{"at it, without a sign", FormatPercent(100, 100), "0.00%"},
		{"no base, no label", FormatPercent(100, 0), ""},
		{"volume in thousands", FormatVolume(12500), "12.5K"},
		{"volume in millions", FormatVolume(3_200_000), "3.2M"},
		{"small volume whole", FormatVolume(950), "950"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestTimeLabelsFallOnRoundTimesOfThePeriod(t *testing.T) {
	tests := []struct {
		name    string
		p       venueapi.Period
		visible int
		want    TimeStep
	}{
		{"120 minutes in 6 labels: every half hour", venueapi.Period1Min, 120, TimeStep{Seconds: 1800}},
		{"60 minutes: every quarter hour", venueapi.Period1Min, 60, TimeStep{Seconds: 900}},
		{"120 quarter hours: every 6 hours", venueapi.Period15Min, 120, TimeStep{Seconds: 6 * 3600}},
		{"120 days: months", venueapi.Period1Day, 120, TimeStep{Months: 1}},
		{"300 days: quarters", venueapi.Period1Day, 300, TimeStep{Months: 3}},
		{"60 months: years", venueapi.Period1Mon, 60, TimeStep{Months: 12}},
	}
	for _, tt := range tests {
		if got := StepFor(tt.p, tt.visible, 6); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	// A label goes on the first candle of each half hour, in the chart's zone
	// (here UTC+5:30, whose half hours are not UTC's).
	zone := time.FixedZone("IST", 5*3600+1800)
	step := TimeStep{Seconds: 1800}
	var labelled []string
	prev := int64(-1)
	for id := time.Date(2026, 1, 2, 3, 50, 0, 0, time.UTC).Unix(); id < time.Date(2026, 1, 2, 5, 0, 0, 0, time.UTC).Unix(); id += 60 {
		if b := step.Bucket(id, zone); prev >= 0 && b != prev {
			labelled = append(labelled, time.Unix(id, 0).In(zone).Format("15:04"))
		}
		prev = step.Bucket(id, zone)
	}
	if got := strings.Join(labelled, " "); got != "09:30 10:00" {
		t.Errorf("labelled %s", got)
	}
}

func TestLastPriceMark(t *testing.T) {
	s := DefaultStyle(false)
	if LastColor(100, 101, s) != s.Up || LastColor(100, 99, s) != s.Down || LastColor(100, 100, s) != s.Up {
		t.Errorf("last-price colour does not follow the candle's direction")
	}
	open := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC).Unix()
	tests := []struct {
		p    venueapi.Period
		now  time.Time
		want string
	}{
		{venueapi.Period1Min, time.Unix(open+18, 0), "42s"},
		{venueapi.Period15Min, time.Unix(open+5, 0), "14:55"},
		{venueapi.Period4Hour, time.Unix(open+1, 0), "3:59:59"},
		{venueapi.Period1Min, time.Unix(open+60, 0), ""},
	}
	for _, tt := range tests {
		if got := TimeLeft(open, tt.p, tt.now); got != tt.want {
			t.Errorf("%s at +%ds: got %q, want %q", tt.p, tt.now.Unix()-open, got, tt.want)
		}
	}
}

func TestFrameDrawsOHLCLineAndAreaAsCustomSeriesOverTheCandles(t *testing.T) {
	tests := []struct {
		name   string
		kind   Kind
		typ    string
		fitsOn string // the dimensions the price axis fits
	}{
		{"candles stay ECharts' candlesticks", KindCandles, "candlestick", ""},
		{"hollow candles too", KindHollow, "candlestick", ""},
		{"OHLC bars fit the lows and highs", KindOHLC, "custom", "open,close,low,high"},
		{"a line fits the closes", KindLine, "custom", "close"},
		{"an area fits the closes", KindArea, "custom", "close"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultStyle(true)
			s.Kind = tt.kind
			var o struct {
				Series []struct {
					Type       string   `json:"type"`
					Dimensions []string `json:"dimensions"`
					Encode     struct {
						X any      `json:"x"`
						Y []string `json:"y"`
					} `json:"encode"`
				} `json:"series"`
			}
			decodeFrame(t, s, &o)
			p := o.Series[SeriesPrice]
			if p.Type != tt.typ || strings.Join(p.Encode.Y, ",") != tt.fitsOn {
				t.Errorf("price series %q fitting %v, want %q fitting %q", p.Type, p.Encode.Y, tt.typ, tt.fitsOn)
			}
			if tt.kind.Custom() && (strings.Join(p.Dimensions, ",") != "index,open,close,low,high" || p.Encode.X != "index") {
				t.Errorf("a custom series reads [index, open, close, low, high], placed by the index: dimensions %v, x %v", p.Dimensions, p.Encode.X)
			}
			if o.Series[SeriesVolumeUp].Type != "bar" || o.Series[SeriesVolumeDown].Type != "bar" {
				t.Errorf("volume is not drawn as bars in style %q", tt.kind)
			}
		})
	}
}
