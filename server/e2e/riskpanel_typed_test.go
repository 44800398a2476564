package e2e

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Typing into the server's risk panel before app.wasm runs is not lost when
// go-app replaces the page: on every page with a panel (the chart page,
// /tiers, the tiers embed) the app's panel gets the same input, the unit
// picked with it, and the focus (app/pages/typed.go).
func TestWhatWasTypedIntoTheRiskPanelBeforeTheAppRanIsKept(t *testing.T) {
	const key = "typed-before-e2e-embed-key-0123456789-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": key})
	link := issueLink(t, key, "-contracts", "ETH-USDT", "-panels", "tiers", "-ttl", "1h")
	for _, tc := range []struct {
		name, path string
		unit       string // the size unit picked first ("" leaves contracts)
		entry      string // an entry price typed first: an embed's panel has no mark price
	}{
		{"the chart page", "/?contract_code=BTC-USDT&period=1min", "", ""},
		{"/tiers, the size in USDT", "/tiers?contract_code=SOL-USDT", "USDT", ""},
		{"the tiers embed, at an entry price", "/embed/tiers?contract_code=ETH-USDT&embed=" + url.QueryEscape(link), "", "3000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, held := openHoldingAppWasm(t, s.URL+tc.path)
			waitFor(t, ctx, `document.readyState === "complete" && !!document.getElementById("calc-size")`)
			if tc.unit != "" {
				choose(t, ctx, "calc-unit", tc.unit)
			}
			if tc.entry != "" {
				if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("calc-entry").value = `+strconv.Quote(tc.entry), nil)); err != nil {
					t.Fatal(err)
				}
			}
			if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const i = document.getElementById("calc-size"); i.focus(); i.value = "2500"; })()`, nil)); err != nil {
				t.Fatal(err)
			}
			if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
				t.Fatal("app.wasm ran: it was not held back")
			}
			letAppWasmThrough(t, ctx, held)
			// The calculator holds the size, in the unit picked, and has
			// answered for it: the hint asking for a size is gone and a
			// margin is shown.
			waitFor(t, ctx, `performance.getEntriesByName("riskchart:main").length > 0 && (() => { const i = document.getElementById("calc-size");
  return !!i && i.value === "2500" && !document.getElementById("calc-hint") && !!document.getElementById("calc-margin"); })()`)
			if got := evalJS[string](t, ctx, `document.getElementById("calc-entry").value`); got != tc.entry {
				t.Errorf("the entry price is %q, want %q", got, tc.entry)
			}
			unit := evalJS[string](t, ctx, `(() => { const u = document.getElementById("calc-unit"); return u.options[u.selectedIndex].text; })()`)
			if want := tc.unit; want != "" && unit != want {
				t.Errorf("the size unit is %q, want %q, picked before the app ran", unit, want)
			}
			if tc.unit == "USDT" {
				// 2500 USDT of position value: fewer contracts than 2500 at any mark over 1 USDT.
				if pos := evalJS[string](t, ctx, `document.getElementById("calc-position").textContent`); numberIn(t, pos).IntPart() >= 2500 {
					t.Errorf("the position reads %q: the size was taken in contracts, not USDT", pos)
				}
			}
			if id := evalJS[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`); id != "calc-size" {
				t.Errorf("the focus is on %q, not on the size typed into", id)
			}
		})
	}
}

// TestTheLimitsFilterBeforeTheAppKeepsTheView: the limits filter's form is
// the app's to apply (its query is in no URL). Sent before app.wasm runs, as
// a GET form to the page itself, it replaced the page's query: the view, and
// an embed's link, its only access. Applied or entered before the app runs,
// it leaves the page where it is (web/app-start.js).
func TestTheLimitsFilterBeforeTheAppKeepsTheView(t *testing.T) {
	const key = "limits-filter-e2e-embed-key-0123456789-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": key})
	link := issueLink(t, key, "-contracts", "ETH-USDT", "-panels", "limits", "-ttl", "1h")
	for _, tc := range []struct{ name, path, submit string }{
		{"/limits, Apply clicked", "/limits?contract_code=ETH-USDT&tz=utc&theme=dark", `document.getElementById("filter-apply").click()`},
		{"the limits embed, Enter in a field", "/embed/limits?contract_code=ETH-USDT&locale=de&embed=" + url.QueryEscape(link),
			`document.getElementById("limit-filter").requestSubmit()`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, held := openHoldingAppWasm(t, s.URL+tc.path)
			waitFor(t, ctx, `document.readyState === "complete" && !!document.getElementById("filter-apply")`)
			do(t, ctx, `(() => { window.riskchartSamePage = true; const f = document.querySelector("#limit-filter input"); f.focus(); f.value = "BTC-USDT"; })()`)
			do(t, ctx, tc.submit)
			// A navigation, had the form been sent, would have left this
			// document (and its mark) behind.
			time.Sleep(500 * time.Millisecond)
			if !evalJS[bool](t, ctx, `window.riskchartSamePage === true`) {
				t.Fatalf("the filter's form was sent before the app ran: the page is now %s", evalJS[string](t, ctx, `location.href`))
			}
			if got := evalJS[string](t, ctx, `location.pathname + location.search`); got != tc.path {
				t.Errorf("the page is %s, want %s", got, tc.path)
			}
			if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
				t.Fatal("app.wasm ran: it was not held back")
			}
			letAppWasmThrough(t, ctx, held)
		})
	}
}
