package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/riskchart/riskchart/venueapi"
)

// jsFirstPaint is what the first-paint script drew, before the app runs:
// its view, the step between its newest candles (the period's length) and
// whether the app has drawn.
const jsFirstPaint = `(() => {
  const b = window.riskchartBoot;
  if (!b || !b.drawn || !b.answer) return "";
  const d = JSON.parse(b.answer).data;
  const app = performance.getEntriesByName("riskchart:app-drawn").length > 0;
  return b.contract + "|" + b.period + "|step " + (d[d.length - 1].id - d[d.length - 2].id) + "|app " + app;
})()`

// TestControlsNavigateBeforeTheAppRuns holds back app.wasm and uses the
// chart page's controls as a person would while it loads: each is a form to
// the view it names, so a click navigates there and the first paint draws
// that view. Then it lets app.wasm through: the app takes the controls over
// and changes the view in place, without a navigation.
func TestControlsNavigateBeforeTheAppRuns(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	release := holdEveryAppWasm(t, ctx)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, jsFirstPaint+` === "BTC-USDT|1min|step 60|app false"`)

	// Each step marks the window first: a navigation drops the mark.
	steps := []struct {
		name   string
		act    chromedp.Action
		search []string // what the new URL holds
		want   string   // jsFirstPaint of the new page
		theme  string   // the page's theme, and the toggle's label
	}{
		{"a period chip", chromedp.Click(`[data-period="15min"]`, chromedp.ByQuery),
			[]string{"contract_code=BTC-USDT", "period=15min"}, "BTC-USDT|15min|step 900|app false", "auto"},
		{"the theme toggle", chromedp.Click(`#theme-toggle`, chromedp.ByQuery),
			[]string{"period=15min", "theme=light"}, "BTC-USDT|15min|step 900|app false", "light"},
		{"the contract entry", chromedp.Tasks{chromedp.SendKeys(`#contract-input`, "ETH-USDT", chromedp.ByQuery), chromedp.Click(`#contract-form button`, chromedp.ByQuery)},
			[]string{"contract_code=ETH-USDT", "period=15min", "theme=light"}, "ETH-USDT|15min|step 900|app false", "light"},
		// The page lists the server's contracts (firstcontracts_browser_test.go);
		// BTC-USDT-CQ is not among the sandbox's: the test adds it.
		{"the contract list", chromedp.Evaluate(`(() => { const s = document.getElementById("contract-select"); s.add(new Option("BTC-USDT-CQ")); s.value = "BTC-USDT-CQ"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, nil),
			[]string{"contract_code=BTC-USDT-CQ", "period=15min", "theme=light"}, "BTC-USDT-CQ|15min|step 900|app false", "light"},
		// The service worker answers every view with the page of the
		// default view: the view comes from the URL, not the page.
		{"a chip on a page prerendered for another view", chromedp.Tasks{
			chromedp.Evaluate(`document.querySelectorAll('input[type="hidden"]').forEach((f) => { f.value = {contract_code: "BTC-USDT", period: "1min", theme: "auto"}[f.name] || f.value; })`, nil),
			chromedp.Click(`[data-period="30min"]`, chromedp.ByQuery)},
			[]string{"contract_code=BTC-USDT-CQ", "period=30min", "theme=light"}, "BTC-USDT-CQ|30min|step 1800|app false", "light"},
	}
	for _, st := range steps {
		if err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameDocument = true`, nil), st.act); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		waitAcrossNavigation(t, ctx, `!window.sameDocument && `+jsFirstPaint+` !== ""`)
		if got := evalJS[string](t, ctx, jsFirstPaint); got != st.want {
			t.Errorf("after %s the first paint drew %q, want %q", st.name, got, st.want)
		}
		u := evalJS[string](t, ctx, `location.search`)
		for _, w := range st.search {
			if !strings.Contains(u, w) {
				t.Errorf("after %s the URL %q lacks %s", st.name, u, w)
			}
		}
		if got := evalJS[string](t, ctx, `(document.documentElement.dataset.theme || "auto") + "|" + document.getElementById("theme-toggle").textContent`); got != st.theme+"|Theme: "+st.theme {
			t.Errorf("after %s the theme and its label are %q, want %s", st.name, got, st.theme)
		}
	}
	screenshot(t, ctx, "startup-controls-before-app")

	release()
	waitDrawn(t, ctx, "BTC-USDT-CQ|30min")

	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameDocument = true`, nil)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`[data-period="4hour"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT-CQ|4hour")
	if u := evalJS[string](t, ctx, `location.search`); !strings.Contains(u, "period=4hour") {
		t.Errorf("the URL %q does not hold the period the app shows", u)
	}
	testThemeCycles(t, ctx, "light")
	if !evalJS[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("with the app running, a control navigated")
	}
}

