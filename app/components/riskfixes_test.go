//go:build !js

package components

import (
	"html"
	"strings"
	"testing"
)

func TestTierTableNamesItsUnitAndTheMaintenanceAmounts(t *testing.T) {
	tests := []struct {
		name      string
		table     TierTable
		want, not []string
	}{
		{"a contract ladder: unit in the headers, amounts in contracts",
			TierTable{Contract: "BTC-USDT", Tiers: openLadder, Calculator: true},
			// amount_2 = 5200 × (0.005 − 0.004) = 5.2; amount_3 = 5.2 + 21000 × 0.005 = 110.2
			[]string{"Position band (cont)", "Maint. amount (cont)", ">5.2<", ">110.2<", ">0 – 5,200<", "Highlighted: the tier of the calculator"}, nil},
		{"without the calculator, nothing is said to be highlighted",
			TierTable{Contract: "BTC-USDT", Tiers: openLadder},
			[]string{"Position band (cont)"}, []string{"Highlighted"}},
		{"no access: the message, no table",
			TierTable{Contract: "BTC-USDT", State: fetchState{noAccess: true, err: "no"}},
			[]string{"not available here"}, []string{"<table", "<th"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := tt.table
			_, out := render(t, &tbl)
			out = html.UnescapeString(out)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out, w) {
					t.Errorf("%q in\n%s", w, out)
				}
			}
		})
	}
}

func TestLimitsTableWithoutAccessDrawsNoEmptyTable(t *testing.T) {
	_, out := render(t, &LimitsTable{Contract: "BTC-USDT", State: fetchState{noAccess: true}})
	if strings.Contains(out, "<table") || strings.Contains(out, "<th") || !strings.Contains(out, "not available here") {
		t.Fatalf("no-access limits:\n%s", out)
	}
}

func TestCalculatorSaysAnUnknownContractAsThePanelsDo(t *testing.T) {
	_, out := render(t, &Calculator{Contract: "ABC-USDT", Unknown: true})
	if want := html.EscapeString(unknownContractText("ABC-USDT")); !strings.Contains(out, want) || strings.Contains(out, "waiting") {
		t.Fatalf("no %q in\n%s", want, out)
	}
}
