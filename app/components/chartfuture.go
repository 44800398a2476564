package components

import (
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// A contract-type code (BTC-USDT-CW, -NW, -CQ, -NQ) names another future
// after each delivery, every Friday at 08:00 UTC, and the server then
// answers the new future's candles, closed ones included: it keeps a type
// code's candles per delivery (docs/decisions.md#contract-type-codes). A
// chart holds one future's candles: once its code names another, it loads
// the new future's, rather than drawing them after the old one's; and the
// candles it keeps in browser storage are named for their delivery, so that
// a visit after the next one does not draw the future delivered.

// lastDelivery is venueapi.LastDelivery of ts, in Unix seconds: the
// delivery since which a type code names the future it names at ts, as the
// server names the code's series.
func lastDelivery(ts int64) int64 { return venueapi.LastDelivery(time.Unix(ts, 0)).Unix() }

// deliveryOf is lastDelivery(ts) for a contract-type code, and 0 for a
// code that names one contract for good (a swap, a dated future).
func deliveryOf(code string, ts int64) int64 {
	if !venueapi.IsTypeCode(code) {
		return 0
	}
	return lastDelivery(ts)
}

// deliveryAligned reports whether a delivery instant (a Friday 08:00 UTC)
// is always the start of a candle of period p: then the first candle of the
// new future's series is one the old future's never had.
func deliveryAligned(p venueapi.Period) bool {
	n := p.Seconds()
	return n > 0 && (8*3600)%n == 0
}

// anotherFuture reports whether the chart's contract, a type code, names
// another future than the one its candles are, by the live candles fresh
// or, for periods whose candles span a delivery (1day, 1mon), the clock.
// A candle the server sends that starts at or after the next delivery is
// the next future's: the server names a series by its own clock, and no
// candle starts after it.
func (k *KLineChart) anotherFuture(fresh []venueapi.Candle, now time.Time) bool {
	if len(k.candles) == 0 || !venueapi.IsTypeCode(k.Contract) {
		return false
	}
	if deliveryAligned(k.Period) {
		held := lastDelivery(k.candles[len(k.candles)-1].ID)
		for _, c := range fresh {
			if lastDelivery(c.ID) > held {
				return true
			}
		}
		return false
	}
	return k.delivery != 0 && lastDelivery(now.Unix()) > k.delivery
}
