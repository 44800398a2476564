package sandbox

import (
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// futureTypes are the dated contract types, nearest delivery first.
var futureTypes = [4]venueapi.ContractType{venueapi.TypeThisWeek, venueapi.TypeNextWeek, venueapi.TypeQuarter, venueapi.TypeNextQuarter}

// deliveries returns the delivery instants of the futures listed at now, in
// the order of futureTypes (docs/decisions.md, Futures calendar): deliveries
// are Fridays at 08:00 UTC; this_week is the nearest, next_week the one
// after; quarter and next_quarter are the next two last-Fridays of March,
// June, September and December after next_week, as in the venue family, where
// a quarterly that comes within two weeks of delivery becomes a weekly.
func deliveries(now time.Time) [4]time.Time {
	now = now.UTC()
	d := time.Date(now.Year(), now.Month(), now.Day(), 8, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Friday || !d.After(now) {
		d = d.AddDate(0, 0, 1)
	}
	out := [4]time.Time{d, d.AddDate(0, 0, 7)}
	n := 2
	for m := time.Date(now.Year(), now.Month(), 1, 8, 0, 0, 0, time.UTC); n < 4; m = m.AddDate(0, 1, 0) {
		if m.Month()%3 != 0 {
			continue
		}
		if q := lastFriday(m); q.After(out[1]) {
			out[n] = q
			n++
		}
	}
	return out
}

// lastFriday is the last Friday of month's month, 08:00 UTC.
func lastFriday(month time.Time) time.Time {
	d := time.Date(month.Year(), month.Month()+1, 1, 8, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	for d.Weekday() != time.Friday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}
