package pages

import (
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestPriceDecimalsIsTheListedContractsOrMinusOne(t *testing.T) {
	list := []venueapi.Offer{{Code: "BTC-USDT", PriceDecimals: 1}, {Code: "ETH-USDT", PriceDecimals: 2}, {Code: "SHIB-USDT", PriceDecimals: 8}}
	for _, tc := range []struct {
		list []venueapi.Offer
		code string
		want int32
	}{
		{list, "ETH-USDT", 2},
		{list, "SHIB-USDT", 8},
		{list, "DOGE-USDT", -1}, // not listed: the venue's digits
		{nil, "BTC-USDT", -1},   // the list has not come
	} {
		if got := priceDecimals(tc.list, tc.code); got != tc.want {
			t.Errorf("priceDecimals(%d contracts, %q) = %d, want %d", len(tc.list), tc.code, got, tc.want)
		}
	}
}