// holdEveryAppWasm holds back app.wasm in every page load from now on, as
// a slow download would. release lets it through: it stops holding, and
// lets go what is held (those of pages left are gone).
func holdEveryAppWasm(t *testing.T, ctx context.Context) (release func()) {
	t.Helper()
	var mu sync.Mutex
	var held []fetch.RequestID // one per page load
	paused, hold := holdAppWasm(ctx)
	whenHeld(ctx, paused, func(id fetch.RequestID) {
		mu.Lock()
		held = append(held, id)
		mu.Unlock()
	})
	if err := chromedp.Run(ctx, hold); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := chromedp.Run(ctx, fetch.Disable()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range held {
			_ = chromedp.Run(ctx, fetch.ContinueRequest(id))
		}
	}
}

// TestTheAppsFormsAreTheAppsOnceItRuns: the first paint's script fills a
// form's hidden fields from the URL when a form is sent before the app
// runs. Once the app runs, its forms are its own: a contract typed and
// entered in the app, then a view with fewer hidden fields (the dark
// theme's left for the automatic one), leaves the app running, which the
// next click shows.
func TestTheAppsFormsAreTheAppsOnceItRuns(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&theme=dark&indicators=ma:20")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsAppRunning)
	if err := typeInto(ctx, "contract-input", "ETH-USDT"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.SendKeys("#contract-input", kb.Enter, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|1min")
	click(t, ctx, "#theme-toggle")
	waitFor(t, ctx, `!new URLSearchParams(location.search).has("theme")`)
	click(t, ctx, `#period-picker [data-period="5min"]`)
	waitDrawn(t, ctx, "ETH-USDT|5min")
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#contract-form input[type="hidden"]')].map((f) => f.name + "=" + f.value).join("&")`); strings.Contains(got, "theme") || !strings.Contains(got, "period=5min") {
		t.Errorf("the contract form's hidden fields are %q, want the view's: period 5min, no theme", got)
	}
}

// TestRiskPageControlsNavigateBeforeTheAppRuns: on /tiers and /limits the
// contract list (every contract, as the server offers them) and the entry
// are forms to the page itself, so a choice before app.wasm runs opens that
// page for the contract chosen, not the chart page; once the app runs, it
// changes the contract in place.
func TestRiskPageControlsNavigateBeforeTheAppRuns(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	release := holdEveryAppWasm(t, ctx)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/tiers?contract_code=ETH-USDT")); err != nil {
		t.Fatal(err)
	}
	const (
		ran    = `performance.getEntriesByName("riskchart:main").length > 0`
		head   = `(document.querySelector(".risk-head") || {}).textContent || ""`
		listed = `[...document.querySelectorAll("#contract-select option")].map((o) => o.value).join(",")`
	)
	waitFor(t, ctx, `document.readyState === "complete"`)
	if got := evalJS[string](t, ctx, listed); !strings.Contains(got, "BTC-USDT,") || !strings.Contains(got, "SOL-USDT") {
		t.Errorf("before the app runs the tiers page lists %q, want the server's contracts", got)
	}
	choose := func(code string) chromedp.Action {
		return chromedp.Evaluate(`(() => { const s = document.getElementById("contract-select"); s.value = `+fmt.Sprintf("%q", code)+`; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, nil)
	}
	for _, st := range []struct {
		name       string
		act        chromedp.Action
		path, code string
	}{
		{"the contract list", choose("SOL-USDT"), "/tiers", "SOL-USDT"},
		{"the contract entry", chromedp.Tasks{chromedp.SendKeys(`#contract-input`, "xrp-usdt", chromedp.ByQuery), chromedp.Click(`#contract-form button`, chromedp.ByQuery)}, "/tiers", "XRP-USDT"},
		{"the limits chip", chromedp.Click(`nav.chips a[href^="/limits"]`, chromedp.ByQuery), "/limits", "XRP-USDT"},
		{"the contract list on /limits", choose("ETH-USDT"), "/limits", "ETH-USDT"},
	} {
		if err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameDocument = true`, nil), st.act); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		// A code typed goes into the URL as typed; the page reads it in any case.
		want := fmt.Sprintf(`location.pathname === %q && new URLSearchParams(location.search).get("contract_code")?.toUpperCase() === %q`, st.path, st.code)
		waitAcrossNavigation(t, ctx, `!window.sameDocument && document.readyState === "complete" && `+want)
		if evalJS[bool](t, ctx, ran) {
			t.Fatalf("after %s app.wasm ran: it was not held back", st.name)
		}
		if got := evalJS[string](t, ctx, head); !strings.Contains(got, st.code) {
			t.Errorf("after %s the page's panel reads %q, want %s", st.name, got, st.code)
		}
	}
	release()
	waitFor(t, ctx, ran+` && performance.getEntriesByName("riskchart:risk-first-data").length > 0`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameDocument = true`, nil), choose("SOL-USDT")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `new URLSearchParams(location.search).get("contract_code") === "SOL-USDT" && (`+head+`).includes("SOL-USDT")`)
	if !evalJS[bool](t, ctx, `window.sameDocument === true && location.pathname === "/limits"`) {
		t.Error("with the app running, the contract list navigated")
	}
}

