//go:build !js

package components

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

func TestNextThemeCyclesAutoLightDark(t *testing.T) {
	th := "auto"
	var seen []string
	for range 6 {
		th = NextTheme(th)
		seen = append(seen, th)
	}
	if got := strings.Join(seen, " "); got != "light dark auto light dark auto" {
		t.Errorf("themes %q", got)
	}
}

// The controls are GET forms holding the rest of the view, so that a click
// before the app runs navigates to the view it names.
func TestViewControlsAreFormsToTheViewTheyName(t *testing.T) {
	v := View{Contract: "ETH-USDT", Period: venueapi.Period15Min, UTC: true, Theme: "dark"}
	tests := []struct {
		name    string
		c       app.Composer
		control string   // a marker of the control that sets the field
		sets    []string // attributes the control carries
		hidden  []string // hidden fields (name=value) the form must hold
		absent  string   // the hidden field the form must not hold
	}{
		{"the period chips", &PeriodPicker{ID: "period-picker", Period: v.Period, View: &v}, `data-period="4hour"`,
			[]string{`type="submit"`, `name="period"`, `value="4hour"`},
			[]string{"contract_code=ETH-USDT", "tz=utc", "theme=dark"}, `name="period"`},
		{"the theme toggle, from dark to auto", &ThemeToggle{View: v}, `id="theme-toggle"`,
			[]string{`type="submit"`, `name="theme"`, `value="auto"`},
			[]string{"contract_code=ETH-USDT", "period=15min", "tz=utc"}, `name="theme"`},
		{"the zone toggle, from UTC to local", &ZoneToggle{View: v}, `id="tz-toggle"`,
			[]string{`type="submit"`, `name="tz"`, `value="local"`},
			[]string{"contract_code=ETH-USDT", "period=15min", "theme=dark"}, `name="tz"`},
		{"the contract entry", &ContractEntry{Contract: v.Contract, View: v}, `id="contract-input"`,
			[]string{`name="contract_code"`},
			[]string{"period=15min", "tz=utc", "theme=dark"}, `name="contract_code"`},
		{"the contract list", &ContractPicker{Contract: v.Contract, View: v}, `id="contract-select"`,
			[]string{`name="contract_code"`},
			[]string{"period=15min", "tz=utc", "theme=dark"}, `name="contract_code"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, html := render(t, tt.c)
			form := tagWith(t, html, `<form`)
			if !has(form, `method="get"`) || !has(form, `action="/"`) {
				t.Errorf("form %s", form)
			}
			control := tagWith(t, html, tt.control)
			for _, a := range tt.sets {
				if !has(control, a) {
					t.Errorf("control lacks %s: %s", a, control)
				}
			}
			var hidden []string // name=value
			for _, field := range strings.Split(html, "<input")[1:] {
				field = field[:strings.Index(field, ">")]
				if !has(field, `type="hidden"`) {
					continue
				}
				if has(field, tt.absent) {
					t.Errorf("the form holds %s, which its control sets: %s", tt.absent, html)
				}
				for _, h := range tt.hidden {
					name, value, _ := strings.Cut(h, "=")
					if has(field, `name="`+name+`"`) && has(field, `value="`+value+`"`) {
						hidden = append(hidden, h)
					}
				}
			}
			if len(hidden) != len(tt.hidden) {
				t.Errorf("hidden fields %q, want %q in %s", hidden, tt.hidden, html)
			}
		})
	}
}
