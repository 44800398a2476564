package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// jsTypeWhenTheLoaderLeaves types 1500 into the calculator's size at the
// moment go-app's loader leaves the page (a mutation observer's callback
// runs before any timer the app set): into the server's copy of the risk
// panel, which the chart page shows until the panel mounts a task later
// (app/pages/chart.go, docs/performance.md#the-risk-panel-mounts-a-task-later).
const jsTypeWhenTheLoaderLeaves = `(() => {
  let seen = false;
  new MutationObserver(() => {
    if (document.getElementById("app-wasm-loader")) { seen = true; return; }
    if (!seen || window.typedInto) return;
    const el = document.getElementById("calc-size");
    window.typedInto = el;
    window.panelLiveWhenTyped = performance.getEntriesByName("riskchart:risk-first-data").length > 0;
    el.focus();
    el.value = "1500";
    el.dispatchEvent(new Event("input", {bubbles: true}));
  }).observe(document, {childList: true, subtree: true});
  new MutationObserver(() => {
    if (window.typedInto && !window.typedInto.isConnected && !window.copyGoneAt) window.copyGoneAt = performance.now();
  }).observe(document, {childList: true, subtree: true});
})()`

// jsCalculated tells whether the mounted calculator holds size and has
// answered for it (the hint asking for a size is gone, a margin is shown).
func jsCalculated(size string) string {
	return `(() => { const i = document.getElementById("calc-size");
  return !!i && i.value === "` + size + `" && !document.getElementById("calc-hint") && !!document.getElementById("calc-margin"); })()`
}

func TestTheRiskPanelMountsAfterTheAppRunsAndKeepsWhatWasTyped(t *testing.T) {
	s := startServer(t, nil)
	chart := s.URL + "/?contract_code=BTC-USDT&period=1min"
	mounted := `performance.getEntriesByName("riskchart:risk-first-data").length > 0`

	t.Run("typed into the server's panel before the app ran", func(t *testing.T) {
		ctx := newBrowser(t)
		held, hold := holdAppWasm(ctx)
		if err := chromedp.Run(ctx, hold, chromedp.Navigate(chart)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.readyState === "complete" && !!document.getElementById("calc-size")`)
		if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const i = document.getElementById("calc-size"); i.focus(); i.value = "2500"; })()`, nil)); err != nil {
			t.Fatal(err)
		}
		letAppWasmThrough(t, ctx, held)
		waitFor(t, ctx, mounted)
		waitFor(t, ctx, jsCalculated("2500"))
		if id := evalJS[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`); id != "calc-size" {
			t.Errorf("the focus is on %q, not on the size typed into", id)
		}
	})

	t.Run("typed into the server's copy once the app runs", func(t *testing.T) {
		ctx := newBrowser(t)
		if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(jsTypeWhenTheLoaderLeaves).Do(ctx)
			return err
		}), chromedp.Navigate(chart)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `!!window.typedInto && !window.typedInto.isConnected`) // the copy typed into has made way for the panel
		if evalJS[bool](t, ctx, `window.panelLiveWhenTyped`) {
			t.Error("the risk panel had mounted before go-app's loader left: it is in Go's first run again")
		}
		waitFor(t, ctx, mounted)
		waitFor(t, ctx, jsCalculated("1500"))
		if id := evalJS[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`); id != "calc-size" {
			t.Errorf("the focus is on %q, not on the size typed into", id)
		}
		// The panel's first fetch of the limits began before it mounted, and it
		// took that answer rather than asking again (the next refresh is 10 s on).
		var limits struct {
			Starts []float64 `json:"starts"`
			Gone   float64   `json:"gone"`
		}
		if err := chromedp.Run(ctx, chromedp.Evaluate(`({starts: performance.getEntriesByType("resource").filter((e) => e.name.includes("`+venueapi.PathPositionLimit+`")).map((e) => e.startTime), gone: window.copyGoneAt})`, &limits)); err != nil {
			t.Fatal(err)
		}
		if len(limits.Starts) != 1 || limits.Starts[0] >= limits.Gone {
			t.Errorf("the limits were asked for at %v ms, the panel mounted at %.0f ms: want one fetch, begun before the mount", limits.Starts, limits.Gone)
		}
	})
}
