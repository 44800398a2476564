//go:build !js

package components

import (
	"fmt"
	"testing"
	"time"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/venueapi"
)

// A view seen before draws its kept candles at once, while the server's
// load (reload) is on its way, and the user may pan back or press Home in
// them: the chunk of older candles then asked for ends just before the
// kept chart's oldest candle. When the server's candles have replaced the
// kept ones meanwhile, or its answer failed or had none, that chunk no
// longer meets the candles held: it must not be drawn before them, where
// the candles in between would be missing with no gap on the time axis,
// nor read a first candle that is not there.
func TestAnOlderChunkAskedBeforeTheKeptChartIsNotDrawnBeforeTheServersCandles(t *testing.T) {
	m := venueapi.Period1Min
	start := int64(1_764_000_000)
	kept := run(m, start, LatestSize, "100") // the last visit's
	server := run(m, start+86400, LatestSize, "101")
	to := m.Prev(kept[0].ID)
	chunk := run(m, m.Back(to, venueapi.KLineMaxSize-1), venueapi.KLineMaxSize, "99") // the older chunk's answer
	for _, tc := range []struct {
		name    string
		answer  func(t *testing.T, k *KLineChart)
		want    []venueapi.Candle
		wantErr bool
	}{
		{"no answer yet: the chunk goes before the kept candles", nil, append(chunk[:len(chunk):len(chunk)], kept...), false},
		{"the server's candles came meanwhile", func(t *testing.T, k *KLineChart) {
			k.loaded(testContext(t), answerOf(t, k.Contract, m, 0, server), nil)
		}, server, false},
		{"the server had none", func(t *testing.T, k *KLineChart) {
			k.loaded(testContext(t), answerOf(t, k.Contract, m, 0, nil), nil)
		}, nil, false},
		{"the server's answer was an error", func(t *testing.T, k *KLineChart) {
			k.loaded(testContext(t), api.KLine{}, &api.AnswerError{Doing: "loading BTC-USDT candles", Status: 200, Code: 1040, Msg: "busy"})
		}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			k := drawnChart("BTC-USDT", m, nil)
			k.reload(ctx)
			k.candles, k.savedAt = kept, time.Now().Add(-24*time.Hour) // drawn from browser storage until the network answers
			k.loadOlder(ctx)                                           // Home, or a pan to the start
			if !k.older {
				t.Fatal("no older chunk asked for while the kept chart is on show")
			}
			if tc.answer != nil {
				tc.answer(t, k)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("the older chunk's answer panicked: %v", r)
					}
				}()
				k.olderLoaded(ctx, kept[0].ID, answerOf(t, k.Contract, m, 0, chunk), nil)
			}()
			if len(k.candles) != len(tc.want) {
				t.Fatalf("the chart holds %d candles (%s), want %d (%s)", len(k.candles), span(k.candles), len(tc.want), span(tc.want))
			}
			for i := 1; i < len(k.candles); i++ {
				if k.candles[i].ID != m.Next(k.candles[i-1].ID) {
					t.Fatalf("the candles skip from %s to %s: %d missing", at(k.candles[i-1].ID), at(k.candles[i].ID), m.Count(k.candles[i-1].ID, k.candles[i].ID)-2)
				}
			}
			if k.older {
				t.Error("still loading older candles")
			}
		})
	}
}

func at(id int64) string { return time.Unix(id, 0).UTC().Format(time.DateTime) }

func span(cs []venueapi.Candle) string {
	if len(cs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%s to %s", at(cs[0].ID), at(cs[len(cs)-1].ID))
}
