package venueapi

import (
	"fmt"
	"time"
)

// Period is a KLine period as the venue names it ("1min", …, "1mon").
type Period string

// The nine periods of the KLine endpoint. Period60Min and Period1Hour are the
// same series under two names.
const (
	Period1Min  Period = "1min"
	Period5Min  Period = "5min"
	Period15Min Period = "15min"
	Period30Min Period = "30min"
	Period60Min Period = "60min"
	Period1Hour Period = "1hour"
	Period4Hour Period = "4hour"
	Period1Day  Period = "1day"
	Period1Mon  Period = "1mon"
)

// Periods lists every period in the order a picker shows them.
func Periods() []Period {
	return []Period{Period1Min, Period5Min, Period15Min, Period30Min, Period60Min, Period1Hour, Period4Hour, Period1Day, Period1Mon}
}

// ParsePeriod returns the period named s, or a *ParamError naming "period".
func ParsePeriod(s string) (Period, error) {
	p := Period(s)
	if p.Seconds() == 0 && p != Period1Mon {
		return "", &ParamError{Param: "period", Rule: "must be one of 1min, 5min, 15min, 30min, 60min, 1hour, 4hour, 1day, 1mon", Value: s}
	}
	return p, nil
}

// Seconds is the fixed length of the period in seconds; 0 for 1mon, whose
// length depends on the month, and for an unknown period.
func (p Period) Seconds() int64 {
	switch p {
	case Period1Min:
		return 60
	case Period5Min:
		return 5 * 60
	case Period15Min:
		return 15 * 60
	case Period30Min:
		return 30 * 60
	case Period60Min, Period1Hour:
		return 3600
	case Period4Hour:
		return 4 * 3600
	case Period1Day:
		return 86400
	}
	return 0
}

// Valid reports whether p is one of the nine periods.
func (p Period) Valid() bool { return p.Seconds() > 0 || p == Period1Mon }

// Canonical names the series p belongs to: "60min" for "1hour", p otherwise.
func (p Period) Canonical() Period {
	if p == Period1Hour {
		return Period60Min
	}
	return p
}

// Start returns the start (a candle id) of the candle of period p holding the
// instant ts, in UTC seconds. Minute and hour periods align to multiples of
// their length since the epoch, 1day to 00:00 UTC, 1mon to the first of the
// month.
func (p Period) Start(ts int64) int64 {
	if p == Period1Mon {
		t := time.Unix(ts, 0).UTC()
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	n := p.Seconds()
	if n == 0 {
		panic(fmt.Sprintf("venueapi: Start of invalid period %q", string(p)))
	}
	return floorDiv(ts, n) * n
}

// Next returns the start of the candle after the one starting at start.
func (p Period) Next(start int64) int64 {
	if p == Period1Mon {
		t := time.Unix(start, 0).UTC()
		return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	return start + p.Seconds()
}

// Prev returns the start of the candle before the one starting at start.
func (p Period) Prev(start int64) int64 {
	if p == Period1Mon {
		t := time.Unix(start, 0).UTC()
		return time.Date(t.Year(), t.Month()-1, 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	return start - p.Seconds()
}

// Ceil returns the start of the first candle of period p that starts at or
// after the instant ts: ts itself when it is a candle start, else the next one.
func (p Period) Ceil(ts int64) int64 {
	start := p.Start(ts)
	if start < ts {
		return p.Next(start)
	}
	return start
}

// Back returns the id of the candle n candles of period p before the one
// starting at id (id itself for n = 0).
func (p Period) Back(id int64, n int) int64 {
	if sec := p.Seconds(); sec > 0 {
		return id - int64(n)*sec
	}
	for range n {
		id = p.Prev(id)
	}
	return id
}

// Count returns how many candles of period p start in [from, to].
func (p Period) Count(from, to int64) int64 {
	if from > to {
		return 0
	}
	first := p.Ceil(from)
	if first > to {
		return 0
	}
	if p == Period1Mon {
		a, b := time.Unix(first, 0).UTC(), time.Unix(to, 0).UTC()
		return int64((b.Year()-a.Year())*12+int(b.Month())-int(a.Month())) + 1
	}
	return (to-first)/p.Seconds() + 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
