package venueapi

import (
	"errors"
	"testing"
)

func TestLimitQueryCombinationsAgreeOnTheBusinessType(t *testing.T) {
	tests := []struct {
		name        string
		q           LimitQuery
		combination bool // refused as a combination, naming business_type
	}{
		{"a swap with no business type", LimitQuery{ContractCode: "BTC-USDT"}, false},
		{"a swap as a swap", LimitQuery{ContractCode: "BTC-USDT", BusinessType: BusinessSwap}, false},
		{"a swap among all", LimitQuery{ContractCode: "BTC-USDT", BusinessType: BusinessAll}, false},
		{"a swap as a future", LimitQuery{ContractCode: "BTC-USDT", BusinessType: BusinessFutures}, true},
		{"a future with no business type (rule 3)", LimitQuery{ContractCode: "BTC-USDT-261225"}, true},
		{"a future as a swap (rule 3)", LimitQuery{ContractCode: "BTC-USDT-261225", BusinessType: BusinessSwap}, true},
		{"a future as a future", LimitQuery{ContractCode: "BTC-USDT-261225", BusinessType: BusinessFutures}, false},
		{"the swap type as a future", LimitQuery{Pair: "BTC-USDT", ContractType: TypeSwap, BusinessType: BusinessFutures}, true},
		{"the swap type among all", LimitQuery{ContractType: TypeSwap, BusinessType: BusinessAll}, false},
		{"a future type as a swap (rule 3)", LimitQuery{Pair: "BTC-USDT", ContractType: TypeQuarter, BusinessType: BusinessSwap}, true},
		{"a future type among all", LimitQuery{Pair: "BTC-USDT", ContractType: TypeThisWeek, BusinessType: BusinessAll}, false},
		{"the code's kind wins over the type (rule 2)", LimitQuery{ContractCode: "BTC-USDT", ContractType: TypeQuarter}, false},
		{"the code's kind wins over the type, either way", LimitQuery{ContractCode: "BTC-USDT-261225", ContractType: TypeSwap, BusinessType: BusinessFutures}, false},
		{"a pair alone as a future", LimitQuery{Pair: "SOL-USDT", BusinessType: BusinessFutures}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.q.Validate()
			var ce *CombinationError
			var pe *ParamError
			switch {
			case !tt.combination && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.combination && (!errors.As(err, &ce) || !errors.As(err, &pe) || pe.Param != "business_type"):
				t.Fatalf("%v, want a CombinationError that is a ParamError naming business_type", err)
			case tt.combination:
				if _, perr := ParseLimitQuery(tt.q.Values()); !errors.As(perr, &ce) {
					t.Fatalf("ParseLimitQuery: %v, want the same refusal", perr)
				}
			}
		})
	}
}
