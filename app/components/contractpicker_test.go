//go:build !js

package components

import (
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestContractPickerListsTheServersContractsAndTheOneOnShow(t *testing.T) {
	offers := []venueapi.Offer{{Code: "BTC-USDT"}, {Code: "ETH-USDT"}}
	tests := []struct {
		name     string
		contract string
		want     []string // option values, in order
	}{
		{"a listed contract is chosen in place", "ETH-USDT", []string{"BTC-USDT", "ETH-USDT"}},
		{"an unlisted one is added last", "BTC-USDT-CQ", []string{"BTC-USDT", "ETH-USDT", "BTC-USDT-CQ"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, html := render(t, &ContractPicker{Contracts: offers, Contract: tt.contract})
			if sel := tagWith(t, html, `id="contract-select"`); !has(sel, `class="control"`) {
				t.Fatalf("select %s", sel)
			}
			var got []string
			for _, part := range strings.Split(html, "<option")[1:] {
				opt := tagWith(t, "<option"+part, "<option")
				v := opt[strings.Index(opt, `value="`)+len(`value="`):]
				v = v[:strings.Index(v, `"`)]
				got = append(got, v)
				if has(opt, "selected") != (v == tt.contract) {
					t.Errorf("option %s", opt)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("options %v, want %v", got, tt.want)
			}
		})
	}
}

func TestContractEntryPrerendersAnEmptyField(t *testing.T) {
	_, html := render(t, &ContractEntry{Contract: "BTC-USDT"})
	if in := tagWith(t, html, `id="contract-input"`); strings.Contains(in, "value=") || !has(in, `aria-describedby="contract-error"`) {
		t.Fatalf("field %s", in)
	}
}
