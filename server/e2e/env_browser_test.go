package e2e

// The pages under browser conditions other than the default: no
// WebAssembly, an app.wasm that does not load, Windows' contrast themes
// (forced colours) and printing. The page the server wrote, the first
// paint's chart and the controls, which are links and forms, must then
// still serve, and say plainly what does not.

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// jsLoaderNote is what go-app's loader note says, "" when it is gone.
const jsLoaderNote = `(document.getElementById("app-wasm-loader-label") || {innerText: ""}).innerText`

// waitUpTo waits up to d for js to be true, and fails the test with what
// the loader note says when it is not.
func waitUpTo(t *testing.T, ctx context.Context, d time.Duration, js, what string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(js, nil, chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		t.Fatalf("%s within %v: %v; the loader's note says %q", what, d, err, evalJS[string](t, ctx, jsLoaderNote))
	}
}

// thrown collects the uncaught exceptions of the tab's pages from now on.
func thrown(ctx context.Context) func() []string {
	return collected(ctx, func(ev any) (string, bool) {
		e, ok := ev.(*runtime.EventExceptionThrown)
		if !ok {
			return "", false
		}
		text := e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			text += " " + e.ExceptionDetails.Exception.Description
		}
		return text, true
	})
}

// jsSaysNoApp is true once the loader's note says in words that the app
// is unavailable, with no exception's text in it.
const jsSaysNoApp = `(() => { const s = ` + jsLoaderNote + `; return /live app is unavailable/i.test(s) && !/Error|TypeError|@\+/.test(s); })()`

// keepsFirstPaintAndControls checks the chart page without its app: the
// first paint's candles stay, and a period chip opens that period, drawn.
func keepsFirstPaintAndControls(t *testing.T, ctx context.Context) {
	t.Helper()
	if n := evalJS[int](t, ctx, jsCandleCount); n == 0 {
		t.Fatal("the first paint's chart is gone")
	}
	click(t, ctx, `[data-period="5min"]`)
	// Polled across the navigation, which ends each evaluation under way.
	js := `location.search.includes("period=5min") && ` + jsCandleCount + ` > 0`
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &ok)); err == nil && ok {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the 5min chip did not open 5min, drawn, within 10 s; the page is at %s", evalJS[string](t, ctx, `location.href`))
		}
	}
}

// TestAPageWithoutWebAssemblySaysTheAppIsUnavailable: a browser that runs
// no WebAssembly (iOS's Lockdown Mode, a policy that turns it off) shows
// the server's page and the first paint, whose controls navigate; the
// loader's note says the live app is unavailable, rather than "Starting
// Riskchart…" for ever, and no script throws.
func TestAPageWithoutWebAssemblySaysTheAppIsUnavailable(t *testing.T) {
	s := startServer(t, nil)
	for _, path := range []string{"/?contract_code=BTC-USDT&period=1min", "/tiers?contract_code=BTC-USDT"} {
		t.Run(path, func(t *testing.T) {
			ctx := newBrowser(t)
			threw := thrown(ctx)
			if err := chromedp.Run(ctx, onEveryDocument(`delete window.WebAssembly`)); err != nil {
				t.Fatal(err)
			}
			navigate(t, ctx, s.URL+path)
			waitUpTo(t, ctx, 8*time.Second, jsSaysNoApp, "the note said the live app is unavailable")
			if strings.HasPrefix(path, "/?") {
				keepsFirstPaintAndControls(t, ctx)
				waitUpTo(t, ctx, 8*time.Second, jsSaysNoApp, "the next page's note said the live app is unavailable")
			} else if evalJS[int](t, ctx, `document.querySelectorAll("#tier-table tbody tr").length`) == 0 {
				t.Error("the server's tiers are gone")
			}
			if e := threw(); len(e) > 0 {
				t.Errorf("scripts threw: %q", e)
			}
		})
	}
}

