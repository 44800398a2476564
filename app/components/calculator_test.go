//go:build !js

package components

import (
	"html"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

func TestCalculatorSaysWhatItWaitsFor(t *testing.T) {
	ladder, err := risk.NewLadder(openLadder)
	if err != nil {
		t.Fatal(err)
	}
	offers := []venueapi.Offer{{Code: "BTC-USDT", FaceValue: decimal.RequireFromString("0.001")}}
	tests := []struct {
		name string
		calc Calculator
		want string
	}{
		{"the tiers", Calculator{Contract: "BTC-USDT"}, "waiting for the tiers"},
		{"tiers it may not see", Calculator{Contract: "BTC-USDT", TiersDenied: true}, "it needs the tiers, and this server gives no access to them"},
		{"a broken ladder", Calculator{Contract: "BTC-USDT", LadderErr: "gap"}, "the venue's tiers do not form a ladder"},
		{"the face value", Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder}, "waiting for the face value of BTC-USDT"},
		{"a face value never listed", Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder, Contracts: []venueapi.Offer{}},
			"the server lists no face value for BTC-USDT"},
		{"the mark price", Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder, Contracts: offers},
			"waiting for the mark price (your position limits)"},
		{"limits it may not see", Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder, Contracts: offers, LimitsDenied: true},
			"it needs a price: the mark price comes with your position limits, which this page has no access to; type an entry price to reckon at it"},
		{"tiers that failed to load", Calculator{Contract: "BTC-USDT", TiersErr: "HTTP 502"},
			"the tiers could not be loaded (HTTP 502); they are asked for again in a few seconds"},
		{"limits that failed to load", Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder, Contracts: offers, LimitsErr: "offline"},
			"the mark price (your position limits) could not be loaded (offline); it is asked for again shortly, or type an entry price to reckon at it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.calc
			_, out := render(t, &c)
			if want := html.EscapeString("The calculator cannot answer: " + tt.want + "."); !strings.Contains(out, want) {
				t.Fatalf("no %q in\n%s", want, out)
			}
		})
	}
}

func TestCalculatorAnswersOnceTheDataLandsAndTellsItsTier(t *testing.T) {
	d := decimal.RequireFromString
	ladder, err := risk.NewLadder(openLadder)
	if err != nil {
		t.Fatal(err)
	}
	var told []venueapi.TierNumber
	onTier := func(ctx app.Context, n venueapi.TierNumber) { told = append(told, n) }
	fields := Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder,
		Contracts: []venueapi.Offer{{Code: "BTC-USDT", FaceValue: d("0.001")}}, OnTier: onTier}
	c := fields
	c.size, c.unit, c.leverage = "6000", risk.Contracts, "10" // as typed, and the defaults of a mounted one
	e, html := render(t, &c)
	if !strings.Contains(html, "waiting for the mark price") || len(told) != 0 {
		t.Fatalf("before the limits: told %v\n%s", told, html)
	}

	// The limits land: the parent hands them over.
	next := fields
	next.Limit = &venueapi.PositionLimit{ContractCode: "BTC-USDT", LeverRate: 20, MarkPrice: d("95000"),
		BuyLimit: d("10000"), BuyLimitValue: d("950000"), SellLimit: d("5000"), SellLimitValue: d("475000")}
	if err := e.Load(&next); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	html = app.HTMLString(&c)
	if c.leverage != "20" {
		t.Errorf("leverage %q: the account's (20) is taken until one is typed", c.leverage)
	}
	if len(told) != 1 || told[0] != 2 {
		t.Errorf("told %v, want [2]", told)
	}
	for _, want := range []string{
		"2 (5,200 – 21,000 cont)",
		"6,000 cont · 570,000 USDT at mark 95,000",
		// (6000 × 0.005 − 5.2 cont, tier 2's amount) × 0.001 × 95000 = 2356, not 6000 × 95 × 0.005 = 2850
		"2,356 USDT",
		"28,500 USDT", // 570000 / 20
		"fits at 20× (limit 10,000 cont: your limit)",
		"exceeds the limit at 20× of 5,000 cont (your limit)",
		// (570000 − 28500) / (0.001 × (6000 − 30 + 5.2)) = 90624.6…, up to a whole USDT as the offer has no price decimals
		"Long: 90,625",
		"Short: 99,339",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("no %q", want)
		}
	}
	if t.Failed() {
		t.Log(html)
	}

	// The same data again: nothing new to tell.
	again := next
	if err := e.Load(&again); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	if len(told) != 1 {
		t.Fatalf("told %v: the tier did not change", told)
	}
}

