//go:build !js

package zone

import (
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin's real rules, in the test only: app.wasm does not carry them

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// steps is a zone of offset base until the first change, then each
// change's offset from its second on.
func steps(base int, changes ...Change) Offset {
	return func(sec int64) int {
		off := base
		for _, c := range changes {
			if sec >= c.At {
				off = c.Offset
			}
		}
		return off
	}
}

// counted is off, counting its calls in n.
func counted(off Offset, n *int) Offset {
	return func(sec int64) int { *n++; return off(sec) }
}

func unix(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.Unix()
}

const hour = 3600

// checkOffsets compares loc's offset with off's every 17 minutes of
// [lo, hi], at lo and hi, and a second either side of each change.
func checkOffsets(t *testing.T, loc *time.Location, off Offset, lo, hi int64, changes []Change) {
	t.Helper()
	at := []int64{lo, hi}
	for s := lo; s <= hi; s += 17 * 60 {
		at = append(at, s)
	}
	for _, c := range changes {
		at = append(at, c.At-1, c.At, c.At+1)
	}
	bad := 0
	for _, s := range at {
		if s < lo || s > hi {
			continue
		}
		if _, got := time.Unix(s, 0).In(loc).Zone(); got != off(s) && bad < 5 {
			bad++
			t.Errorf("offset at %s: %d, want %d", time.Unix(s, 0).UTC().Format(time.RFC3339), got, off(s))
		}
	}
}

func TestCoveringFollowsTheOffsets(t *testing.T) {
	lo, hi := unix("2026-01-10T00:00:00Z"), unix("2026-12-05T00:00:00Z")
	spring, autumn := unix("2026-03-29T01:00:00Z"), unix("2026-10-25T01:00:00Z")
	ny := []Change{{unix("2026-03-08T07:00:00Z"), -4 * hour}, {unix("2026-11-01T06:00:00Z"), -5 * hour}}
	// Lord Howe: +10:30, and +11 in the southern summer (a 30-minute change).
	howe := []Change{{unix("2026-04-04T15:00:00Z"), 10*hour + 1800}, {unix("2026-10-03T15:30:00Z"), 11 * hour}}
	for _, tt := range []struct {
		name    string
		base    int
		changes []Change
		lo, hi  int64
	}{
		{"no change", 3 * hour, nil, lo, hi},
		{"no change, +5:30", 5*hour + 1800, nil, lo, hi},
		{"one change", hour, []Change{{spring, 2 * hour}}, lo, hi},
		{"spring and autumn", hour, []Change{{spring, 2 * hour}, {autumn, hour}}, lo, hi},
		{"New York, negative", -5 * hour, ny, lo, hi},
		{"Lord Howe, half hours", 11 * hour, howe, lo, hi},
		{"+5:30 to +6:30", 5*hour + 1800, []Change{{spring, 6*hour + 1800}}, lo, hi},
		{"a change at lo", hour, []Change{{lo, 2 * hour}}, lo, hi},
		{"a change at hi", hour, []Change{{hi, 2 * hour}}, lo, hi},
		{"a change a second after lo", hour, []Change{{lo + 1, 2 * hour}}, lo, hi},
		{"two changes in a day", hour, []Change{{spring, 2 * hour}, {spring + 5*hour, 3 * hour}}, lo, hi},
		{"there and back eight days apart", hour, []Change{{spring, 2 * hour}, {spring + 8*86400, hour}}, lo, hi}, // a week apart or less may go unseen: no zone does that
		{"a span shorter than a week", hour, []Change{{spring, 2 * hour}}, spring - 86400, spring + 86400},
		{"west of UTC to east", -hour, []Change{{spring, hour}}, lo, hi},
	} {
		t.Run(tt.name, func(t *testing.T) {
			off := steps(tt.base, tt.changes...)
			loc := Covering(off, tt.lo, tt.hi)
			checkOffsets(t, loc, off, tt.lo, tt.hi, tt.changes)
			_, got := Scan(off, tt.lo, tt.hi)
			var want []Change
			for _, c := range tt.changes {
				if c.At > tt.lo && c.At <= tt.hi {
					want = append(want, c)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("changes %v, want %v", got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("change %d: %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

// The zone before the first change is the offset at lo (type 0), even when
// a later change comes back to it; after the last change, the last offset.
func TestLocationBeforeAndAfterItsChanges(t *testing.T) {
	spring, autumn := unix("2026-03-29T01:00:00Z"), unix("2026-10-25T01:00:00Z")
	for _, tt := range []struct {
		name    string
		first   int
		changes []Change
	}{
		{"summer, winter, summer", 2 * hour, []Change{{autumn - 200*86400, hour}, {autumn - 100*86400, 2 * hour}}},
		{"winter, summer, winter", hour, []Change{{spring, 2 * hour}, {autumn, hour}}},
		{"negative", -4 * hour, []Change{{spring, -5 * hour}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := Location("Local", tt.first, tt.changes)
			if err != nil {
				t.Fatal(err)
			}
			if _, off := time.Unix(tt.changes[0].At-400*86400, 0).In(loc).Zone(); off != tt.first {
				t.Errorf("before the first change: %d, want %d", off, tt.first)
			}
			last := tt.changes[len(tt.changes)-1]
			if _, off := time.Unix(last.At+30*365*86400, 0).In(loc).Zone(); off != last.Offset {
				t.Errorf("decades after the last change (past 2038): %d, want %d", off, last.Offset)
			}
		})
	}
}

// Each offset is named as Go's time.Local names the browser's zone in
// js/wasm, so that the legend's zone reads as before.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		off  int
		want string
	}{
		{hour, "UTC+1"}, {2 * hour, "UTC+2"}, {0, "UTC+0"}, {-5 * hour, "UTC-5"},
		{5*hour + 1800, "UTC+5:30"}, {5*hour + 2700, "UTC+5:45"}, {-(3*hour + 1800), "UTC-3:30"}, {-1800, "UTC-0:30"},
	} {
		if got := Name(tt.off); got != tt.want {
			t.Errorf("Name(%d) = %q, want %q", tt.off, got, tt.want)
		}
	}
	spring := unix("2026-03-29T01:00:00Z")
	loc := Covering(steps(hour, Change{spring, 2 * hour}), spring-86400, spring+86400)
	for at, want := range map[int64]string{spring - 1: "UTC+1", spring: "UTC+2"} {
		if name, _ := time.Unix(at, 0).In(loc).Zone(); name != want {
			t.Errorf("zone at %d: %q, want %q", at, name, want)
		}
	}
}

// Europe/Berlin's real rules from October 2025 to December 2026: the
// location built from its offsets labels every 4hour candle, and finds the
// axis' round times, as the real zone does.
func TestBerlin(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	off := func(sec int64) int { _, o := time.Unix(sec, 0).In(berlin).Zone(); return o }
	lo, hi := unix("2025-10-01T00:00:00Z"), unix("2026-12-05T00:00:00Z")
	loc := Covering(off, lo, hi)
	_, changes := Scan(off, lo, hi)
	if len(changes) != 3 { // 2025-10-26, 2026-03-29, 2026-10-25
		t.Fatalf("changes %v, want three", changes)
	}
	checkOffsets(t, loc, off, lo, hi, changes)
	steps := []chartopt.TimeStep{{Seconds: 3600}, {Seconds: 6 * 3600}, {Seconds: 12 * 3600}, {Seconds: 86400}, {Months: 1}}
	for id := lo; id <= hi; id += 4 * 3600 {
		if got, want := chartopt.Label(id, venueapi.Period4Hour, loc), chartopt.Label(id, venueapi.Period4Hour, berlin); got != want {
			t.Fatalf("label of %d: %q, want %q", id, got, want)
		}
		for _, s := range steps {
			if got, want := s.Bucket(id, loc), s.Bucket(id, berlin); got != want {
				t.Fatalf("bucket of %d, step %+v: %d, want %d", id, s, got, want)
			}
		}
	}
}

// A chart of two years costs about one probe a week and twenty a change.
func TestProbesAreBounded(t *testing.T) {
	lo := unix("2025-01-01T00:00:00Z")
	hi := lo + 2*365*86400
	var changes []Change
	for y, off := 0, 2*hour; y < 2; y++ {
		changes = append(changes, Change{lo + int64(y)*365*86400 + 87*86400 + 3*hour, off}, Change{lo + int64(y)*365*86400 + 297*86400 + 3*hour, hour})
	}
	for _, tt := range []struct {
		name    string
		changes []Change
	}{{"no change", nil}, {"four changes", changes}} {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			Covering(counted(steps(hour, tt.changes...), &n), lo, hi)
			if most := 110 + 20*len(tt.changes); n > most {
				t.Errorf("%d probes, want at most %d", n, most)
			}
			t.Logf("%d probes", n)
		})
	}
}

// With no change in the span, the location is time.Local when that has the
// offset over the span (the browser's time.Local, whose offset is the one
// at start-up), else a fixed zone of it.
func TestNoChangeIsLocalOrFixed(t *testing.T) {
	lo, hi := unix("2026-01-10T00:00:00Z"), unix("2026-01-20T00:00:00Z") // no zone changes its offset then
	local := func(sec int64) int { _, o := time.Unix(sec, 0).In(time.Local).Zone(); return o }
	if loc := Covering(local, lo, hi); loc != time.Local {
		t.Errorf("time.Local's own offsets: %v, want time.Local", loc)
	}
	other := local(lo) + 7*hour
	loc := Covering(steps(other), lo, hi)
	if name, off := time.Unix(lo, 0).In(loc).Zone(); off != other || name != Name(other) {
		t.Errorf("another offset: %s %d, want %s %d", name, off, Name(other), other)
	}
}
