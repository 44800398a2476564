package chartopt

import (
	"math"
	"strconv"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// TimeStep is the round time the time axis labels for period p when
// visible candles are in view and the axis has room for about labels of
// them: minute and hour steps (15 min, 30 min, 1 h …) of local time, days,
// or (Months > 0) months.
type TimeStep struct {
	Seconds int64 `json:"seconds,omitempty"` // 0 when Months is set
	Months  int   `json:"months,omitempty"`
}

// TimeLabels is about how many labels the time axis writes (StepFor).
const TimeLabels = 6

// TimeLabelHalf is half the width of the widest time label ("11-25 11:00"
// in the axis' font), in px: a label centred on a candle nearer the grid's
// edge than that would be cut, and is not written.
const TimeLabelHalf = 36

// minuteSteps and monthSteps are the round steps a trader reads: the
// quarter hour, the hour, the day, the week; the month, the quarter, the
// year.
var (
	minuteSteps = []int64{60, 5 * 60, 15 * 60, 30 * 60, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400}
	monthSteps  = []int{1, 3, 6, 12, 24, 60}
)

// StepFor returns the smallest round step of period p that puts at most
// labels labels on visible candles. A step shorter than a month is a whole
// number of candles, so the labels fall the same number of candles apart:
// four-hour candles are labelled every 12 hours, never every 6. Daily
// candles take day and week steps while those are few enough, and months
// beyond.
func StepFor(p venueapi.Period, visible, labels int) TimeStep {
	labels = max(labels, 1)
	span := int64(max(visible, 1)) * p.Seconds()
	if p.Seconds() > 0 && p.Seconds() <= 86400 {
		for _, s := range minuteSteps {
			if s%p.Seconds() == 0 && span/s <= int64(labels) {
				return TimeStep{Seconds: s}
			}
		}
	}
	months := visible // 1mon: one candle a month
	if p.Seconds() > 0 {
		months = int(span / (30 * 86400))
	}
	for _, m := range monthSteps {
		if months/m <= labels {
			return TimeStep{Months: m}
		}
	}
	return TimeStep{Months: monthSteps[len(monthSteps)-1]}
}

// Bucket numbers the step that candle id falls in, in loc: the time axis
// labels a candle when its bucket differs from the previous candle's, so a
// label lands on the first candle of each round time even when candles
// are missing. Steps of days count from 1970-01-01 in loc, and steps of
// weeks from Monday 1970-01-05, so that a week's label names its Monday
// (in UTC for daily candles: LabelZone).
func (s TimeStep) Bucket(id int64, loc *time.Location) int64 {
	t := time.Unix(id, 0).In(loc)
	if s.Months > 0 {
		return (int64(t.Year())*12 + int64(t.Month()) - 1) / int64(s.Months)
	}
	_, off := t.Zone()
	if s.Seconds%week == 0 {
		off += mondayShift
	}
	return (id + int64(off)) / s.Seconds
}

// week is a week's seconds. mondayShift moves every Monday onto a whole
// number of weeks since 1970-01-01, a Thursday: Monday 1970-01-05 and three
// days is 1970-01-08.
const (
	week        = 7 * 86400
	mondayShift = 3 * 86400
)

// FormatVolume writes a volume axis label briefly: 950, 12.5K, 3.2M. The
// value is written in the largest unit it reaches, rounded to a decimal,
// and in the next unit up when the rounded value reaches that unit: 999,950
// is 1M, not 1000K, and 999.95 is 1K.
func FormatVolume(v float64) string {
	units := VolumeUnits()
	i := 0 // the unit v reaches; len(units) when it reaches none
	for i < len(units) && max(v, -v) < units[i].At {
		i++
	}
	at, suffix := 1.0, ""
	if i < len(units) {
		at, suffix = units[i].At, units[i].Suffix
	}
	r := round1(v / at)
	if i > 0 && max(r, -r)*at >= units[i-1].At {
		at, suffix = units[i-1].At, units[i-1].Suffix
		r = round1(v / at)
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + suffix
}

// VolumeUnit is one of FormatVolume's units: a volume of At or more (in
// size) is written in At, with Suffix.
type VolumeUnit struct {
	At     float64 `json:"at"`
	Suffix string  `json:"suffix"`
}

// VolumeUnits are FormatVolume's units, largest first, as data for the
// first paint (app/boot.Config).
func VolumeUnits() [3]VolumeUnit {
	return [3]VolumeUnit{{1e9, "B"}, {1e6, "M"}, {1e3, "K"}}
}

// round1 rounds v to one decimal, halves away from zero, and writes a
// value that rounds to zero as 0, never -0.
func round1(v float64) float64 {
	r := math.Round(v*10) / 10
	if r == 0 {
		return 0
	}
	return r
}
