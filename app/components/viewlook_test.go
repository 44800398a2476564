package components

import (
	"net/url"
	"testing"

	"github.com/riskchart/riskchart/app/chartopt"
)

func TestViewReadsAndWritesScaleAndStyle(t *testing.T) {
	tests := []struct {
		name, query string
		want        Look
		notice      string
		back        string // the query the view writes
	}{
		{"defaults are left out of the URL", "contract_code=BTC-USDT&period=1min&scale=linear&style=candles", Look{}, "",
			"contract_code=BTC-USDT&period=1min&tz=local"},
		{"log and hollow round-trip", "contract_code=BTC-USDT&period=1min&scale=log&style=hollow", Look{Scale: chartopt.ScaleLog, Kind: chartopt.KindHollow}, "",
			"contract_code=BTC-USDT&period=1min&scale=log&style=hollow&tz=local"},
		{"OHLC, line and area round-trip", "contract_code=BTC-USDT&period=1min&style=ohlc", Look{Kind: chartopt.KindOHLC}, "",
			"contract_code=BTC-USDT&period=1min&style=ohlc&tz=local"},
		{"percent and area round-trip", "contract_code=BTC-USDT&period=1min&scale=percent&style=area", Look{Scale: chartopt.ScalePercent, Kind: chartopt.KindArea}, "",
			"contract_code=BTC-USDT&period=1min&scale=percent&style=area&tz=local"},
		{"a bad scale is named, the style still drawn", "contract_code=BTC-USDT&period=1min&scale=foo&style=hollow", Look{Kind: chartopt.KindHollow},
			"Not shown: scale=foo (scale must be linear, log or percent).", "contract_code=BTC-USDT&period=1min&style=hollow&tz=local"},
		{"both bad, both named", "scale=Log&style=bars", Look{},
			"Not shown: scale=Log (scale must be linear, log or percent); style=bars (style must be candles, hollow, ohlc, line or area).", "contract_code=BTC-USDT&period=1min&tz=local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ViewFromURL(&url.URL{Path: "/", RawQuery: tt.query})
			if v.Look != tt.want || v.Notice != tt.notice {
				t.Errorf("look %+v notice %q", v.Look, v.Notice)
			}
			if got := v.Query(); got != tt.back {
				t.Errorf("query %q, want %q", got, tt.back)
			}
		})
	}
}