// testThemeCycles clicks the theme toggle, then presses Enter and Space on
// it, through several full cycles from theme from, checking the label and
// the page's theme at each step.
func testThemeCycles(t *testing.T, ctx context.Context, from string) {
	t.Helper()
	next := map[string]string{"auto": "light", "light": "dark", "dark": "auto"}
	theme := from
	for i, act := range []chromedp.Action{
		chromedp.Click(`#theme-toggle`, chromedp.ByQuery), chromedp.Click(`#theme-toggle`, chromedp.ByQuery), chromedp.Click(`#theme-toggle`, chromedp.ByQuery),
		chromedp.Click(`#theme-toggle`, chromedp.ByQuery), chromedp.Click(`#theme-toggle`, chromedp.ByQuery), chromedp.Click(`#theme-toggle`, chromedp.ByQuery),
		chromedp.Tasks{chromedp.Focus(`#theme-toggle`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)},
		chromedp.Tasks{chromedp.Focus(`#theme-toggle`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)},
		chromedp.Tasks{chromedp.Focus(`#theme-toggle`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)},
		chromedp.Tasks{chromedp.Focus(`#theme-toggle`, chromedp.ByQuery), chromedp.KeyEvent(" ")},
		chromedp.Tasks{chromedp.Focus(`#theme-toggle`, chromedp.ByQuery), chromedp.KeyEvent(" ")},
		chromedp.Tasks{chromedp.Focus(`#theme-toggle`, chromedp.ByQuery), chromedp.KeyEvent(" ")},
	} {
		if err := chromedp.Run(ctx, act); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		theme = next[theme]
		want := fmt.Sprintf(`(document.documentElement.dataset.theme || "auto") === %q && document.getElementById("theme-toggle").textContent === "Theme: " + %q && (new URLSearchParams(location.search).get("theme") || "") === %q`,
			theme, theme, map[bool]string{true: "", false: theme}[theme == "auto"])
		waitFor(t, ctx, want)
	}
}

// waitAcrossNavigation waits until js is true in the page, which may be
// navigating: an evaluation the navigation cuts short is tried again.
func waitAcrossNavigation(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &ok)); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("waiting for %s: not true within 20 s; the page is at %s", js, evalJS[string](t, ctx, `location.href`))
}

// TestStartupMarksAreLeftInOrder: the start-up trace reads the app's marks by
// name (docs/performance.md, "Controls before the app, and the start-up
// marks"); each is left once, in the order a start passes them.
func TestStartupMarksAreLeftInOrder(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=5min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|5min")
	waitFor(t, ctx, `!!document.querySelector("#tier-table tbody tr")`)
	got := evalJS[string](t, ctx, `["riskchart:drawn", "riskchart:module-compiled", "riskchart:module", "riskchart:instantiated", "riskchart:main", "riskchart:mounted", "riskchart:adopted", "riskchart:app-drawn", "riskchart:risk-first-data"]
  .map((n) => { const m = performance.getEntriesByName(n, "mark"); return m.length === 0 ? n + " missing" : n + " " + m.length + (m[0].startTime >= 0 ? "" : "?") + "@" + m[0].startTime; }).join("\n")`)
	var last float64
	for i, line := range strings.Split(got, "\n") {
		var name string
		var n int
		var at float64
		if _, err := fmt.Sscanf(strings.Replace(line, "@", " ", 1), "%s %d %g", &name, &n, &at); err != nil {
			t.Fatalf("marks:\n%s", got)
		}
		// riskchart:drawn is the first paint's, then the app's: two.
		if want := map[bool]int{true: 2, false: 1}[i == 0]; n != want {
			t.Errorf("%s left %d times, want %d", name, n, want)
		}
		if i > 1 && i < 8 && at < last { // module-compiled, module, instantiated, main, mounted, adopted, app-drawn in that order
			t.Errorf("%s at %.1f ms, before the mark before it (%.1f ms):\n%s", name, at, last, got)
		}
		if i > 0 {
			last = at
		}
	}
}

