package pages

import (
	"net/url"
	"testing"
)

// TiersOf reads a page's ladder as the page itself does: its route, its
// default contract and letter case, and an embed's link.
func TestTiersOfReadsThePagesOwnContract(t *testing.T) {
	tests := []struct {
		url    string
		want   TiersShown
		wantOK bool
	}{
		{"/", TiersShown{Contract: "BTC-USDT"}, true},
		{"/?contract_code=eth-usdt&period=5min", TiersShown{Contract: "ETH-USDT"}, true},
		{"/?contract_code=eth-usdt&tz=utc", TiersShown{Contract: "ETH-USDT", UTC: true}, true},
		{"/tiers", TiersShown{Contract: "BTC-USDT"}, true},
		{"/tiers?contract_code=Eth-Usdt", TiersShown{Contract: "ETH-USDT"}, true},
		{"/tiers?contract_code=ETH-USDT&tz=utc", TiersShown{Contract: "ETH-USDT", UTC: true}, true},
		{"/tiers?contract_code=btc", TiersShown{}, false},
		{"/limits?contract_code=ETH-USDT", TiersShown{}, false},
		{"/embed/tiers?contract_code=eth-usdt&embed=a.b", TiersShown{Contract: "ETH-USDT", Embedded: true, EmbedLink: "a.b"}, true},
		{"/embed/tiers", TiersShown{Contract: "BTC-USDT", Embedded: true}, true},
		{"/embed/tiers?tz=utc", TiersShown{Contract: "BTC-USDT", Embedded: true, UTC: true}, true},
		{"/embed/limits?contract_code=ETH-USDT&embed=a.b", TiersShown{}, false},
		{"/embed/chart?contract_code=ETH-USDT", TiersShown{}, false},
		{"/login", TiersShown{}, false},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := TiersOf(u)
		if ok != tt.wantOK || ok && got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v, %v", tt.url, got, ok, tt.want, tt.wantOK)
		}
	}
}
