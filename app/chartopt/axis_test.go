package chartopt

import (
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// TestVolumeLabelsRoundBeforeTheyPickAUnit: a volume is rounded to a decimal
// first, and a value that rounds up to the next unit is written in it.
func TestVolumeLabelsRoundBeforeTheyPickAUnit(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		want string
	}{
		{"just under a million rounds to a million", 999_950, "1M"},
		{"a unit under a million rounds to a million", 999_999, "1M"},
		{"just under a billion rounds to a billion", 999_950_000, "1B"},
		{"just under a thousand rounds to a thousand", 999.95, "1K"},
		{"a little less stays below a thousand", 999.94, "999.9"},
		{"a little less stays in thousands", 999_949, "999.9K"},
		{"a thousand exactly", 1000, "1K"},
		{"a million exactly", 1_000_000, "1M"},
		{"beyond the largest unit, still billions", 999_950_000_000, "1000B"},
		{"small volumes are unchanged", 950, "950"},
		{"zero", 0, "0"},
		{"negative, just under a million", -999_950, "-1M"},
		{"negative thousands", -12_500, "-12.5K"},
		{"negative, rounding to zero, has no sign", -0.01, "0"},
	}
	for _, tt := range tests {
		if got := FormatVolume(tt.v); got != tt.want {
			t.Errorf("%s: FormatVolume(%g) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
}

// TestTimeStepsAreWholeCandlesApart: a step shorter than a month is a whole
// number of candles, so the labels on a run of candles fall the same number
// of candles apart, and a few of them (not one) label a month of daily
// candles.
func TestTimeStepsAreWholeCandlesApart(t *testing.T) {
	tests := []struct {
		name    string
		p       venueapi.Period
		visible int
		want    TimeStep
	}{
		{"30 days: every week", venueapi.Period1Day, 30, TimeStep{Seconds: 7 * 86400}},
		{"10 days: every other day", venueapi.Period1Day, 10, TimeStep{Seconds: 2 * 86400}},
		{"90 days: every other week", venueapi.Period1Day, 90, TimeStep{Seconds: 14 * 86400}},
		{"98 days: months", venueapi.Period1Day, 98, TimeStep{Months: 1}},
		{"9 four-hour candles: every 12 hours, not 6", venueapi.Period4Hour, 9, TimeStep{Seconds: 12 * 3600}},
		{"120 four-hour candles: every week", venueapi.Period4Hour, 120, TimeStep{Seconds: 7 * 86400}},
		{"9 five-minute candles: every 15 minutes", venueapi.Period5Min, 9, TimeStep{Seconds: 15 * 60}},
	}
	start := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC).Unix()
	for _, tt := range tests {
		got := StepFor(tt.p, tt.visible, TimeLabels)
		if got != tt.want {
			t.Errorf("%s: StepFor = %+v, want %+v", tt.name, got, tt.want)
		}
		if got.Months > 0 {
			continue
		}
		if got.Seconds%tt.p.Seconds() != 0 {
			t.Errorf("%s: a step of %d s is not a whole number of %s candles", tt.name, got.Seconds, tt.p)
		}
		// The candles labelled on a run of 100 (the first of each step).
		var labelled []int
		for i := 1; i < 100; i++ {
			id := start + int64(i)*tt.p.Seconds()
			if got.Bucket(id, time.UTC) != got.Bucket(id-tt.p.Seconds(), time.UTC) {
				labelled = append(labelled, i)
			}
		}
		for k := 2; k < len(labelled); k++ {
			if labelled[k]-labelled[k-1] != labelled[1]-labelled[0] {
				t.Errorf("%s: step %+v labels candles %v, unevenly", tt.name, got, labelled)
				break
			}
		}
		if n := len(labelled) * tt.visible / 100; n < 2 || n > TimeLabels {
			t.Errorf("%s: step %+v puts about %d labels on %d candles", tt.name, got, n, tt.visible)
		}
	}
}

// A step of weeks labels Mondays, the first day of a trader's week, in UTC
// for daily candles and in the reader's zone for shorter ones.
func TestWeekStepsBeginOnAMonday(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		p     venueapi.Period
		step  TimeStep
		loc   *time.Location
		start time.Time
	}{
		{"every week, daily candles", venueapi.Period1Day, TimeStep{Seconds: 7 * 86400}, time.UTC, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"every two weeks, daily candles", venueapi.Period1Day, TimeStep{Seconds: 14 * 86400}, time.UTC, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"every week, four-hour candles in New York", venueapi.Period4Hour, TimeStep{Seconds: 7 * 86400}, newYork, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labels := 0
			prev := tc.step.Bucket(tc.start.Unix(), tc.loc)
			for id := tc.start.Unix() + tc.p.Seconds(); id < tc.start.AddDate(0, 0, 60).Unix(); id += tc.p.Seconds() {
				if b := tc.step.Bucket(id, tc.loc); b != prev {
					prev = b
					labels++
					at, before := time.Unix(id, 0).In(tc.loc), time.Unix(id-tc.p.Seconds(), 0).In(tc.loc)
					if at.Weekday() != time.Monday || before.Weekday() == time.Monday {
						t.Errorf("a label on %s, want a Monday's first candle", at.Format(time.RFC1123))
					}
				}
			}
			if labels < 4 {
				t.Errorf("%d labels in 60 days", labels)
			}
		})
	}
}
