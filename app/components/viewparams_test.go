package components

import (
	"net/url"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestAViewReadsCodesAndPeriodsWhateverTheirCase(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		contract    string
		period      venueapi.Period
	}{
		{"a lower-case swap is the swap", "contract_code=eth-usdt", "ETH-USDT", venueapi.Period1Min},
		{"a mixed-case future with a type code", "contract_code=Btc-Usdt-cq&period=4hour", "BTC-USDT-CQ", venueapi.Period4Hour},
		{"an upper-case period is the venue's", "contract_code=ETH-USDT&period=1DAY", "ETH-USDT", venueapi.Period1Day},
		{"spaces around a pasted code are dropped", "contract_code=%20sol-usdt%20", "SOL-USDT", venueapi.Period1Min},
		{"a malformed code is the default", "contract_code=eth_usdt", "BTC-USDT", venueapi.Period1Min},
		{"a period the venue lacks is the default", "period=1week", "BTC-USDT", venueapi.Period1Min},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := ViewFromURL(&url.URL{RawQuery: tc.query})
			if v.Contract != tc.contract || v.Period != tc.period {
				t.Errorf("view %s %s, want %s %s", v.Contract, v.Period, tc.contract, tc.period)
			}
		})
	}
}

func TestViewNoticeSaysWhatWasAskedAndWhyItIsNotShown(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        []string // each in the notice; none: no notice
	}{
		{"no parameters", "", nil},
		{"a lower-case code is read, not refused", "contract_code=eth-usdt&period=5MIN", nil},
		{"a period the venue lacks", "period=1week", []string{"“1week” is not a period of the venue", "1mon", "showing 1min"}},
		{"a malformed code", "contract_code=ETH_USDT", []string{"“ETH_USDT” is not a contract code", "showing BTC-USDT"}},
		{"an impossible delivery date", "contract_code=BTC-USDT-261399", []string{"“BTC-USDT-261399” is not a contract code"}},
		{"both at once", "contract_code=x&period=2min", []string{"“x” is not a contract code", "“2min” is not a period"}},
		{"an empty code", "contract_code=", []string{"“” is not a contract code"}},
		{"a long paste is cut short", "period=" + strings.Repeat("a", 200), []string{strings.Repeat("a", 40) + "…”"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ViewNotice(&url.URL{RawQuery: tc.query})
			if len(tc.want) == 0 && got != "" {
				t.Errorf("notice %q, want none", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("notice %q lacks %q", got, w)
				}
			}
		})
	}
}