// TestTiersShownBeforeTheAppRuns: when the server holds the tiers of the
// page's contract, the page carries them; with app.wasm held back the tier
// table shows them, and the app adopts them without fetching them again.
func TestTiersShownBeforeTheAppRuns(t *testing.T) {
	s := startServer(t, nil)
	tiers := serverHoldsTiers(t, s.URL, "BTC-USDT")
	ctx, held := openHoldingAppWasm(t, s.URL+"/?contract_code=BTC-USDT&period=5min")
	const jsRows = `document.querySelectorAll("#tier-table tbody tr[data-tier]").length`
	if n := evalJS[int](t, ctx, jsRows); n != tiers {
		t.Errorf("before the app runs the tier table shows %d rows, want %d", n, tiers)
	}
	if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
		t.Fatal("app.wasm ran: it was not held back")
	}
	screenshot(t, ctx, "startup-tiers-before-app")
	letAppWasmThrough(t, ctx, held)
	waitDrawn(t, ctx, "BTC-USDT|5min")
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:risk-first-data").length > 0 && `+jsRows+` === `+fmt.Sprint(tiers))
	if n := evalJS[int](t, ctx, `performance.getEntriesByType("resource").filter((e) => e.name.includes("`+venueapi.PathTiers+`")).length`); n != 0 {
		t.Errorf("the app fetched the tiers %d times though the page held them", n)
	}
}

// TestTheLoaderNoteStandsStill: go-app's loader, the note in a corner until
// the app runs, shows no animation: a spinning icon kept the compositor busy
// through the whole start (web/style.css; docs/startup.md, "The loader
// note stands still").
func TestTheLoaderNoteStandsStill(t *testing.T) {
	s := startServer(t, nil)
	ctx, held := openHoldingAppWasm(t, s.URL+"/")
	waitFor(t, ctx, `document.readyState !== "loading"`)
	if !evalJS[bool](t, ctx, `!!document.getElementById("app-wasm-loader-icon")`) {
		t.Fatal("the page has no loader icon: go-app's loader has changed, review web/style.css")
	}
	const running = `[...document.querySelectorAll("#app-wasm-loader, #app-wasm-loader *")].flatMap((el) => el.getAnimations()).map((a) => a.animationName || a.constructor.name)`
	if got := evalJS[[]string](t, ctx, running); len(got) != 0 {
		t.Errorf("the loader note runs animations %q, want none", got)
	}
	letAppWasmThrough(t, ctx, held)
	waitFor(t, ctx, `!document.getElementById("app-wasm-loader")`)
}

// whenTheLoaderLeaves is a script, for every document, that runs js once
// go-app's loader has left the page: the end of Go's first run (the
// observer's callback runs before any task of Go's after it). It watches
// from the end of parsing: Go may run before DOMContentLoaded.
func whenTheLoaderLeaves(js string) chromedp.Action {
	return onEveryDocument(`document.addEventListener("readystatechange", () => {
  if (document.readyState !== "interactive") return;
  const observer = new MutationObserver(() => {
    if (document.getElementById("app-wasm-loader")) return;
    observer.disconnect();
    ` + js + `
  });
  observer.observe(document.body, { childList: true, subtree: true });
});`)
}

