package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// TestRiskPagesShowTheirTiersBeforeTheAppRuns: /tiers and the tiers embed
// (opened with its link) carry the tiers the server holds for their
// contract, as the chart page does; with app.wasm held back the tier table
// shows them, and the app adopts them without asking the tier path.
func TestRiskPagesShowTheirTiersBeforeTheAppRuns(t *testing.T) {
	const key = "first-tiers-e2e-embed-key-0123456789-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": key})
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	getJSON(t, s.URL+venueapi.PathTiers+"?contract_code=ETH-USDT", &env) // the server now holds them
	if len(env.Data) == 0 {
		t.Fatal("the sandbox has no tiers for ETH-USDT")
	}
	link := issueLink(t, key, "-contracts", "ETH-USDT", "-panels", "tiers", "-ttl", "1h")
	for _, tc := range []struct{ name, path string }{
		{"the tiers page", "/tiers?contract_code=ETH-USDT"},
		{"the tiers embed with its link", "/embed/tiers?contract_code=ETH-USDT&embed=" + url.QueryEscape(link)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			held, hold := holdAppWasm(ctx)
			if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			const jsRows = `document.querySelectorAll("#tier-table tbody tr[data-tier]").length`
			if n := evalJS[int](t, ctx, jsRows); n != len(env.Data) {
				t.Errorf("before the app runs the tier table shows %d rows, want %d", n, len(env.Data))
			}
			if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
				t.Fatal("app.wasm ran: it was not held back")
			}
			letAppWasmThrough(t, ctx, held)
			waitFor(t, ctx, `performance.getEntriesByName("riskchart:risk-first-data").length > 0 && `+jsRows+` === `+fmt.Sprint(len(env.Data)))
			if n := evalJS[int](t, ctx, `performance.getEntriesByType("resource").filter((e) => e.name.includes("`+venueapi.PathTiers+`")).length`); n != 0 {
				t.Errorf("the app fetched the tiers %d times though the page held them", n)
			}
		})
	}
}
