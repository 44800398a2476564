//go:build !js

package components

import (
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestPeriodPickerPressesThePeriodOnShowAlone(t *testing.T) {
	tests := []struct {
		name     string
		picker   PeriodPicker
		wantOpen string // the row's opening attributes
		wantNoID bool
	}{
		{"on the chart page", PeriodPicker{ID: "period-picker", Class: "chips", Period: venueapi.Period15Min}, `class="chips"`, false},
		{"in an embed, without an id", PeriodPicker{Class: "chips embed-controls", Period: venueapi.Period1Day}, `class="chips embed-controls"`, true},
		{"on 1hour, the 60min chip", PeriodPicker{ID: "period-picker", Class: "chips", Period: venueapi.Period1Hour}, `class="chips"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.picker
			_, html := render(t, &p)
			row := tagWith(t, html, `role="group"`)
			if !has(row, tt.wantOpen) || !has(row, `aria-label="Period"`) || strings.Contains(row, "id=") == tt.wantNoID {
				t.Fatalf("row %s", row)
			}
			if strings.Contains(html, `data-period="1hour"`) {
				t.Errorf("a chip for 1hour, the same series as 60min: %s", html)
			}
			for _, pr := range venueapi.Periods() {
				if pr == venueapi.Period1Hour {
					continue
				}
				chip := tagWith(t, html, `data-period="`+string(pr)+`"`)
				pressed := !has(chip, `aria-pressed="false"`) && has(chip, "aria-pressed")
				if pressed != (pr == p.Period.Canonical()) || !has(chip, `class="chip"`) {
					t.Errorf("chip %s: %s", pr, chip)
				}
			}
		})
	}
}