// TestTheLoaderLeavesBeforeTheAppRedrawsTheFirstPaint: when the app adopts
// the first paint's chart, reading its candles and redrawing wait for a task
// of their own (components/firstpaint.go), so Go's first run ends, and
// go-app's loader leaves the page, before the app's own draw, not after it.
func TestTheLoaderLeavesBeforeTheAppRedrawsTheFirstPaint(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// Note when the loader leaves, on the page's own clock.
	watch := whenTheLoaderLeaves(`performance.mark("test:loader-gone");`)
	if err := chromedp.Run(ctx, watch, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=5min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|5min")
	waitFor(t, ctx, `performance.getEntriesByName("test:loader-gone").length > 0`)
	var at struct{ Adopted, Gone, AppDrawn float64 }
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
  const at = (n) => { const m = performance.getEntriesByName(n, "mark"); return m.length ? m[0].startTime : -1; };
  return { adopted: at("riskchart:adopted"), gone: at("test:loader-gone"), appDrawn: at("riskchart:app-drawn") };
})()`, &at)); err != nil {
		t.Fatal(err)
	}
	if at.Adopted < 0 {
		t.Fatal("the app did not adopt the first paint: nothing here to order")
	}
	if !(at.Adopted <= at.Gone && at.Gone < at.AppDrawn) {
		t.Errorf("adopted at %.1f ms, loader gone at %.1f ms, app drawn at %.1f ms: want the loader gone between the two", at.Adopted, at.Gone, at.AppDrawn)
	}
}

// TestGoFirstRunRendersEachPageOnce: what a page's components show from
// their mount is set before their first render (OnInit), and each OnMount
// that changes nothing on show ends with ctx.PreventUpdate, so go-app does
// not render the whole page a second time in Go's first run
// (docs/startup.md, "One render at mount"). When the loader leaves, the
// page shows what the mounts set (the page's tiers in the table, sorted by
// tier; the calculator at 10×; no status over the adopted chart), and the
// page's second render comes after.
func TestGoFirstRunRendersEachPageOnce(t *testing.T) {
	// Public tiers: the tiers embed carries them without a signed link.
	s := startServer(t, map[string]string{"RISKCHART_PUBLIC_TIERS": "true"})
	tiers := serverHoldsTiers(t, s.URL, "BTC-USDT") // the pages carry them
	// What the page shows when the loader leaves: the end of Go's first run.
	watch := whenTheLoaderLeaves(`const q = (s) => document.querySelector(s);
    const tierHeader = q('#tier-table button[data-sort="tier"]');
    window.testAtLoaderGone = {
      rows: document.querySelectorAll("#tier-table tbody tr[data-tier]").length,
      sort: tierHeader ? tierHeader.parentElement.getAttribute("aria-sort") : "",
      leverage: q("#calc-leverage") ? q("#calc-leverage").value : "",
      chart: !!q("#chart-area"),
      status: q("#chart-status") ? q("#chart-status").innerText : "",
      adopted: performance.getEntriesByName("riskchart:adopted").length > 0,
      renderedAgain: performance.getEntriesByName("riskchart:rendered-again").length > 0,
    };`)
	for _, tc := range []struct {
		name, path string
		chart      bool // the page adopts the first paint's chart
		tiers      bool // the page shows the tiers it carries
		calculator bool // and the calculator
	}{
		{"the chart page", "/?contract_code=BTC-USDT&period=5min", true, true, true},
		{"the tiers page", "/tiers?contract_code=BTC-USDT", false, true, true},
		{"the chart embed", "/embed/chart?contract_code=BTC-USDT&period=5min", true, false, false},
		{"the tiers embed", "/embed/tiers?contract_code=BTC-USDT&controls=0", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, watch, chromedp.Navigate(s.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!!window.testAtLoaderGone && performance.getEntriesByName("riskchart:rendered-again").length > 0`)
			var at struct {
				Rows                          int
				Sort, Leverage, Status        string
				Chart, Adopted, RenderedAgain bool
			}
			if err := chromedp.Run(ctx, chromedp.Evaluate(`window.testAtLoaderGone`, &at)); err != nil {
				t.Fatal(err)
			}
			if at.RenderedAgain {
				t.Error("go-app rendered the page a second time before the loader left: a mount or its navigation asked for an update")
			}
			if tc.chart {
				if !at.Chart || !at.Adopted {
					t.Errorf("when the loader left the chart was there: %v, adopted: %v; want both", at.Chart, at.Adopted)
				}
				if at.Status != "" {
					t.Errorf("when the loader left the adopted chart had the status %q over it", at.Status)
				}
			}
			if tc.tiers {
				if at.Rows != tiers {
					t.Errorf("when the loader left the tier table showed %d rows, want the page's %d", at.Rows, tiers)
				}
				if at.Sort != "ascending" {
					t.Errorf("when the loader left the tier column was sorted %q, want ascending", at.Sort)
				}
			}
			if tc.calculator && at.Leverage != "10" {
				t.Errorf("when the loader left the calculator's leverage was %q, want 10", at.Leverage)
			}
		})
	}
}

