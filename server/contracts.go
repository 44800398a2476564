package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// parseContracts reads a contract list: code:face_value:price_decimals,
// comma-separated, e.g. "BTC-USDT:0.001:1,ETH-USDT:0.01:2". Errors name the
// item and the rule; the configuration names the variable it came from.
func parseContracts(s string) ([]venueapi.Offer, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("must list at least one contract as code:face_value:price_decimals")
	}
	var out []venueapi.Offer
	seen := map[string]bool{}
	for i, item := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(item), ":")
		bad := func(rule string) error {
			return fmt.Errorf("item %d (%q) %s", i+1, item, rule)
		}
		if len(parts) != 3 {
			return nil, bad("must be code:face_value:price_decimals")
		}
		if _, err := venueapi.ParseContractCode(parts[0]); err != nil {
			return nil, bad(err.Error())
		}
		if seen[parts[0]] {
			return nil, bad("lists " + parts[0] + " more than once")
		}
		seen[parts[0]] = true
		face, err := decimal.NewFromString(parts[1])
		if err != nil || !face.IsPositive() {
			return nil, bad("face value must be a positive decimal")
		}
		dec, err := strconv.Atoi(parts[2])
		if err != nil || dec < 0 || dec > 12 {
			return nil, bad("price decimals must be an integer from 0 to 12")
		}
		out = append(out, venueapi.Offer{Code: parts[0], FaceValue: face, PriceDecimals: int32(dec)})
	}
	return out, nil
}

// defaultContracts is the built-in table of the common USDT swaps, offered
// for a real venue when RISKCHART_CONTRACTS is unset.
func defaultContracts() []venueapi.Offer {
	c, _ := parseContracts("BTC-USDT:0.001:1,ETH-USDT:0.01:2,SOL-USDT:1:3,XRP-USDT:10:4,DOGE-USDT:100:6,LTC-USDT:0.1:2") // a constant that parses
	return c
}

// contractsOf lists the sandbox's markets as the contracts the UI offers: a
// future by its contract-type code (BTC-USDT-CW, -NW, -CQ, -NQ), which names
// the current future of its type after every delivery
// (docs/decisions.md#contract-type-codes). The list is made once, at start:
// a dated code in it would name a delivered future, which the venue no
// longer lists, from the next Friday 08:00 UTC on.
func contractsOf(markets []sandbox.Market) []venueapi.Offer {
	out := make([]venueapi.Offer, 0, len(markets))
	for _, m := range markets {
		code := m.Code
		if m.Kind == venueapi.KindFuture {
			code = m.Pair() + "-" + venueapi.TypeCodeSuffix(m.Type)
		}
		out = append(out, venueapi.Offer{Code: code, FaceValue: m.FaceValue, PriceDecimals: m.PriceDecimals})
	}
	return out
}
