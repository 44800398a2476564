package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestParseContracts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // code:face:decimals, or nil for an error naming the rule
		rule     string
	}{
		{"two swaps", "BTC-USDT:0.001:1,ETH-USDT:0.01:2", []string{"BTC-USDT:0.001:1", "ETH-USDT:0.01:2"}, ""},
		{"spaces around items", " BTC-USDT:0.001:1 , SOL-USDT:1:3 ", []string{"BTC-USDT:0.001:1", "SOL-USDT:1:3"}, ""},
		{"a contract-type code and a dated future", "BTC-USDT-CQ:0.001:1,BTC-USDT-270326:0.001:1", []string{"BTC-USDT-CQ:0.001:1", "BTC-USDT-270326:0.001:1"}, ""},
		{"empty", "", nil, "at least one"},
		{"a missing field", "BTC-USDT:0.001", nil, "code:face_value:price_decimals"},
		{"a lower-case code", "btc-usdt:0.001:1", nil, "upper-case"},
		{"a negative face value", "BTC-USDT:-1:1", nil, "positive decimal"},
		{"a zero face value", "BTC-USDT:0:1", nil, "positive decimal"},
		{"a face value that is not a number", "BTC-USDT:abc:1", nil, "positive decimal"},
		{"decimals that are not a number", "BTC-USDT:0.1:x", nil, "price decimals"},
		{"too many decimals", "BTC-USDT:0.1:40", nil, "price decimals"},
		{"a code twice", "BTC-USDT:0.001:1,BTC-USDT:0.001:2", nil, "more than once"},
		{"an empty item", "BTC-USDT:0.001:1,,ETH-USDT:0.01:2", nil, "code:face_value:price_decimals"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseContracts(tc.in)
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), tc.rule) {
					t.Fatalf("error %v, want one naming %q", err, tc.rule)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("%v %v", got, err)
			}
			for i, c := range got {
				if s := c.Code + ":" + c.FaceValue.String() + ":" + strconv.Itoa(int(c.PriceDecimals)); s != tc.want[i] {
					t.Errorf("contract %d is %s, want %s", i, s, tc.want[i])
				}
			}
		})
	}
}

func TestAMalformedContractListNamesItsVariable(t *testing.T) {
	_, err := parseConfig("riskchart", nil, func(k string) string {
		return map[string]string{"RISKCHART_CONTRACTS": "BTC-USDT:0:1"}[k]
	}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "RISKCHART_CONTRACTS: item 1") || !strings.Contains(err.Error(), "positive decimal") {
		t.Fatalf("error %v, want one naming RISKCHART_CONTRACTS, the item and the rule", err)
	}
}

func TestTheDefaultContractsAreValid(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range defaultContracts() {
		if _, err := venueapi.ParseContractCode(c.Code); err != nil || !c.FaceValue.IsPositive() || seen[c.Code] {
			t.Errorf("%+v: %v", c, err)
		}
		seen[c.Code] = true
	}
	if !seen["BTC-USDT"] || !seen["ETH-USDT"] {
		t.Fatalf("the common swaps are missing: %v", seen)
	}
}

func FuzzParseContracts(f *testing.F) {
	for _, s := range []string{"BTC-USDT:0.001:1,ETH-USDT:0.01:2", "", "a:b:c", "BTC-USDT:1e-3:1", ",,,", "BTC-USDT:0.001:1,BTC-USDT:1:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseContracts(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "item ") && !strings.HasPrefix(err.Error(), "must list") {
				t.Fatalf("error %q names neither the item nor the rule", err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatal("no contracts and no error")
		}
		for _, c := range got {
			if _, err := venueapi.ParseContractCode(c.Code); err != nil || !c.FaceValue.IsPositive() || c.PriceDecimals < 0 || c.PriceDecimals > 12 {
				t.Fatalf("accepted %+v", c)
			}
		}
	})
}
