//go:build !js

package components

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// The filter's code field suggests only codes the position limits take as a
// contract_code: a contract-type code, which the contract picker offers for
// a future, is refused there (docs/decisions.md#contract-type-codes).
func TestTheLimitFilterSuggestsNoContractTypeCode(t *testing.T) {
	offered := []venueapi.Offer{{Code: "BTC-USDT"}, {Code: "BTC-USDT-CW"}, {Code: "BTC-USDT-261225"}, {Code: "ETH-USDT-NQ"}}
	var got []string
	for _, o := range codeOptions(offered) {
		html := app.HTMLString(o)
		got = append(got, html)
		if strings.Contains(html, "-CW") || strings.Contains(html, "-NQ") {
			t.Errorf("the code field suggests %s, a contract-type code", html)
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], `"BTC-USDT"`) || !strings.Contains(got[1], `"BTC-USDT-261225"`) {
		t.Errorf("the code field suggests %q, want BTC-USDT and BTC-USDT-261225", got)
	}
}