// TestAppWasmIsCompiledInAWorker: the page's first script compiles app.wasm
// in a worker (web/app-start.js), so the page itself never fetches it; and
// when the worker cannot start, its download fails or the browser has no
// workers, go-app's loader compiles it in the page and the app runs all the
// same.
func TestAppWasmIsCompiledInAWorker(t *testing.T) {
	s := startServer(t, nil)
	const chart = "/?contract_code=BTC-USDT&period=5min"
	const pageFetches = `performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/web/app.wasm")).length`
	const loaderGone = `!document.getElementById("app-wasm-loader")`
	t.Run("the worker compiles it", func(t *testing.T) {
		ctx := newBrowser(t)
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+chart)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `performance.getEntriesByName("riskchart:app-drawn").length > 0 && `+loaderGone)
		if n := evalJS[int](t, ctx, pageFetches); n != 0 {
			t.Errorf("the page fetched app.wasm %d times itself", n)
		}
		if wasmWireBytes(t, ctx) <= 0 {
			t.Error("the worker handed the page no timing of a download of app.wasm")
		}
	})
	// compiledByTheLoader checks that the page fetched app.wasm once, itself, and runs.
	compiledByTheLoader := func(t *testing.T, ctx context.Context) {
		t.Helper()
		waitFor(t, ctx, `performance.getEntriesByName("riskchart:app-drawn").length > 0 && `+loaderGone)
		if n := evalJS[int](t, ctx, pageFetches); n != 1 {
			t.Errorf("the page fetched app.wasm %d times itself, want once: the loader compiles it when the worker did not", n)
		}
		waitDrawn(t, ctx, "BTC-USDT|5min")
	}
	t.Run("the worker cannot start", func(t *testing.T) {
		ctx := newBrowser(t)
		held, hold := holdRequests(ctx, "*/web/app-compile.js*")
		whenHeld(ctx, held, func(id fetch.RequestID) { // the worker's script fails, as a blocked or broken request would
			chromedp.Run(ctx, fetch.FailRequest(id, network.ErrorReasonBlockedByClient))
		})
		if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+chart)); err != nil {
			t.Fatal(err)
		}
		compiledByTheLoader(t, ctx)
	})
	t.Run("the worker's download fails", func(t *testing.T) {
		ctx := newBrowser(t)
		held, hold := holdAppWasm(ctx)
		var asked atomic.Int32
		whenHeld(ctx, held, func(id fetch.RequestID) { // the worker's asking fails; the page's goes through
			if asked.Add(1) == 1 {
				chromedp.Run(ctx, fetch.FailRequest(id, network.ErrorReasonConnectionReset))
				return
			}
			chromedp.Run(ctx, fetch.ContinueRequest(id))
		})
		if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+chart)); err != nil {
			t.Fatal(err)
		}
		compiledByTheLoader(t, ctx)
		if n := asked.Load(); n != 2 {
			t.Errorf("app.wasm was asked for %d times, want twice: by the worker, then by the page", n)
		}
	})
	t.Run("the browser has no workers", func(t *testing.T) {
		ctx := newBrowser(t)
		if err := chromedp.Run(ctx, onEveryDocument(`delete window.Worker;`), chromedp.Navigate(s.URL+chart)); err != nil {
			t.Fatal(err)
		}
		compiledByTheLoader(t, ctx)
	})
}

