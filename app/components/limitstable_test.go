package components

import (
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestOwnQueryFollowsTheEndpointsRules(t *testing.T) {
	tests := []struct {
		code string
		want venueapi.LimitQuery
	}{
		{"BTC-USDT", venueapi.LimitQuery{ContractCode: "BTC-USDT"}},
		{"BTC-USDT-260327", venueapi.LimitQuery{ContractCode: "BTC-USDT-260327", BusinessType: venueapi.BusinessFutures}},
		{"ETH-USDT-CQ", venueapi.LimitQuery{Pair: "ETH-USDT", ContractType: venueapi.TypeQuarter, BusinessType: venueapi.BusinessFutures}},
		{"BTC-USDT-NW", venueapi.LimitQuery{Pair: "BTC-USDT", ContractType: venueapi.TypeNextWeek, BusinessType: venueapi.BusinessFutures}},
	}
	for _, tt := range tests {
		t.Run("the limits of "+tt.code, func(t *testing.T) {
			got := ownQuery(tt.code)
			if got != tt.want {
				t.Fatalf("query %+v, want %+v", got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("the query breaks the endpoint's rules: %v", err)
			}
		})
	}
	if err := ownQuery("btc usdt").Validate(); err == nil {
		t.Error("a malformed code makes a valid query")
	}
}

func TestDescribeQueryAndPrecedence(t *testing.T) {
	tests := []struct {
		name string
		q    venueapi.LimitQuery
		desc string
		note bool
	}{
		{"a contract code alone", venueapi.LimitQuery{ContractCode: "BTC-USDT"}, "contract BTC-USDT · business type swap", false},
		{"pair and type", venueapi.LimitQuery{Pair: "BTC-USDT", ContractType: venueapi.TypeQuarter, BusinessType: venueapi.BusinessFutures},
			"pair BTC-USDT · contract type quarter · business type futures", false},
		{"a contract code wins over pair and type", venueapi.LimitQuery{ContractCode: "ETH-USDT", Pair: "BTC-USDT", ContractType: venueapi.TypeSwap},
			"contract ETH-USDT · business type swap", true},
		{"nothing asks for every swap", venueapi.LimitQuery{}, "business type swap", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeQuery(tt.q); got != tt.desc {
				t.Errorf("described as %q, want %q", got, tt.desc)
			}
			if note := precedenceNote(tt.q); (note != "") != tt.note || tt.note && !strings.Contains(note, tt.q.ContractCode) {
				t.Errorf("note %q, want one: %v", note, tt.note)
			}
		})
	}
}

func TestFilterFieldNamesTheParameter(t *testing.T) {
	tests := []struct {
		q    venueapi.LimitQuery
		want string
	}{
		{venueapi.LimitQuery{Pair: "BTC-USDT", ContractType: venueapi.TypeQuarter}, "business_type"},
		{venueapi.LimitQuery{ContractCode: "BTC-USDT-260327", BusinessType: venueapi.BusinessSwap}, "business_type"},
		{venueapi.LimitQuery{ContractType: "monthly"}, "contract_type"},
		{venueapi.LimitQuery{Pair: "BTCUSDT"}, "pair"},
		{venueapi.LimitQuery{ContractCode: "BTC-USDT-CQ"}, "contract_code"},
	}
	for _, tt := range tests {
		err := tt.q.Validate()
		if got := filterField(err); got != tt.want {
			t.Errorf("%+v: error %v is about %q, want %q", tt.q, err, got, tt.want)
		}
	}
}
