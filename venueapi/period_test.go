package venueapi

import (
	"testing"
	"time"
)

func TestPeriodAlignment(t *testing.T) {
	ts := time.Date(2026, 11, 22, 13, 47, 31, 0, time.UTC).Unix()
	for _, tt := range []struct {
		p          Period
		start, nxt time.Time
	}{
		{Period1Min, time.Date(2026, 11, 22, 13, 47, 0, 0, time.UTC), time.Date(2026, 11, 22, 13, 48, 0, 0, time.UTC)},
		{Period15Min, time.Date(2026, 11, 22, 13, 45, 0, 0, time.UTC), time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)},
		{Period1Hour, time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)},
		{Period4Hour, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)},
		{Period1Day, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{Period1Mon, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if got := tt.p.Start(ts); got != tt.start.Unix() {
			t.Errorf("%s Start = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.start)
		}
		if got := tt.p.Next(tt.start.Unix()); got != tt.nxt.Unix() {
			t.Errorf("%s Next = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.nxt)
		}
		if got := tt.p.Prev(tt.nxt.Unix()); got != tt.start.Unix() {
			t.Errorf("%s Prev = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.start)
		}
	}
	dec := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Unix()
	if n := Period1Mon.Count(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), dec); n != 12 {
		t.Errorf("1mon Count Jan..Dec = %d, want 12", n)
	}
	if n := Period1Min.Count(0, 119940); n != 2000 {
		t.Errorf("1min Count = %d, want 2000", n)
	}
	if Period60Min.Canonical() != Period1Hour.Canonical() {
		t.Error("60min and 1hour are not one series")
	}
}

func TestEveryPeriodAlignsAsDecisionsSays(t *testing.T) {
	ts := time.Date(2026, 11, 22, 13, 47, 31, 0, time.UTC).Unix()
	for _, tt := range []struct {
		p    Period
		want time.Time
	}{
		{Period1Min, time.Date(2026, 11, 22, 13, 47, 0, 0, time.UTC)},
		{Period5Min, time.Date(2026, 11, 22, 13, 45, 0, 0, time.UTC)},
		{Period15Min, time.Date(2026, 11, 22, 13, 45, 0, 0, time.UTC)},
		{Period30Min, time.Date(2026, 11, 22, 13, 30, 0, 0, time.UTC)},
		{Period60Min, time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)},
		{Period1Hour, time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)},
		{Period4Hour, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		{Period1Day, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{Period1Mon, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if got := tt.p.Start(ts); got != tt.want.Unix() {
			t.Errorf("%s: Start = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.want)
		}
		if p, err := ParsePeriod(string(tt.p)); err != nil || p != tt.p {
			t.Errorf("ParsePeriod(%q) = %q, %v", tt.p, p, err)
		}
	}
	if len(Periods()) != 9 {
		t.Errorf("%d periods, want 9", len(Periods()))
	}
	for _, bad := range []string{"", "1m", "1MIN", "2hour", "1week"} {
		if _, err := ParsePeriod(bad); err == nil || Period(bad).Valid() {
			t.Errorf("%q is a period", bad)
		}
	}
}

func TestMonthsCountByTheCalendar(t *testing.T) {
	day := func(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() }
	for _, tt := range []struct {
		from, to int64
		want     int64
	}{
		{day(2025, 12, 1), day(2026, 1, 1), 2}, // across a year
		{day(2025, 12, 2), day(2026, 1, 1), 1}, // December started before from
		{day(2026, 2, 1), day(2026, 2, 28), 1}, // one month, to within it
		{day(2026, 2, 2), day(2026, 2, 28), 0}, // no month starts inside
		{day(2024, 2, 29), day(2024, 3, 1), 1}, // leap year
		{day(1970, 1, 1), day(2150, 6, 1), 2166},
	} {
		if got := Period1Mon.Count(tt.from, tt.to); got != tt.want {
			t.Errorf("Count(%s, %s) = %d, want %d", time.Unix(tt.from, 0).UTC(), time.Unix(tt.to, 0).UTC(), got, tt.want)
		}
	}
}

// FuzzPeriodStartHoldsTheInstant: the candle Start returns holds ts, Next and
// Prev undo each other, and Count agrees with walking Next.
func FuzzPeriodStartHoldsTheInstant(f *testing.F) {
	f.Add(int64(1763819251), uint8(0), uint16(3))
	f.Add(int64(-1), uint8(8), uint16(0))
	f.Fuzz(func(t *testing.T, ts int64, pi uint8, span uint16) {
		ts %= 1 << 40
		p := Periods()[int(pi)%len(Periods())]
		s := p.Start(ts)
		if s > ts || p.Next(s) <= ts || p.Start(s) != s || p.Prev(p.Next(s)) != s {
			t.Fatalf("%s at %d: start %d, next %d, prev of next %d", p, ts, s, p.Next(s), p.Prev(p.Next(s)))
		}
		to := ts + int64(span)*60
		n := int64(0)
		for id := p.Start(ts); id <= to; id = p.Next(id) {
			if id >= ts {
				n++
			}
		}
		if got := p.Count(ts, to); got != n {
			t.Fatalf("%s: Count(%d, %d) = %d, walking gives %d", p, ts, to, got, n)
		}
	})
}

func TestCeilMovesAnInstantUpToTheNextCandleStart(t *testing.T) {
	at := func(y int, mo time.Month, d, h, mi, s int) int64 {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC).Unix()
	}
	for _, tt := range []struct {
		name string
		p    Period
		ts   int64
		want int64
	}{
		{"a minute start stays", Period1Min, at(2026, 11, 22, 13, 47, 0), at(2026, 11, 22, 13, 47, 0)},
		{"a second past a minute moves to the next", Period1Min, at(2026, 11, 22, 13, 47, 1), at(2026, 11, 22, 13, 48, 0)},
		{"inside a 4hour candle moves to the next", Period4Hour, at(2026, 11, 22, 13, 0, 0), at(2026, 11, 22, 16, 0, 0)},
		{"midnight stays a day start", Period1Day, at(2026, 11, 22, 0, 0, 0), at(2026, 11, 22, 0, 0, 0)},
		{"inside December moves to January", Period1Mon, at(2026, 12, 15, 0, 0, 0), at(2027, 1, 1, 0, 0, 0)},
		{"the first of a month stays", Period1Mon, at(2026, 2, 1, 0, 0, 0), at(2026, 2, 1, 0, 0, 0)},
		{"before the epoch aligns downward first", Period1Min, -59, 0},
	} {
		if got := tt.p.Ceil(tt.ts); got != tt.want {
			t.Errorf("%s: %s Ceil(%d) = %d, want %d", tt.name, tt.p, tt.ts, got, tt.want)
		}
	}
}

func TestBackWalksWholeCandles(t *testing.T) {
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, tt := range []struct {
		name string
		p    Period
		id   int64
		n    int
		want int64
	}{
		{"zero candles is the candle itself", Period1Min, 600, 0, 600},
		{"minutes step by their length", Period5Min, 3000, 4, 3000 - 4*300},
		{"months step by the calendar across a year", Period1Mon, jan, 13, time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC).Unix()},
		{"zero candles of a day is that day", Period1Day, jan, 0, jan},
		{"minutes step back from a whole candle", Period1Min, 600, 3, 420},
		{"hours may reach back to the epoch", Period4Hour, 4 * 3600 * 10, 10, 0},
		{"months step back across a year from 2025", Period1Mon, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), 13, time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC).Unix()},
	} {
		if got := tt.p.Back(tt.id, tt.n); got != tt.want {
			t.Errorf("%s: %s Back(%d, %d) = %d, want %d", tt.name, tt.p, tt.id, tt.n, got, tt.want)
		}
		if tt.n > 0 {
			if c := tt.p.Count(tt.p.Back(tt.id, tt.n), tt.id); c != int64(tt.n)+1 {
				t.Errorf("%s: Count from Back to id = %d, want %d", tt.name, c, tt.n+1)
			}
		}
	}
}
