package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// jsControl names an element for a test's messages: its id, or its tag and
// its period or text.
const jsControl = `((e) => !e || e === document.body ? "" : e.id ? "#" + e.id : e.tagName.toLowerCase() + "[" + (e.dataset.period || e.getAttribute("aria-label") || e.textContent.trim().slice(0, 24)) + "]")`

// TestThePageByKeyboardAndScreenReader reads the chart page as a screen
// reader does (the browser's accessibility tree) and moves through it with
// the Tab key alone: every control has a name, Tab reaches every one, and
// the chart's controls work from the keyboard.
func TestThePageByKeyboardAndScreenReader(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, `!!document.querySelector("#tier-table tbody tr")`) // the risk panels' controls are in

	t.Run("every control a person can focus has a name a screen reader reads", func(t *testing.T) {
		// The tree is read raw: cdproto's enums lag the browser's (an
		// "uninteresting" reason fails its decoding).
		var tree struct {
			Nodes []axNode `json:"nodes"`
		}
		c := chromedp.FromContext(ctx)
		if err := c.Target.Execute(cdp.WithExecutor(ctx, c.Target), "Accessibility.getFullAXTree", nil, &tree); err != nil {
			t.Fatal(err)
		}
		nodes := tree.Nodes
		var focusable, unnamed []string
		for _, n := range nodes {
			role, name := fmt.Sprint(n.Role.Value), ""
			if n.Name.Value != nil {
				name = strings.TrimSpace(fmt.Sprint(n.Name.Value))
			}
			if n.Ignored || role == "RootWebArea" || !n.has("focusable") {
				continue
			}
			focusable = append(focusable, role+" "+name)
			if name == "" {
				unnamed = append(unnamed, fmt.Sprintf("a %s (DOM node %d)", role, n.BackendDOMNodeID))
			}
		}
		if len(focusable) < 20 {
			t.Fatalf("only %d focusable nodes in the tree: %q", len(focusable), focusable)
		}
		t.Logf("%d focusable nodes: %q", len(focusable), focusable)
		if len(unnamed) > 0 {
			t.Errorf("no accessible name: %s", strings.Join(unnamed, ", "))
		}
	})

	t.Run("Tab reaches every control", func(t *testing.T) {
		// Every control drawn, whatever its tabindex says.
		controls := evalJS[[]string](t, ctx, `[...document.querySelectorAll("button, select, input, textarea, a[href], [tabindex], [role=application]")]
  .filter((e) => !e.disabled && e.getClientRects().length > 0).map(`+jsControl+`)`)
		do(t, ctx, `document.activeElement && document.activeElement.blur()`)
		var seen []string
		for range 3 * len(controls) {
			if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
				t.Fatal(err)
			}
			at := evalJS[string](t, ctx, jsControl+`(document.activeElement)`)
			if len(seen) > 0 && at == seen[0] {
				break // round again
			}
			if at != "" {
				seen = append(seen, at)
			}
		}
		var missed []string
		for _, c := range controls {
			if !slices.Contains(seen, c) {
				missed = append(missed, c)
			}
		}
		t.Logf("%d controls, Tab goes through %d", len(controls), len(seen))
		if len(missed) > 0 {
			t.Errorf("Tab never reaches %q (it goes through %q)", missed, seen)
		}
	})

	t.Run("the chart's controls work from the keyboard", func(t *testing.T) {
		press := func(sel, key string) {
			if err := chromedp.Run(ctx, chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(key)); err != nil {
				t.Fatalf("%s on %s: %v", key, sel, err)
			}
		}
		press(`[data-period="15min"]`, kb.Enter)
		waitDrawn(t, ctx, "BTC-USDT|15min")
		press(`#tz-toggle`, " ")
		waitFor(t, ctx, `document.getElementById("legend-time").textContent.endsWith("UTC")`)
		press(`#theme-toggle`, kb.Enter)
		waitFor(t, ctx, `document.documentElement.dataset.theme === "light"`)
		if err := chromedp.Run(ctx, chromedp.Focus(`#contract-input`, chromedp.ByQuery), chromedp.KeyEvent("ETH-USDT"+kb.Enter)); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "ETH-USDT|15min")
		if u := evalJS[string](t, ctx, `location.search`); !strings.Contains(u, "contract_code=ETH-USDT") || !strings.Contains(u, "period=15min") {
			t.Errorf("the URL %q does not hold the view chosen from the keyboard", u)
		}
		screenshot(t, ctx, "chart-keyboard")
	})

	t.Run("the Embed dialog takes the focus and gives it back when it closes", func(t *testing.T) {
		const closed = `!document.getElementById("embed-dialog") && document.activeElement?.id === "embed-open"`
		for _, how := range []struct {
			name  string
			close chromedp.Action
		}{
			{"Escape", chromedp.KeyEvent(kb.Escape)},
			{"its Close button", chromedp.Tasks{chromedp.Focus(`#embed-dialog > button:last-child`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)}},
		} {
			if err := chromedp.Run(ctx, chromedp.Focus(`#embed-open`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `document.activeElement?.id === "embed-dialog" && !!document.getElementById("embed-chart")`)
			if err := chromedp.Run(ctx, how.close); err != nil {
				t.Fatalf("closing by %s: %v", how.name, err)
			}
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := chromedp.Run(pctx, chromedp.Poll(closed, nil, chromedp.WithPollingInterval(25*time.Millisecond)))
			cancel()
			if err != nil {
				t.Errorf("closed by %s, the focus is on %q, want it back on the Embed button", how.name, evalJS[string](t, ctx, jsControl+`(document.activeElement)`))
			}
		}
	})
}

