package components

import (
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// A chart's candles are one unbroken run. Its live updates carry only the
// newest candles: a stream opens with the current candle and the one
// before it, and a poll asks for the newest two. After the computer slept,
// the network was lost, or a stream was opened again without the id of its
// last event, the first of them can start past the candle that follows the
// chart's newest. Drawn as they came, the candles in between would be
// missing, and the time axis, one slot per candle, would not show the gap.
// The chart fetches the missed candles first, then draws the live ones.

// chartGap is a fetch of missed candles under way.
type chartGap struct {
	filling bool
	held    []venueapi.Candle // live candles that came meanwhile, drawn after the missed ones
	lost    bool              // more candles began meanwhile than are held: the oldest went
}

// heldMost bounds the candles held while the missed ones (or the chart's
// own) load: each holds a whole candle, and only the newest matter.
const heldMost = 16

// holdLive adds live candles to those held, a candle already held taking
// the place of its older version (a stream pushes every change of the
// current candle, and a poll asks for the one before it too), so that
// repeats of one candle never push out another. Past most candles the
// oldest go, and lost says so.
func holdLive(held, fresh []venueapi.Candle, most int) (_ []venueapi.Candle, lost bool) {
	for _, c := range fresh {
		i := len(held) - 1
		for i >= 0 && held[i].ID != c.ID {
			i--
		}
		if i >= 0 {
			held[i] = c
			continue
		}
		held = append(held, c)
	}
	if n := len(held); n > most {
		held, lost = append(held[:0:0], held[n-most:]...), true
	}
	return held, lost
}

// missed returns the ids, inclusive, of the candles of period p between the
// chart's newest candle and the first candle of fresh newer than it; ok is
// false when fresh follows on from newest (or has nothing newer).
func missed(p venueapi.Period, newest int64, fresh []venueapi.Candle) (from, to int64, ok bool) {
	for _, c := range fresh {
		if c.ID <= newest {
			continue
		}
		if next := p.Next(newest); c.ID > next {
			return next, p.Prev(c.ID), true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

// takeLive draws live candles (applyLive), after fetching the candles the
// chart missed before them, if any.
func (k *KLineChart) takeLive(ctx app.Context, fresh []venueapi.Candle) {
	if k.nextFutureBegan(fresh) {
		// A type code's next future: its candles, not after the old one's.
		k.reload(ctx)
		return
	}
	if k.gap.filling {
		var lost bool
		k.gap.held, lost = holdLive(k.gap.held, fresh, heldMost)
		k.gap.lost = k.gap.lost || lost
		return
	}
	from, to, ok := missed(k.Period, k.candles[len(k.candles)-1].ID, fresh)
	if !ok {
		k.applyLive(fresh)
		return
	}
	if k.Period.Count(from, to) > venueapi.KLineMaxSize {
		// More than one request gives: the latest candles again, as when
		// the chart opened.
		k.reload(ctx)
		return
	}
	k.gap = chartGap{filling: true, held: slices.Clone(fresh)} // holdLive replaces candles in place
	k.fetchRange(ctx, from, to, func(ctx app.Context, res api.KLine, err error) {
		held, lost := k.gap.held, k.gap.lost
		k.gap = chartGap{}
		if lost {
			// Candles began and went while the missed ones loaded: the
			// held ones no longer follow on from them.
			k.reload(ctx)
			return
		}
		if err != nil {
			// The live candles wait with the rest: the next one asks again,
			// after the poll's backoff.
			k.stale = true
			k.pollFailed(err)
			browser.Warn("the candles the chart missed did not load", "from", from, "to", to, "err", err)
			return
		}
		// The venue's answer, even with none (a span it has no candles for),
		// then the live candles, newest last.
		k.applyLive(append(res.Candles, held...))
		k.pollBack = pollBackoff{}
	})
}
