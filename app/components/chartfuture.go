package components

import (
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// A contract-type code (BTC-USDT-CW, -NW, -CQ, -NQ) names another future
// after each delivery, every Friday at 08:00 UTC, and the server then
// answers the new future's candles, closed ones included: it keeps a type
// code's candles per delivery, by its own clock
// (docs/decisions.md#contract-type-codes). Which future the candles are is
// the server's word, never the browser's clock, which may be minutes off
// it: every KLine answer of a type code names its delivery, and so does the
// stream's state event, sent again before the first candle of the next
// future. A chart holds one future's candles: once the server names a later
// delivery, it loads the new future's, rather than drawing them after the
// old one's; and the candles it keeps in browser storage are named for
// their delivery, so that a visit after the next one does not draw the
// future delivered.

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

// laterFuture reports whether delivery, the one the server names in an
// answer or the stream's state (0: none), is later than the one of the
// future the chart holds: the chart's code names the next future now.
func (k *KLineChart) laterFuture(delivery int64) bool {
	return k.delivery != 0 && delivery > k.delivery
}

// nextFutureBegan reports whether the live candles fresh start at or after
// the delivery after the chart's newest candle, for periods whose candles
// start at each delivery: such a candle is the next future's, since the
// server names a series by its own clock and no candle starts after it.
// It needs no state event, so it holds whatever the order the candles and
// the state come in.
func (k *KLineChart) nextFutureBegan(fresh []venueapi.Candle) bool {
	if len(k.candles) == 0 || !venueapi.IsTypeCode(k.Contract) || !deliveryAligned(k.Period) {
		return false
	}
	held := lastDelivery(k.candles[len(k.candles)-1].ID)
	for _, c := range fresh {
		if lastDelivery(c.ID) > held {
			return true
		}
	}
	return false
}
