//go:build !js

package components

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func TestLimitsTableDrawsTheLimitsOnShowAndTheFilter(t *testing.T) {
	d := decimal.RequireFromString
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	row := venueapi.PositionLimit{ContractCode: "BTC-USDT", BuyLimit: d("4000"), BuyLimitValue: d("380002"), SellLimit: d("3000"),
		SellLimitValue: d("285001.5"), LeverRate: 20, MarkPrice: d("95.0005")}
	tests := []struct {
		name     string
		table    LimitsTable
		want     []string
		wantNot  []string
		resetOff bool // the reset button is disabled
	}{
		{"loading, prerendered", LimitsTable{Contract: "BTC-USDT", Query: ownQuery("BTC-USDT")},
			[]string{"Showing contract BTC-USDT · business type swap.", "Loading…", "Show BTC-USDT"}, []string{"data-contract="}, true},
		{"the contract's own limits", LimitsTable{Contract: "BTC-USDT", Query: ownQuery("BTC-USDT"), Rows: []venueapi.PositionLimit{row},
			State: fetchState{dataAt: at}, Now: at},
			[]string{`data-contract="BTC-USDT"`, "4,000 cont", "380,002 USDT", "285,001.5 USDT", "20×", "95.0005", "Fetched "}, []string{`class="empty"`}, true},
		{"a filter that matches nothing", LimitsTable{Contract: "BTC-USDT", Filtered: true,
			Query: venueapi.LimitQuery{Pair: "DOGE-USDT", BusinessType: venueapi.BusinessFutures}, State: fetchState{dataAt: at}, Now: at},
			[]string{"No contract matches pair DOGE-USDT · business type futures.", `class="empty"`}, []string{"data-contract="}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := tt.table
			_, html := render(t, &tbl)
			says(t, html, tt.want, tt.wantNot)
			if reset := tagWith(t, html, `id="filter-reset"`); has(reset, "disabled") != tt.resetOff {
				t.Errorf("reset %s\n%s", reset, html)
			}
		})
	}
}
