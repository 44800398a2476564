package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// jsPicker is the contract picker as the page shows it: every option's
// code, then the selected one's, after a bar.
const jsPicker = `(() => {
  const s = document.getElementById("contract-select");
  return s ? [...s.options].map((o) => o.value).join(",") + "|" + s.value : "";
})()`

// TestContractListShownBeforeTheAppRuns: the chart page carries the server's
// contract list (docs/architecture.md, "The page before the app"). With
// app.wasm held back the picker lists every contract, the page's selected;
// choosing another navigates to it and the first paint draws it. Once app.wasm
// runs, the app adopts the list the page carried: the page makes no request to
// the contract path at all, neither the app's fetch nor a preload (the server
// drops the preload from a page that carries the list).
func TestContractListShownBeforeTheAppRuns(t *testing.T) {
	s := startServer(t, nil)
	var list struct {
		Data []venueapi.Offer `json:"data"`
	}
	getJSON(t, s.URL+venueapi.PathContracts, &list)
	codes := make([]string, len(list.Data))
	for i, c := range list.Data {
		codes[i] = c.Code
	}
	all := strings.Join(codes, ",")
	if !strings.Contains(","+all+",", ",BTC-USDT,") || !strings.Contains(","+all+",", ",ETH-USDT,") {
		t.Fatalf("the sandbox lists %s, without BTC-USDT and ETH-USDT", all)
	}

	ctx, held := openHoldingAppWasm(t, s.URL+"/?contract_code=BTC-USDT&period=5min")
	waitFor(t, ctx, jsFirstPaint+` === "BTC-USDT|5min|step 300|app false"`)
	if got := evalJS[string](t, ctx, jsPicker); got != all+"|BTC-USDT" {
		t.Errorf("before the app runs the picker shows %q, want %q", got, all+"|BTC-USDT")
	}

	// A choice in the list, as a person makes it: the form navigates.
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameDocument = true`, nil),
		chromedp.Evaluate(`(() => { const s = document.getElementById("contract-select"); s.value = "ETH-USDT"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, nil)); err != nil {
		t.Fatal(err)
	}
	waitAcrossNavigation(t, ctx, `!window.sameDocument && `+jsFirstPaint+` !== ""`)
	if got := evalJS[string](t, ctx, jsFirstPaint); got != "ETH-USDT|5min|step 300|app false" {
		t.Errorf("after choosing ETH-USDT the first paint drew %q", got)
	}
	if got := evalJS[string](t, ctx, jsPicker); got != all+"|ETH-USDT" {
		t.Errorf("on ETH-USDT's page, before the app runs, the picker shows %q, want %q", got, all+"|ETH-USDT")
	}
	if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
		t.Fatal("app.wasm ran: it was not held back")
	}
	screenshot(t, ctx, "startup-contracts-before-app")

	// Let app.wasm through: one request is held per page load; stop
	// holding it, and release both (the first page's went with its page).
	var ids []fetch.RequestID
	for len(ids) < 2 {
		select {
		case id := <-held:
			ids = append(ids, id)
		case <-time.After(10 * time.Second):
			t.Fatalf("app.wasm was asked for %d times, want once per page load (2)", len(ids))
		}
	}
	if err := chromedp.Run(ctx, fetch.Disable()); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		_ = chromedp.Run(ctx, fetch.ContinueRequest(id))
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	// The tiers' first data is the risk panel's, which comes after the
	// page mounted and would have asked for the list.
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:risk-first-data").length > 0`)
	waitFor(t, ctx, fmt.Sprintf(`%s === %q && !document.getElementById("contracts-first")`, jsPicker, all+"|ETH-USDT"))
	if got := evalJS[string](t, ctx, `performance.getEntriesByType("resource").filter((e) => e.name.includes("`+venueapi.PathContracts+`")).map((e) => e.initiatorType).join(",")`); got != "" {
		t.Errorf("the page asked for the contract list (initiators: %s) though it carried it", got)
	}
}