// axNode is what the test reads of a node of the accessibility tree.
type axNode struct {
	Ignored          bool        `json:"ignored"`
	Role             axValue     `json:"role"`
	Name             axValue     `json:"name"`
	Properties       []axSetting `json:"properties"`
	BackendDOMNodeID int64       `json:"backendDOMNodeId"`
}

type axValue struct {
	Value any `json:"value"`
}

type axSetting struct {
	Name  string  `json:"name"`
	Value axValue `json:"value"`
}

// has reports whether the node has the boolean property name set.
func (n axNode) has(name string) bool {
	return slices.ContainsFunc(n.Properties, func(p axSetting) bool {
		return p.Name == name && p.Value.Value == true
	})
}

// TestTheServersPageMeansWhatItsControlsSay: before app.wasm runs, the
// server's page is the page, and its controls' states are those the app
// gives them: the period and zone on show pressed, the studies menu closed,
// the risk panel's Refresh not disabled. (go-app's server-side renderer
// wrote true bare and false as ="false": server/internal/bundle/attrs.go.)
func TestTheServersPageMeansWhatItsControlsSay(t *testing.T) {
	s := startServer(t, nil)
	ctx, _ := openHoldingAppWasm(t, s.URL+"/?period=5min&tz=utc")
	waitFor(t, ctx, `!!document.getElementById("risk-refresh") && !!window.riskchartBoot?.settled`)
	got := evalJS[string](t, ctx, `JSON.stringify({
  pressed: [...document.querySelectorAll(".chip[data-period]")].filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.period),
  unset: [...document.querySelectorAll("[aria-pressed]")].filter((b) => !["true", "false"].includes(b.getAttribute("aria-pressed"))).length,
  utc: document.getElementById("tz-toggle").getAttribute("aria-pressed"),
  studiesOpen: document.getElementById("study-menu").open,
  refreshDisabled: document.getElementById("risk-refresh").disabled,
  loader: !!document.getElementById("app-wasm-loader"),
})`)
	if want := `{"pressed":["5min"],"unset":0,"utc":"true","studiesOpen":false,"refreshDisabled":false,"loader":true}`; got != want {
		t.Errorf("before the app runs: %s, want %s", got, want)
	}
}
