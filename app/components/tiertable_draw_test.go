//go:build !js

package components

import (
	"fmt"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestTierTableDrawsTheLadderInItsOrderAndMarksTheCalculatorsTier(t *testing.T) {
	tests := []struct {
		name     string
		sortBy   string
		desc     bool
		current  venueapi.TierNumber
		rows     string // data-tier of the rows, in order
		ariaSort string // the sorted column's button
	}{
		{"prerendered: by tier, which the tier column says", "", false, 2, "123", `data-sort="tier"`},
		{"by leverage, descending", sortLever, true, 0, "123", `data-sort="lever"`},
		{"by band: the open top last", sortBand, false, 3, "123", `data-sort="band"`},
		{"by rate, descending", sortRate, true, 1, "321", `data-sort="rate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := &TierTable{Contract: "BTC-USDT", Tiers: openLadder, Current: tt.current}
			tbl.sortBy, tbl.sortDesc = tt.sortBy, tt.desc
			_, html := render(t, tbl)
			rows := ""
			for _, part := range strings.Split(html, `data-tier="`)[1:] {
				rows += part[:strings.Index(part, `"`)]
			}
			if rows != tt.rows {
				t.Fatalf("rows %s, want %s", rows, tt.rows)
			}
			for n := 1; n <= 3; n++ {
				tr := tagWith(t, html, fmt.Sprintf(`data-tier="%d"`, n))
				if marked := has(tr, `class="current"`) && has(tr, "aria-current"); marked != (venueapi.TierNumber(n) == tt.current) {
					t.Errorf("row %d: %s", n, tr)
				}
			}
			want := map[bool]string{false: "ascending", true: "descending"}[tt.desc]
			if got := strings.Count(html, `aria-sort="none"`); got != 3 {
				t.Fatalf("%d columns unsorted, want 3\n%s", got, html)
			}
			i := strings.Index(html, `aria-sort="`+want+`"`)
			if i < 0 {
				t.Fatalf("no column %s\n%s", want, html)
			}
			if j := strings.Index(html[i:], `data-sort="`); j < 0 || !strings.HasPrefix(html[i+j:], tt.ariaSort) {
				t.Fatalf("the column marked %s is not the one of %s\n%s", want, tt.ariaSort, html)
			}
			if !strings.Contains(html, `id="tiers-note"`) || strings.Contains(html, `id="tiers-invalid"`) {
				t.Fatalf("note or ladder error wrong\n%s", html)
			}
		})
	}
}

func TestTierTableSaysWhyThereIsNoLadder(t *testing.T) {
	_, html := render(t, &TierTable{Contract: "BTC-USDT-CQ"})
	if !strings.Contains(html, "The venue publishes risk-limit tiers for swaps; BTC-USDT-CQ is not one.") || strings.Contains(html, "tier-table") {
		t.Fatalf("a future's table:\n%s", html)
	}
	_, html = render(t, &TierTable{Contract: "BTC-USDT", Tiers: openLadder, LadderErr: "two tiers overlap"})
	if !strings.Contains(html, `id="tiers-invalid"`) || !strings.Contains(html, "so the calculator will not use them: two tiers overlap") {
		t.Fatalf("a broken ladder:\n%s", html)
	}
}
