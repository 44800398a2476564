//go:build !js

package components

import (
	"testing"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// The price axis' least interval is the contract's tick (chartopt.PriceStep,
// docs/architecture.md): a chart that switches to a contract of other
// decimals must hand the new tick to the axis, or a coin quoted to 5
// decimals after one quoted in whole USDT is split no finer than 1, and its
// narrow range gets no labels at all.
func TestASwitchToAContractOfOtherDecimalsGivesTheAxisItsTick(t *testing.T) {
	m := venueapi.Period1Min
	hour := int64(1_764_000_000) - int64(1_764_000_000)%3600
	for _, tc := range []struct {
		name       string
		from, to   string
		fromD, toD int32
		held       []venueapi.Candle // the next contract's answer
	}{
		{"whole USDT to five decimals", "ONE-USDT", "DOGE-USDT", 0, 5, run(m, hour-540, 10, "0.15")},
		{"five decimals to one", "DOGE-USDT", "BTC-USDT", 5, 1, run(m, hour-540, 10, "90000")},
		{"decimals unknown to two", "BTC-USDT", "ETH-USDT", -1, 2, run(m, hour-540, 10, "3000")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			k := drawnChart(tc.from, m, run(m, hour-540, 10, "100"))
			k.Decimals = tc.fromD
			k.attachAxes() // as the chart's frame was set
			k.loadAll()
			if got, want := k.chart.PriceStep(), chartopt.PriceStep(tc.fromD); got != want {
				t.Fatalf("%s: the axis' step is %v, want %v", tc.from, got, want)
			}
			k.Contract, k.Decimals = tc.to, tc.toD // as the page hands them, together
			k.reload(ctx)
			k.loaded(ctx, answerOf(t, tc.to, m, 0, tc.held), nil)
			if got, want := k.chart.PriceStep(), chartopt.PriceStep(tc.toD); got != want {
				t.Fatalf("after switching %s (%d decimals) to %s (%d decimals), the price axis' least interval is %v, want the new tick %v",
					tc.from, tc.fromD, tc.to, tc.toD, got, want)
			}
		})
	}
}