// TestATypedEntryPriceStandsInForTheMarkPrice: where the account's limits,
// which carry the mark price, are not to be had (a tiers-only embed link,
// a server without the account's key, a failed fetch, or not landed yet),
// the calculator answers at a typed entry price and says so; the limits,
// once they land, bring the mark price back.
func TestATypedEntryPriceStandsInForTheMarkPrice(t *testing.T) {
	d := decimal.RequireFromString
	ladder, err := risk.NewLadder(openLadder)
	if err != nil {
		t.Fatal(err)
	}
	offers := []venueapi.Offer{{Code: "BTC-USDT", FaceValue: d("0.001")}}
	data := Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder, Contracts: offers}
	denied, failed := data, data
	denied.LimitsDenied, failed.LimitsErr = true, "HTTP 502"
	withLimits := data
	withLimits.Limit = &venueapi.PositionLimit{ContractCode: "BTC-USDT", LeverRate: 20, MarkPrice: d("95000"),
		BuyLimit: d("10000"), BuyLimitValue: d("950000"), SellLimit: d("5000"), SellLimitValue: d("475000")}
	// 6000 cont at 100,000: 600,000 USDT; (6000 × 0.005 − 5.2) × 0.001 × 100000 = 2480; 600000 / 10 = 60000.
	atEntry := []string{"6,000 cont · 600,000 USDT at entry 100,000", "2,480 USDT", "60,000 USDT", "× 100,000 entry,"}
	tests := []struct {
		name        string
		calc        Calculator
		size, entry string
		want, not   []string
	}{
		{"limits not shared with the page", denied, "6000", "100000",
			append(atEntry, "Your position limits, which carry the mark price, are not shared with this page: the figures are at the entry price you typed.",
				"unknown: your limits are not shared with this page<"),
			[]string{"cannot answer", "at mark"}},
		{"limits that failed to load", failed, "6000", "100000",
			append(atEntry, "The mark price (your position limits) could not be loaded: the figures are at the entry price you typed.",
				"unknown: your limits are not loaded (HTTP 502)"),
			[]string{"cannot answer"}},
		{"limits not landed yet", data, "6000", "100000",
			append(atEntry, "Until your position limits land with the mark price: the figures are at the entry price you typed.",
				"unknown: your limits are not loaded yet"),
			[]string{"cannot answer"}},
		{"limits on hand: the mark price, whatever the entry", withLimits, "6000", "100000",
			[]string{"6,000 cont · 570,000 USDT at mark 95,000", "at entry 100,000 with"},
			[]string{"calc-at-entry", "USDT at entry"}},
		{"no entry price and no limits to be had", denied, "6000", "",
			[]string{"The calculator cannot answer: it needs a price", `placeholder="required"`},
			[]string{"calc-at-entry", "calc-tier"}},
		{"an entry price that is not a number", denied, "6000", "abc",
			[]string{"Entry price must be a number"},
			[]string{"cannot answer", "calc-tier"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.calc
			c.size, c.entry, c.unit, c.leverage, c.touched = tt.size, tt.entry, risk.Contracts, "10", true
			_, out := render(t, &c)
			says(t, html.UnescapeString(out), tt.want, tt.not)
		})
	}
}

// TestTheCalculatorGroupsItsNumbers: the answer writes its sizes, values and
// prices with thousands separators, as the tier table and the legend do:
// 25196425 USDT read as a digit more or less at a glance.
func TestTheCalculatorGroupsItsNumbers(t *testing.T) {
	d := decimal.RequireFromString
	for _, tc := range []struct{ got, want string }{
		{fitText(risk.SideLimit{Fit: risk.Exceeds, Limit: d("84000"), ByTiers: true}, "25", 10, ""), "exceeds the limit at 25× of 84,000 cont (the tiers' top at 25×)"},
		{fitText(risk.SideLimit{Fit: risk.Fits, Limit: d("1500000")}, "10", 10, ""), "fits at 10× (limit 1,500,000 cont: your limit)"},
		{fitText(risk.SideLimit{Fit: risk.Fits, Limit: d("1500000")}, "10.0", 10, ""), "fits at 10.0× (limit 1,500,000 cont: your limit)"},
		{fitText(risk.SideLimit{Fit: risk.Exceeds, Limit: d("1500000")}, "20", 10, ""), "exceeds the limit at 20× of 1,500,000 cont (your limit, given at your 10×)"},
		{maxText(risk.Max{Allowed: true, Volume: d("84000"), Position: risk.Position{Contracts: d("84000"), USDT: d("8465998.8")}}, venueapi.UnitContract, "25"), "84,000 cont (8,465,998.8 USDT)"},
		{maxText(risk.Max{Allowed: true, Volume: d("2500000"), Position: risk.Position{Contracts: d("15000"), USDT: d("2499750.5")}}, venueapi.UnitUSDT, "5"), "2,500,000 USDT (15,000 cont)"},
		{liqText(risk.Liquidation{Price: d("102408.5")}, "Short"), "Short: 102,408.5"},
		{liqText(risk.Liquidation{Price: d("99084.75"), AtOnce: true}, "Long"), "Long: 99,084.75 (at once: the margin is below the maintenance margin at the entry price)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