// TestGoAppsStorageSweepComesAfterTheStart: go-app's sweep of expired
// persisted states reads every localStorage value; riskchart's build runs it
// a second after Go's first run instead of inside it (server/cmd/wasmgoapp's
// edits), and it still removes what has expired and keeps what has not.
func TestGoAppsStorageSweepComesAfterTheStart(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// States as go-app persists them, seeded before the page's scripts run;
	// whether the expired one was still there when the loader left is noted.
	const seed = `(() => {
  localStorage.setItem("sweep-expired", JSON.stringify({ Value: 1, ExpiresAt: "2001-01-01T00:00:00Z" }));
  localStorage.setItem("sweep-live", JSON.stringify({ Value: 2, ExpiresAt: "2999-01-01T00:00:00Z" }));
  new MutationObserver((_, observer) => {
    if (document.readyState !== "loading" && !document.getElementById("app-wasm-loader")) {
      window.sweepAtLoaderGone = localStorage.getItem("sweep-expired") !== null;
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
})();`
	if err := chromedp.Run(ctx, onEveryDocument(seed), chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.sweepAtLoaderGone !== undefined`)
	if !evalJS[bool](t, ctx, `window.sweepAtLoaderGone`) {
		t.Error("the expired state was gone when go-app's loader left: the sweep ran inside Go's first run")
	}
	waitFor(t, ctx, `localStorage.getItem("sweep-expired") === null`)
	if !evalJS[bool](t, ctx, `localStorage.getItem("sweep-live") !== null`) {
		t.Error("the sweep removed a state that has not expired")
	}
}

// TestTheAppMountsFromMarkup: go-app's copy in app.wasm mounts a tree from
// markup the page parses once (server/cmd/wasmgoapp/goapp/markup.go,
// docs/startup.md "Mounting from markup"). Each page of the app mounts
// that way, and the page it mounts is the one go-app makes node by node:
// with the parse broken (a template that keeps no markup), the shape comes
// back wrong, Go makes each node itself, and the two pages, as the loader
// leaves, have the same elements, attributes, form values and texts
// (digits and ages aside: the latest candle and the clock move between the
// two visits; and the install chip, a button once the browser has said the
// app is installable, which may come before or after the loader leaves).
func TestTheAppMountsFromMarkup(t *testing.T) {
	s := startServer(t, map[string]string{"RISKCHART_PUBLIC_TIERS": "true"})
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	getJSON(t, s.URL+venueapi.PathTiers+"?contract_code=BTC-USDT", &env) // the server holds them: both visits' pages carry them
	watch := whenTheLoaderLeaves(`const out = [];
    const walk = (n, depth) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === Node.TEXT_NODE) {
          out.push(depth + " #" + c.data.replace(/just now|[0-9]+ ?[a-z]* ago/g, "ago").replace(/[0-9]/g, "0"));
        } else if (c.nodeType === Node.ELEMENT_NODE && (c.id === "install" || c.classList.contains("install-place"))) {
          out.push(depth + " the install chip"); // a button once the browser says the app is installable, whenever that comes
        } else if (c.nodeType === Node.ELEMENT_NODE) {
          const attrs = [...c.attributes].map((a) => a.name + "=" + a.value.replace(/[0-9]/g, "0")).sort();
          const form = "value" in c && c.localName !== "li" && c.localName !== "button" ? " value=" + c.value + " checked=" + !!c.checked : "";
          out.push(depth + " " + c.localName + " " + attrs.join(" ") + form);
          if (c.id !== "chart") walk(c, depth + 1); // ECharts' own element
        }
      }
    };
    walk(document.body, 0);
    const p = window.riskchartParseMarkup;
    window.testMount = { dom: out, parsed: p ? p.parsed : -1, refused: p ? p.refused : -1 };`)
	breakParse := onEveryDocument(`Object.defineProperty(HTMLTemplateElement.prototype, "innerHTML", { set() {}, get() { return ""; } });`)
	type mount struct {
		DOM             []string
		Parsed, Refused int
	}
	visit := func(t *testing.T, path string, broken bool) mount {
		ctx := newBrowser(t)
		actions := []chromedp.Action{watch}
		if broken {
			actions = append(actions, breakParse)
		}
		if err := chromedp.Run(ctx, append(actions, chromedp.Navigate(s.URL+path))...); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `!!window.testMount`)
		return evalJS[mount](t, ctx, `window.testMount`)
	}
	for _, path := range []string{"/?contract_code=BTC-USDT&period=5min", "/tiers?contract_code=BTC-USDT",
		"/embed/chart?contract_code=BTC-USDT&period=5min", "/embed/tiers?contract_code=BTC-USDT&controls=0"} {
		t.Run(path, func(t *testing.T) {
			markup, each := visit(t, path, false), visit(t, path, true)
			if markup.Parsed < 1 || markup.Refused != 0 {
				t.Errorf("Go's first run mounted %d trees from markup, %d refused; want at least 1, none refused", markup.Parsed, markup.Refused)
			}
			if each.Parsed != 0 || each.Refused < 1 {
				t.Errorf("with the parse broken, %d trees mounted from markup and %d refused; want none, and at least 1", each.Parsed, each.Refused)
			}
			if len(markup.DOM) < 20 {
				t.Fatalf("the page had %d nodes when the loader left: not the app's page", len(markup.DOM))
			}
			if got, want := strings.Join(markup.DOM, "\n"), strings.Join(each.DOM, "\n"); got != want {
				for i := range min(len(markup.DOM), len(each.DOM)) {
					if markup.DOM[i] != each.DOM[i] {
						t.Fatalf("the page mounted from markup differs from go-app's at node %d of %d/%d:\n%s\nagainst\n%s", i, len(markup.DOM), len(each.DOM), markup.DOM[i], each.DOM[i])
					}
				}
				t.Fatalf("the page mounted from markup has %d nodes, go-app's %d", len(markup.DOM), len(each.DOM))
			}
		})
	}
}

// TestAPageAfterOneOfTheAppsInTheTabReadsAppWasmFromTheCache: a page of the
// app opened from another in the same tab (a link, a reload) finds V8's
// compiled module still in the renderer, and its compile worker reads
// app.wasm from the service worker's cache itself rather than fetching it
// through the worker's route, which costs two to three times as much
// (web/app-start.js, web/app-compile.js; docs/startup.md, "Reading
// app.wasm from the cache"). A tab's first page fetches, through the
// worker's route once it is installed: only a fetch reads and writes the
// browser's cache of compiled code.
func TestAPageAfterOneOfTheAppsInTheTabReadsAppWasmFromTheCache(t *testing.T) {
	s := startServer(t, nil)
	// Without the back/forward cache, a page left is gone with its worker,
	// and the workers up are those of the pages on show.
	ctx, _ := openChromium(t, newProfile(t, "riskchart-chromium-"), chromedp.Flag("disable-features", "BackForwardCache"))
	// The way the worker took app.wasm, as it reported it to the page.
	const way = `(() => {
  const m = performance.getEntriesByName("riskchart:wasm-fetch")[0];
  return !m ? "no report" : m.detail.fromCache ? "the cache, read by the worker" : m.detail.transferSize > 0 ? "a fetch from the network" : "a fetch answered from a cache";
})()`
	step := func(ctx context.Context, what string, open chromedp.Action, want string, up int) {
		t.Helper()
		if err := chromedp.Run(ctx, open); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		waitFor(t, ctx, jsAppRunning)
		if got := evalJS[string](t, ctx, way); got != want {
			t.Errorf("%s: app.wasm came by %s, want %s", what, got, want)
		}
		// The compile workers up in the browser: after a fetch one stays for
		// V8's offer of its code; having read the cache, it has nothing to
		// write and closes 10 s on, with the garbage its idle heap would keep.
		for deadline := time.Now().Add(15 * time.Second); compileWorkers(t, ctx) != up; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("%s: %d compile workers up, want %d", what, compileWorkers(t, ctx), up)
				break
			}
		}
	}
	step(ctx, "a first visit", chromedp.Navigate(s.URL+"/"), "a fetch from the network", 1)
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	step(ctx, "a link to another view in the same tab", chromedp.Navigate(s.URL+"/?period=5min"), "the cache, read by the worker", 0)
	step(ctx, "a reload", chromedp.Reload(), "the cache, read by the worker", 0)
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	step(tab, "a new tab's first page", chromedp.Navigate(s.URL+"/"), "a fetch answered from a cache", 1)
	step(tab, "its next page", chromedp.Navigate(s.URL+"/?period=15min"), "the cache, read by the worker", 0)
}

// TestTheCompileWorkerClosesItselfAfterItsStay: having fetched app.wasm,
// the compile worker stays for V8's offer of its compiled code, then closes
// itself, freeing the garbage its idle heap keeps (web/app-compile.js). Its
// three minutes are made three seconds here: the test rewrites that one
// constant of the script as the browser receives it, and fails if the
// constant is not there to rewrite. The worker must be up until about then,
// counted from the page's having the module, and gone soon after.
func TestTheCompileWorkerClosesItselfAfterItsStay(t *testing.T) {
	const stay, wait = 3 * time.Second, 10 * time.Second
	s := startServer(t, nil)
	ctx, _ := openChromium(t, newProfile(t, "riskchart-chromium-"))
	held, hold := holdResponses(ctx, "*/web/app-compile.js*")
	rewrote := make(chan error, 1)
	whenHeld(ctx, held, func(id fetch.RequestID) {
		err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			body, err := fetch.GetResponseBody(id).Do(ctx)
			if err != nil {
				return err
			}
			const from = "const stay = 180_000;"
			if n := strings.Count(string(body), from); n != 1 {
				return fmt.Errorf("the worker's script holds %q %d times, want once", from, n)
			}
			short := strings.Replace(string(body), from, fmt.Sprintf("const stay = %d;", stay.Milliseconds()), 1)
			return answerWith(id, "text/javascript", []byte(short)).Do(ctx)
		}))
		select {
		case rewrote <- err:
		default:
		}
	})
	if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	awaitHandled(t, rewrote, wait, "the page started no compile worker")
	// The worker is watched from the start, in the browser's list of
	// targets, each sighting timed on this clock; the module's time is read
	// from the page once the worker is gone. Seen only once the app ran, or
	// through the page's main thread, busy with Go's first run, a loaded host
	// first looked after the stay and saw the worker gone.
	var first, last time.Time // the first and the last sighting of the worker up
	for deadline := time.Now().Add(stay + 2*wait); ; time.Sleep(50 * time.Millisecond) {
		now := time.Now()
		if compileWorkers(t, ctx) > 0 {
			if first.IsZero() {
				first = now
			}
			last = now
		} else if !first.IsZero() {
			break
		}
		if now.After(deadline) {
			if first.IsZero() {
				t.Fatal("no compile worker came up")
			}
			t.Fatalf("the compile worker is still up %v after it came up; its stay is %v", now.Sub(first).Round(time.Millisecond), stay)
		}
	}
	// Since the page had the module, ms: the worker's timer started as it
	// handed it over. The page's clock is read as the wall clock's.
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:module").length > 0`)
	module := evalJS[float64](t, ctx, `performance.timeOrigin + performance.getEntriesByName("riskchart:module")[0].startTime`)
	up := float64(last.UnixMilli()) - module // the latest time since the module at which the worker was seen up
	if least := float64((stay - 500*time.Millisecond).Milliseconds()); up < least {
		t.Errorf("the compile worker was last seen up %.0f ms after the page had the module, then gone; it stays %v", up, stay)
	}
}

// compileWorkers is how many compile workers (web/app-compile.js) the
// browser of ctx has up.
func compileWorkers(t *testing.T, ctx context.Context) int {
	t.Helper()
	targets, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ti := range targets {
		if ti.Type == "worker" && strings.HasSuffix(ti.URL, "/web/app-compile.js") {
			n++
		}
	}
	return n
}
