package pages

import (
	"net/url"
	"testing"
)

func TestRiskPageContract(t *testing.T) {
	tests := []struct {
		query, want string
		wantErr     bool
	}{
		{"", "BTC-USDT", false},
		{"contract_code=ETH-USDT", "ETH-USDT", false},
		{"contract_code=BTC-USDT-CQ", "BTC-USDT-CQ", false},
		{"contract_code=btc-usdt-cq", "BTC-USDT-CQ", false},
		{"contract_code=Eth-Usdt", "ETH-USDT", false},
		{"contract_code=btc", "", true},
	}
	for _, tt := range tests {
		got, err := riskPageContract(&url.URL{Path: "/tiers", RawQuery: tt.query})
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("?%s: %q, %v; want %q (error %v)", tt.query, got, err, tt.want, tt.wantErr)
		}
	}
}