// TestAPageWhoseAppWasmDoesNotLoadSaysSo: app.wasm lost to the network,
// answered with an error status, or cut short: the first paint and the
// controls stay, and the note says in words that the live app is
// unavailable, not the exception's text ("TypeError: Failed to fetch",
// "CompileError: WebAssembly.compileStreaming(): section … @+14770").
func TestAPageWhoseAppWasmDoesNotLoadSaysSo(t *testing.T) {
	s := startServer(t, nil)
	wasm, err := os.ReadFile(filepath.Join(repoRoot, "web", "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	truncated := base64.StdEncoding.EncodeToString(wasm[:len(wasm)/2])
	answers := []struct {
		name   string
		answer func(id fetch.RequestID) chromedp.Action
	}{
		{"a network error", func(id fetch.RequestID) chromedp.Action {
			return fetch.FailRequest(id, network.ErrorReasonConnectionReset)
		}},
		{"404", func(id fetch.RequestID) chromedp.Action {
			return fetch.FulfillRequest(id, 404).WithBody(base64.StdEncoding.EncodeToString([]byte("404 page not found")))
		}},
		{"a body cut short", func(id fetch.RequestID) chromedp.Action {
			return fetch.FulfillRequest(id, 200).WithResponseHeaders([]*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/wasm"}}).WithBody(truncated)
		}},
	}
	for _, a := range answers {
		t.Run(a.name, func(t *testing.T) {
			ctx := newBrowser(t)
			held, hold := holdAppWasm(ctx)
			whenHeld(ctx, held, func(id fetch.RequestID) {
				c := chromedp.FromContext(ctx)
				if err := a.answer(id).Do(cdp.WithExecutor(ctx, c.Target)); err != nil && ctx.Err() == nil {
					t.Logf("answering app.wasm: %v", err)
				}
			})
			if err := chromedp.Run(ctx, hold); err != nil {
				t.Fatal(err)
			}
			navigate(t, ctx, s.URL+"/?contract_code=BTC-USDT&period=1min")
			waitUpTo(t, ctx, 10*time.Second, jsSaysNoApp, "the note said the live app is unavailable")
			keepsFirstPaintAndControls(t, ctx)
		})
	}
}

// jsForcedLook is how an element looks in what forced colours leave to the
// page: its colours, borders, outline, weight, underline and shadow.
const jsForcedLook = `((sel) => {
  const el = document.querySelector(sel);
  if (!el) return "no " + sel;
  const c = getComputedStyle(el);
  return ["color", "background-color", "border-top-color", "border-top-width", "border-left-width", "outline-style", "font-weight", "text-decoration-line", "box-shadow"].map((p) => p + ": " + c.getPropertyValue(p)).join("; ");
})`

// TestSelectedStatesShowInForcedColors: in Windows' contrast themes the
// browser replaces the page's colours with the system's; the period on
// show, the risk page on show and the calculator's tier must still look
// unlike the others, which the accent colour alone told apart.
func TestSelectedStatesShowInForcedColors(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	forced := emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "forced-colors", Value: "active"}})
	if err := chromedp.Run(ctx, forced); err != nil {
		t.Fatal(err)
	}
	differ := func(t *testing.T, what, selected, other string) {
		t.Helper()
		a := evalJS[string](t, ctx, jsForcedLook+"("+fmt.Sprintf("%q", selected)+")")
		b := evalJS[string](t, ctx, jsForcedLook+"("+fmt.Sprintf("%q", other)+")")
		if a == b || strings.HasPrefix(a, "no ") || strings.HasPrefix(b, "no ") {
			t.Errorf("%s looks as the others do in forced colours:\n selected: %s\n other:    %s", what, a, b)
		}
	}
	navigate(t, ctx, s.URL+"/?contract_code=BTC-USDT&period=1min")
	if !evalJS[bool](t, ctx, `matchMedia("(forced-colors: active)").matches`) {
		t.Fatal("the browser does not emulate forced colours")
	}
	differ(t, "the period on show (the server's page)", `[data-period="1min"]`, `[data-period="5min"]`)
	waitFor(t, ctx, jsAppRunning)
	differ(t, "the period on show (the app's)", `[data-period="1min"]`, `[data-period="5min"]`)

	navigate(t, ctx, s.URL+"/tiers?contract_code=BTC-USDT")
	waitFor(t, ctx, `!document.getElementById("app-wasm-loader") && document.querySelectorAll("#tier-table tbody tr").length > 1 && !!document.getElementById("calc-size")`)
	differ(t, "the risk page on show", `.bar .chip[aria-current="page"]`, `.bar a.chip:not([aria-current])`)
	if err := typeInto(ctx, "calc-leverage", "10"); err != nil {
		t.Fatal(err)
	}
	if err := typeInto(ctx, "calc-size", "10"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.querySelector("#tier-table tr.current")`)
	differ(t, "the calculator's tier", `#tier-table tr.current td`, `#tier-table tbody tr:not(.current) td`)
}

// TestThePrintedChartSpillsOverNothing: printing lays the chart page out
// again at the paper's width (740 CSS px: Letter or A4 less the margins)
// and runs no script first, so ECharts' canvas keeps the size the screen
// gave it; here the chart's resizing is stopped to hold it so. The printed
// chart must fit the paper's width and its own box, over none of the risk
// panel below it, and the panel must be printed whole.
func TestThePrintedChartSpillsOverNothing(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	navigate(t, ctx, s.URL+"/?contract_code=BTC-USDT&period=1min")
	waitFor(t, ctx, jsAppRunning)
	do(t, ctx, `echarts.getInstanceByDom(document.getElementById("chart")).resize = () => {}`)
	for _, paper := range []struct {
		name          string
		width, height int64
	}{{"portrait", 740, 980}, {"landscape", 980, 740}} {
		t.Run(paper.name, func(t *testing.T) {
			if err := chromedp.Run(ctx, emulation.SetEmulatedMedia().WithMedia("print"),
				emulation.SetDeviceMetricsOverride(paper.width, paper.height, 1, false)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			bad := evalJS[[]string](t, ctx, `(() => {
  const out = [];
  const r = (el) => el.getBoundingClientRect();
  const canvas = r(document.querySelector("#chart canvas")), area = r(document.getElementById("chart-area")), risk = document.querySelector(".risk");
  if (canvas.right > document.documentElement.clientWidth + 1) out.push("the chart ends at " + Math.round(canvas.right) + " px, past the paper's " + document.documentElement.clientWidth);
  if (canvas.bottom > area.bottom + 1) out.push("the chart's canvas ends " + Math.round(canvas.bottom - area.bottom) + " px below its box");
  const below = r(risk);
  if (below.top < canvas.bottom - 1 && below.left < canvas.right - 1) out.push("the risk panel starts at " + Math.round(below.top) + " px, under the chart, which ends at " + Math.round(canvas.bottom));
  if (risk.scrollHeight > risk.clientHeight + 1) out.push("the risk panel is cut at " + risk.clientHeight + " px of " + risk.scrollHeight);
  return out;
})()`)
			if len(bad) > 0 {
				t.Errorf("printed on %s paper: %s", paper.name, strings.Join(bad, "; "))
			}
		})
	}
}

// TestTheChartPageReflowsOnAPhone: at 320 CSS px (WCAG 1.4.10, a 1280 px
// window zoomed to 400 %) and a phone's 390, the chart page scrolls
// sideways nowhere but inside its strips, with studies or without: the
// studies' legend, one line that scrolls within itself, was as wide as the
// chart plus its padding, and the whole page scrolled by 24 px.
func TestTheChartPageReflowsOnAPhone(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	for _, width := range []int64{320, 390} {
		for _, query := range []string{"contract_code=BTC-USDT", "contract_code=BTC-USDT&indicators=ma:7,ma:25,macd"} {
			t.Run(fmt.Sprintf("%d px %s", width, query), func(t *testing.T) {
				if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(width, 700, 1, true)); err != nil {
					t.Fatal(err)
				}
				navigate(t, ctx, s.URL+"/?"+query)
				waitFor(t, ctx, jsAppRunning+` && document.getElementById("legend").children.length > 0`)
				wide := evalJS[[]string](t, ctx, `[...document.querySelectorAll("body *")].filter((el) => {
  if (el.getBoundingClientRect().right <= document.documentElement.clientWidth + 1) return false;
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    if (getComputedStyle(p).overflowX !== "visible") return false; // inside a box that scrolls or clips
  }
  return true;
}).map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " ends at " + Math.round(el.getBoundingClientRect().right))`)
				if sw, cw := evalJS[int](t, ctx, `document.documentElement.scrollWidth`), evalJS[int](t, ctx, `document.documentElement.clientWidth`); sw > cw || len(wide) > 0 {
					t.Errorf("the page is %d px wide in a %d px window: %s", sw, cw, strings.Join(wide, "; "))
				}
			})
		}
	}
}
