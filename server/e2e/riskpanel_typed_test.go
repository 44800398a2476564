package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// Typing into the server's risk panel before app.wasm runs is not lost when
// go-app replaces the page: the app's panel gets the same input, and the
// focus (app/pages/chart.go).
func TestWhatWasTypedIntoTheRiskPanelBeforeTheAppRanIsKept(t *testing.T) {
	s := startServer(t, nil)
	ctx, held := openHoldingAppWasm(t, s.URL+"/?contract_code=BTC-USDT&period=1min")
	waitFor(t, ctx, `document.readyState === "complete" && !!document.getElementById("calc-size")`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const i = document.getElementById("calc-size"); i.focus(); i.value = "2500"; })()`, nil)); err != nil {
		t.Fatal(err)
	}
	if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
		t.Fatal("app.wasm ran: it was not held back")
	}
	letAppWasmThrough(t, ctx, held)
	// The calculator holds the size and has answered for it: the hint asking
	// for a size is gone and a margin is shown.
	waitFor(t, ctx, `(() => { const i = document.getElementById("calc-size");
  return !!i && i.value === "2500" && !document.getElementById("calc-hint") && !!document.getElementById("calc-margin"); })()`)
	if id := evalJS[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`); id != "calc-size" {
		t.Errorf("the focus is on %q, not on the size typed into", id)
	}
}
