package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/server/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
}

func waitFor(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(js, nil, chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		var text string
		chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText`, &text))
		t.Fatalf("waiting for %s: %v\npage: %q", js, err, text)
	}
}

func typeInto(ctx context.Context, id, value string) error {
	return chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const i = document.getElementById(%q); i.value = %q; i.dispatchEvent(new Event("input", {bubbles: true})); })()`, id, value), nil))
}

func TestRiskPanelsInTheBrowser(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT")); err != nil {
		t.Fatal(err)
	}
	var tiers venueapi.TierEnvelope
	getJSON(t, s.URL+venueapi.PathTiers+"?contract_code=BTC-USDT", &tiers)
	waitFor(t, ctx, fmt.Sprintf(`document.querySelectorAll("#tier-table tbody tr").length === %d`, len(tiers.Data)))

	t.Run("the tier table matches the venue's tiers row for row", func(t *testing.T) {
		rows := evalJS[[][]string](t, ctx, `[...document.querySelectorAll("#tier-table tbody tr")].map(r => [...r.cells].map(c => c.textContent))`)
		for i, tr := range tiers.Data {
			want := []string{fmt.Sprint(tr.Tier), tr.MinVolume.String() + " – " + tr.MaxVolume.String() + " cont", tr.MaxLever.String() + "×",
				tr.MaintenanceMarginRate.Mul(decimal.NewFromInt(100)).String() + "%"}
			if fmt.Sprint(rows[i]) != fmt.Sprint(want) {
				t.Errorf("row %d: %q, want %q", i+1, rows[i], want)
			}
		}
		chromedp.Run(ctx, chromedp.Click(`[data-sort="lever"]`, chromedp.ByQuery))
		// Sorted by leverage, ascending: the last tier (the lowest leverage) first.
		waitFor(t, ctx, fmt.Sprintf(`document.querySelector("#tier-table tbody tr").dataset.tier === "%d"`, tiers.Data[len(tiers.Data)-1].Tier))
		chromedp.Run(ctx, chromedp.Click(`[data-sort="tier"]`, chromedp.ByQuery))
		waitFor(t, ctx, `document.querySelector("#tier-table tbody tr").dataset.tier === "1"`)
	})

	var limits venueapi.LimitEnvelope
	t.Run("the limits panel shows the venue's numbers", func(t *testing.T) {
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="BTC-USDT"]')`)
		getJSON(t, s.URL+venueapi.PathPositionLimit+"?contract_code=BTC-USDT", &limits)
		l := limits.Data[0]
		cells := evalJS[[]string](t, ctx, `[...document.querySelector('#limits-table tr[data-contract="BTC-USDT"]').cells].map(c => c.textContent)`)
		want := []string{"BTC-USDT", l.BuyLimit.String() + " cont · " + l.BuyLimitValue.String() + " USDT", l.SellLimit.String() + " cont · " + l.SellLimitValue.String() + " USDT",
			fmt.Sprint(l.LeverRate) + "×", l.MarkPrice.String()}
		if fmt.Sprint(cells) != fmt.Sprint(want) {
			// The mark price moves each minute: fetch once more before failing.
			getJSON(t, s.URL+venueapi.PathPositionLimit+"?contract_code=BTC-USDT", &limits)
			l = limits.Data[0]
			if cells[4] != l.MarkPrice.String() {
				t.Errorf("limits row %q, want %q", cells, want)
			}
		}
		if strings.Contains(evalJS[string](t, ctx, `document.getElementById("limits").textContent`), "trade_partition") {
			t.Error("the deprecated trade_partition is shown")
		}
	})

	t.Run("the calculator answers with exact decimals", func(t *testing.T) {
		mark := decimal.RequireFromString(evalJS[string](t, ctx, `document.querySelector('#limits-table tr[data-contract="BTC-USDT"] .mark').textContent`))
		face := decimal.RequireFromString("0.001")
		for _, tc := range []struct {
			size, lev string
			warn      bool
		}{{"10", "20", false}, {tiers.Data[0].MaxVolume.String(), "20", false}, {tiers.Data[2].MaxVolume.Add(decimal.NewFromInt(1)).String(), "100", true}} {
			typeInto(ctx, "calc-size", tc.size)
			typeInto(ctx, "calc-leverage", tc.lev)
			waitFor(t, ctx, `!!document.getElementById("calc-margin")`)
			size := decimal.RequireFromString(tc.size)
			var tier venueapi.Tier
			for _, tr := range tiers.Data {
				if !size.GreaterThan(tr.MaxVolume) {
					tier = tr
					break
				}
			}
			wantMargin := size.Mul(mark).Mul(face).Mul(tier.MaintenanceMarginRate).String() + " USDT"
			waitFor(t, ctx, fmt.Sprintf(`document.getElementById("calc-margin").textContent === %q`, wantMargin))
			if got := evalJS[string](t, ctx, `document.getElementById("calc-tier").textContent`); got != fmt.Sprint(tier.Tier) {
				t.Errorf("size %s: tier %s, want %d", tc.size, got, tier.Tier)
			}
			if warn := evalJS[bool](t, ctx, `!!document.getElementById("calc-warning")`); warn != tc.warn {
				t.Errorf("size %s leverage %s: warning %v, want %v", tc.size, tc.lev, warn, tc.warn)
			}
			if got := evalJS[string](t, ctx, `document.querySelector("#tier-table tr.current").dataset.tier`); got != fmt.Sprint(tier.Tier) {
				t.Errorf("highlighted tier %s, want %d", got, tier.Tier)
			}
		}
		typeInto(ctx, "calc-size", "-5")
		waitFor(t, ctx, `!!document.getElementById("calc-error-size") && !document.getElementById("calc-margin")`)
		typeInto(ctx, "calc-size", "lots")
		waitFor(t, ctx, `document.getElementById("calc-error-size").textContent.includes("number")`)
		typeInto(ctx, "calc-size", "")
		waitFor(t, ctx, `document.getElementById("calc-error-size").textContent.includes("enter a number")`)
		screenshot(t, ctx, "risk-panels")
	})

	t.Run("the limits filter follows the endpoint's rules", func(t *testing.T) {
		typeInto(ctx, "filter-pair", "BTC-USDT")
		typeInto(ctx, "filter-type", "quarter")
		chromedp.Run(ctx, chromedp.Click(`#limit-filter button`, chromedp.ByQuery))
		waitFor(t, ctx, `(document.getElementById("filter-error") || {}).textContent?.includes("business_type")`)
		typeInto(ctx, "filter-business", "futures")
		chromedp.Run(ctx, chromedp.Click(`#limit-filter button`, chromedp.ByQuery))
		waitFor(t, ctx, `document.querySelectorAll("#limits-table tbody tr").length === 1 && !document.querySelector('#limits-table tr[data-contract="BTC-USDT"]')`)
		code := evalJS[string](t, ctx, `document.querySelector("#limits-table tbody tr").dataset.contract`)
		if !strings.HasPrefix(code, "BTC-USDT-") {
			t.Errorf("the quarter future is %q", code)
		}
		typeInto(ctx, "filter-code", "ETH-USDT")
		chromedp.Run(ctx, chromedp.Click(`#limit-filter button`, chromedp.ByQuery))
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]') && document.querySelectorAll("#limits-table tbody tr").length === 1`)
	})

	t.Run("each panel has its own route", func(t *testing.T) {
		chromedp.Run(ctx, chromedp.Navigate(s.URL+"/tiers?contract_code=ETH-USDT"))
		waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && !document.getElementById("limits")`)
		chromedp.Run(ctx, chromedp.Navigate(s.URL+"/limits?contract_code=ETH-USDT"))
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]') && !document.getElementById("tiers")`)
	})
}

func TestRiskPanelsSayNoAccessAndTheChartStillWorks(t *testing.T) {
	venueURL, _ := sandboxtest.Start(t, sandbox.Config{})
	s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": venueURL})
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, `!!document.getElementById("risk-noaccess")`)
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#tier-table tbody tr").length`); n != 0 {
		t.Errorf("%d tier rows shown without access", n)
	}
	screenshot(t, ctx, "risk-no-access")
}
