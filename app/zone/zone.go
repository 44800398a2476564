// Package zone makes the browser's zone a *time.Location that is right
// over a span of time. In js/wasm Go's time.Local is one fixed offset, the
// browser's at start-up, for every date; the browser itself knows the
// zone's rules (daylight saving time). Covering asks it for its offset at
// a few instants of the span and builds a location with the changes found.
// Pure: the offsets come from a function (browser.UTCOffset in the app).
package zone

import (
	"errors"
	"strconv"
	"time"
)

// Offset is a zone's offset from UTC, in seconds east, at a Unix second.
type Offset func(sec int64) int

// Change is a change of offset: from second At on, the offset is Offset.
type Change struct {
	At     int64
	Offset int
}

// week is the most time between two probes of Scan: a zone keeps an
// offset for months, never changes it twice within a week.
const week = 7 * 86400

// Covering returns a location whose offset at every second of [lo, hi] is
// off's: time.Local itself when that is so already (the common case: no
// change in the span, a few probes), else one built with the changes found.
// Outside the span it keeps the offset at the nearer end (time.Local: its
// own).
func Covering(off Offset, lo, hi int64) *time.Location {
	first, changes := Scan(off, lo, hi)
	if len(changes) == 0 {
		return fixed(first, lo, hi)
	}
	loc, err := Location("Local", first, changes)
	if err != nil {
		return fixed(first, lo, hi) // more offsets than a zone has: never so
	}
	return loc
}

// fixed is a location of offset off over [lo, hi]: time.Local when it has
// that offset there (in the browser: it is the offset at start-up).
func fixed(off int, lo, hi int64) *time.Location {
	t := time.Unix(lo, 0).In(time.Local)
	_, local := t.Zone()
	if _, end := t.ZoneBounds(); local == off && (end.IsZero() || end.Unix() > hi) {
		return time.Local
	}
	return time.FixedZone(Name(off), off)
}

// Scan probes off at lo, at hi, and at most a week apart between; where two
// probes differ, it finds the second the offset changes at. It returns the
// offset at lo and the changes in (lo, hi], in order.
func Scan(off Offset, lo, hi int64) (first int, changes []Change) {
	first = off(lo)
	a, fa := lo, first
	for a < hi {
		b := min(a+week, hi)
		fb := off(b)
		for fa != fb { // a change in (a, b]; after it, maybe another
			c := edge(off, a, fa, b, fb)
			changes = append(changes, c)
			a, fa = c.At, c.Offset
		}
		a = b
	}
	return first, changes
}

// edge finds, by halving (a, b], the first second after a whose offset is
// not fa, given off(a) = fa and off(b) = fb, not fa.
func edge(off Offset, a int64, fa int, b int64, fb int) Change {
	for b-a > 1 {
		m := a + (b-a)/2
		if fm := off(m); fm == fa {
			a = m
		} else {
			b, fb = m, fm
		}
	}
	return Change{At: b, Offset: fb}
}

// Name names an offset as Go's time.Local does in js/wasm (zoneinfo_js.go):
// "UTC+1", "UTC-3:30", "UTC+5:45", "UTC+0".
func Name(off int) string {
	minutes, sign := off/60, "+"
	if minutes < 0 {
		minutes, sign = -minutes, "-"
	}
	name := "UTC" + sign + strconv.Itoa(minutes/60)
	if m := minutes % 60; m != 0 {
		name += ":" + strconv.Itoa(m)
	}
	return name
}

// Location is the zone with offset first until the first of changes (in
// order), then each change's offset from its second on; after the last
// change, its offset for ever. Its zones are named by Name.
func Location(name string, first int, changes []Change) (*time.Location, error) {
	types, index := typesOf(first, changes)
	if len(types) > maxTypes {
		return nil, errors.New("zone: too many offsets")
	}
	return time.LoadLocationFromTZData(name, tzif(types, index, changes))
}

// maxTypes keeps the names' indices within a byte (each name is at most
// "UTC-12:45" and its NUL, 10 bytes).
const maxTypes = 25

// typesOf lists the distinct offsets in order of first use, first's first,
// and the index in that list of each change's offset. Go reads the zone of
// the times before the first change as type 0 when no change uses it, else
// as the first type not marked daylight saving time: none is marked, so
// type 0, first, in either case.
func typesOf(first int, changes []Change) (types []int, index []byte) {
	types = []int{first}
	index = make([]byte, len(changes))
	for i, c := range changes {
		j := 0
		for j < len(types) && types[j] != c.Offset {
			j++
		}
		if j == len(types) {
			types = append(types, c.Offset)
		}
		index[i] = byte(min(j, 255))
	}
	return types, index
}

// tzif writes the zone as TZif data (RFC 9636), version 2: an empty 32-bit
// block, which Go skips, then the 64-bit one, whose times do not end in
// 2038. No footer: after the last change its type holds.
func tzif(types []int, index []byte, changes []Change) []byte {
	names, nameAt := namesOf(types)
	b := header(nil, 0, 0, 0)
	b = header(b, len(changes), len(types), len(names))
	for _, c := range changes {
		b = be64(b, uint64(c.At))
	}
	b = append(b, index...)
	for i, off := range types {
		b = append(be32(b, uint32(int32(off))), 0, nameAt[i]) // not daylight saving time; its name
	}
	return append(b, names...)
}

// namesOf is the types' names, each ended by a NUL, and where each begins.
func namesOf(types []int) (names, at []byte) {
	at = make([]byte, len(types))
	for i, off := range types {
		at[i] = byte(len(names))
		names = append(append(names, Name(off)...), 0)
	}
	return names, at
}

// header appends a version 2 TZif header: the magic, the version, 15
// bytes reserved, and the counts (UT/local and standard/wall indicators,
// leap seconds: none).
func header(b []byte, times, types, chars int) []byte {
	b = append(b, "TZif2"...)
	b = append(b, make([]byte, 15)...)
	for _, n := range [6]int{0, 0, 0, times, types, chars} {
		b = be32(b, uint32(n))
	}
	return b
}

func be32(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func be64(b []byte, v uint64) []byte {
	return be32(be32(b, uint32(v>>32)), uint32(v))
}
