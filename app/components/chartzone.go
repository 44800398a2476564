package components

import (
	"time"

	"github.com/riskchart/riskchart/app/zone"
)

// chartZone is the browser's zone as a location right over the candles a
// chart holds and now (zone.Covering): Go's time.Local in the browser has
// one offset, the one at start-up, for every date, and would label the
// candles from before the last change of daylight saving time an hour off.
// It is built again only when the span grows past the one it covers.
type chartZone struct {
	loc      *time.Location
	from, to int64 // the Unix seconds loc is right over
}

// covering returns the location right from Unix second from to a day past
// now, asking off only when the last one does not cover that.
func (z *chartZone) covering(off zone.Offset, from, now int64) *time.Location {
	if z.loc == nil || from < z.from || now > z.to {
		z.from, z.to = min(from, now), now+86400
		z.loc = zone.Covering(off, z.from, z.to)
	}
	return z.loc
}
