//go:build !js

package components

import (
	"testing"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// Where streams have not delivered, the chart polls and opens a stream now
// and then to try again (livestatus.go); such a stream may be open, not yet
// delivering, when the user switches to another contract or period. Its
// candles are the series left's: once it delivers, they must never be
// drawn on the series then shown, whether they come while that one loads or
// after.
func TestAStreamTriedWhilePollingIsNotTheNextSeriesStream(t *testing.T) {
	m, h := venueapi.Period1Min, venueapi.Period1Hour
	hour := int64(1_764_000_000) - int64(1_764_000_000)%3600
	for _, tc := range []struct {
		name         string
		contract     string
		p            venueapi.Period
		held         []venueapi.Candle // the next series' answer
		left         venueapi.Candle   // the current BTC-USDT 1min candle the stream pushes
		whileLoading bool
	}{
		{"another period, pushed after it loaded", "BTC-USDT", h, run(h, hour-9*3600, 10, "100"), candleAt(hour+300, "99"), false},
		{"another period, pushed while it loaded", "BTC-USDT", h, run(h, hour-9*3600, 10, "100"), candleAt(hour+300, "99"), true},
		{"another contract, pushed after it loaded", "ETH-USDT", m, run(m, hour-540, 10, "3000"), candleAt(hour, "99"), false},
		{"another contract, pushed while it loaded", "ETH-USDT", m, run(m, hour-540, 10, "3000"), candleAt(hour, "99"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			k := drawnChart("BTC-USDT", m, run(m, hour-540, 10, "100"))
			k.feed.mode = feedPolling         // streams have not delivered here
			k.source = &browser.EventSource{} // the one tried now, open, of BTC-USDT 1min
			gen, ch := k.sourceGen, venueapi.Channel(k.Contract, k.Period)
			// Its events reach the chart as openStream's handlers pass them:
			// while no other stream has opened or closed since.
			push := func(c venueapi.Candle) {
				if gen == k.sourceGen {
					k.pushed(ctx, ch, `{"ch":"`+ch+`",`+string(c.AppendJSON(nil)[1:]))
				}
			}
			k.Contract, k.Period = tc.contract, tc.p
			k.reload(ctx)
			if tc.whileLoading {
				push(tc.left)
			}
			k.loaded(ctx, answerOf(t, tc.contract, tc.p, 0, tc.held), nil)
			if !tc.whileLoading {
				push(tc.left)
			}
			if len(k.candles) != len(tc.held) {
				t.Fatalf("%s %s holds %d candles, want its own %d", tc.contract, tc.p, len(k.candles), len(tc.held))
			}
			for i, c := range k.candles {
				if !c.Equal(tc.held[i]) {
					t.Fatalf("%s %s candle %d is %v, want its own %v: the stream of BTC-USDT 1min was drawn on it", tc.contract, tc.p, i, c, tc.held[i])
				}
			}
		})
	}
}
