package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

func TestTheManifestIsValidAndItsIconsLoad(t *testing.T) {
	s := startServer(t, nil)
	res, err := http.Get(s.URL + "/manifest.webmanifest")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, ShortName, Description, StartURL, Display, ThemeColor, BackgroundColor string
		Icons                                                                        []struct{ Src, Type, Sizes, Purpose string }
	}
	var raw map[string]json.RawMessage
	json.NewDecoder(res.Body).Decode(&raw)
	res.Body.Close()
	for k, dst := range map[string]*string{"name": &m.Name, "short_name": &m.ShortName, "description": &m.Description,
		"start_url": &m.StartURL, "display": &m.Display, "theme_color": &m.ThemeColor, "background_color": &m.BackgroundColor} {
		if err := json.Unmarshal(raw[k], dst); err != nil || *dst == "" {
			t.Errorf("manifest %s missing", k)
		}
	}
	json.Unmarshal(raw["icons"], &m.Icons)
	if m.Display != "standalone" {
		t.Errorf("display %q", m.Display)
	}
	sizes := map[string]bool{}
	for _, ic := range m.Icons {
		if ic.Type != "image/png" {
			continue
		}
		res, err := http.Get(s.URL + ic.Src)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("icon %s: %v %v", ic.Src, err, res)
		}
		img, err := png.Decode(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("icon %s is not a PNG: %v", ic.Src, err)
		}
		if got := img.Bounds().Dx(); ic.Sizes != fmtSize(got) {
			t.Errorf("icon %s is %d px, the manifest says %s", ic.Src, got, ic.Sizes)
		}
		sizes[ic.Sizes+"/"+ic.Purpose] = true
	}
	for _, want := range []string{"192x192/", "512x512/", "512x512/maskable"} {
		if !sizes[want] {
			t.Errorf("no %s icon in %v", want, sizes)
		}
	}
}

func fmtSize(px int) string { return fmt.Sprintf("%dx%d", px, px) }

func TestOfflineReloadDrawsTheLastChartMarked(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=ETH-USDT&period=5min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && !!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]')`)
	if evalJS[bool](t, ctx, `!!document.getElementById("update-banner")`) {
		t.Fatal("a first visit offers an update")
	}
	// The worker installed on the first visit controls the second.
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `!!navigator.serviceWorker.controller`)
	// The worker activates only once its install has precached the shell.
	if !evalAwait[bool](t, ctx, `Promise.all(["/", "/app.js", "/wasm_exec.js", "/web/app.wasm", "/web/echarts.min.js", "/manifest.webmanifest"].map(u => caches.match(u))).then(r => r.every(Boolean))`) {
		t.Fatal("the active worker's cache lacks part of the app shell")
	}
	s.Stop(t)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatalf("reload with the server stopped: %v", err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `(document.getElementById("offline-mark") || {}).textContent?.startsWith("Offline, as of")`)
	waitFor(t, ctx, `(document.getElementById("risk-offline") || {}).textContent?.startsWith("Offline, as of") && document.querySelectorAll("#tier-table tbody tr").length > 0 && !!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]')`)
	screenshot(t, ctx, "pwa-offline")
}

func TestANewDeploymentIsOfferedAsAReload(t *testing.T) {
	// Two deployments on the same origin: the second differs in style.css,
	// which is part of the version the service worker is keyed by.
	root := t.TempDir()
	copyTree(t, repoRoot, root, "wasm_exec.js", "web")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := map[string]string{"RISKCHART_ADDR": addr, "RISKCHART_ROOT": root}
	first := startServer(t, env)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(first.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!navigator.serviceWorker.controller`)
	if evalJS[bool](t, ctx, `!!document.getElementById("update-banner")`) {
		t.Fatal("an update is offered before any new deployment")
	}
	first.Stop(t)
	css := filepath.Join(root, "web", "style.css")
	b, _ := os.ReadFile(css)
	os.WriteFile(css, append(b, []byte("\n/* deployment 2 */\n")...), 0o644)
	startServer(t, env)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.getElementById("update-banner")`)
	screenshot(t, ctx, "pwa-update")
}

// copyTree copies the named files and folders of src into dst.
func copyTree(t *testing.T, src, dst string, names ...string) {
	t.Helper()
	for _, n := range names {
		err := filepath.WalkDir(filepath.Join(src, n), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		if err != nil {
			t.Fatalf("copying %s: %v", n, err)
		}
	}
}

// TestTheInstallButtonAppearsWhenTheBrowserOffersInstallation offers
// installation on screens from a small phone to a wide one, after the chart
// is drawn, as browsers do: the button appears in the header without moving
// the chart, covers no other control and nothing below the header, and its
// click prompts.
func TestTheInstallButtonAppearsWhenTheBrowserOffersInstallation(t *testing.T) {
	s := startServer(t, nil)
	for _, screen := range []struct {
		name          string
		width, height int64
	}{
		// 1024 and 1536 px are where the header's toggles, the button among
		// them, just fit a row beside the period chips or the picker.
		{"wide", 1920, 1080}, {"laptop", 1536, 864}, {"desktop", 1280, 800}, {"small-laptop", 1024, 768},
		{"tablet", 768, 1024}, {"narrow", 600, 800}, {"phone", 390, 800}, {"small-phone", 320, 640},
	} {
		t.Run(screen.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(screen.width, screen.height, 1, screen.width < 600),
				chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT-CQ")); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT-CQ|1min")
			before := evalJS[string](t, ctx, jsChartBox)
			// Offer installation as the browser does. Headless Chromium may or
			// may not offer it itself (156 does, at a moment of its choosing,
			// and its offer replaces ours): whichever offer the page holds when
			// the button is clicked must be the one prompted, so both record
			// the prompt.
			do(t, ctx, `(() => {
		if (window.BeforeInstallPromptEvent) {
			BeforeInstallPromptEvent.prototype.prompt = function () { window.prompted = true; return Promise.resolve(); };
		}
		const e = new Event("beforeinstallprompt");
		e.prompt = () => { window.prompted = true; };
		e.userChoice = Promise.resolve({outcome: "dismissed"});
		window.dispatchEvent(e);
	})()`)
			waitFor(t, ctx, `!!document.getElementById("install")`)
			if after := evalJS[string](t, ctx, jsChartBox); after != before {
				t.Errorf("the install button moved the chart from %s to %s", before, after)
			}
			if got := evalJS[string](t, ctx, `(() => {
  const box = (e) => e.getBoundingClientRect();
  const b = box(document.getElementById("install")), bar = box(document.querySelector(".bar"));
  const meets = (r) => r.width > 0 && r.height > 0 && r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
  const covered = [...document.querySelectorAll(".bar h1, .bar select, .bar input, .bar button")]
    .filter((e) => e.id !== "install" && meets(box(e))).map((e) => e.id || e.textContent.trim());
  const inBar = b.left >= bar.left && b.right <= bar.right && b.top >= bar.top && b.bottom <= bar.bottom;
  // The controls of its row: the button is as high as they are, on their line.
  const offRow = [...document.querySelectorAll(".bar select, .bar input, .bar button, .bar .chip")]
    .filter((e) => e.id !== "install").map((e) => [e, box(e)])
    .filter(([, r]) => r.width > 0 && r.height > 0 && r.top < b.bottom && b.top < r.bottom)
    .filter(([, r]) => Math.abs(r.top - b.top) > 1 || Math.abs(r.height - b.height) > 1)
    .map(([e, r]) => (e.id || e.textContent.trim()) + " " + Math.round(r.top) + "+" + Math.round(r.height) + " against " + Math.round(b.top) + "+" + Math.round(b.height));
  return JSON.stringify({inBar, covered, offRow, inWindow: b.right <= innerWidth, name: document.getElementById("install").getAttribute("aria-label")});
})()`); got != `{"inBar":true,"covered":[],"offRow":[],"inWindow":true,"name":"Install app"}` {
				t.Errorf("the install button: %s", got)
			}
			screenshot(t, ctx, "pwa-install-button-"+screen.name)
			click(t, ctx, "#install")
			waitFor(t, ctx, `window.prompted === true`)
		})
	}
}

// gatedProxy stands between the browser and the server: it counts the
// downloads of app.wasm and, while held, keeps every answer back, so that a
// test can see what the page draws before the network answers.
type gatedProxy struct {
	*httptest.Server
	wasmAll, wasmFull atomic.Int32 // app.wasm requests; answers with a body
	klineHeld         atomic.Int32 // KLine requests held
	mu                sync.Mutex
	gate              chan struct{} // nil: open
}

func newGatedProxy(t *testing.T, target string) *gatedProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &gatedProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.URL.Path == "/web/app.wasm" && r.StatusCode == http.StatusOK {
			p.wasmFull.Add(1)
		}
		return nil
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/web/app.wasm" {
			p.wasmAll.Add(1)
		}
		p.mu.Lock()
		gate := p.gate
		p.mu.Unlock()
		if gate != nil {
			if r.URL.Path == venueapi.PathKLine {
				p.klineHeld.Add(1)
			}
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *gatedProxy) hold() {
	p.mu.Lock()
	p.gate = make(chan struct{})
	p.mu.Unlock()
}

func (p *gatedProxy) release() {
	p.mu.Lock()
	if p.gate != nil {
		close(p.gate)
		p.gate = nil
	}
	p.mu.Unlock()
}

func TestASecondVisitDrawsTheLastChartBeforeTheNetworkAnswers(t *testing.T) {
	s := startServer(t, nil)
	p := newGatedProxy(t, s.URL)
	t.Cleanup(p.release)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.URL+"/?contract_code=ETH-USDT&period=15min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|15min")
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active && r.scope === location.origin + "/")`)
	// The page and the worker's precache both ask for app.wasm on a first
	// visit; only one of them downloads it (the other revalidates).
	if full := p.wasmFull.Load(); full != 1 {
		t.Fatalf("a first visit downloaded app.wasm %d times", full)
	}
	asked := p.wasmAll.Load()
	p.hold()
	// The URL names a view: the worker asks the server for its page first,
	// and opens the chart page's shell when the network has been silent for
	// 3 s (web/app-worker.js, shellAfter).
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|15min")
	for deadline := time.Now().Add(10 * time.Second); p.klineHeld.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the page never asked for its candles")
		}
	}
	// Nothing has come from the network, and the chart is on show.
	waitDrawn(t, ctx, "ETH-USDT|15min")
	if evalJS[bool](t, ctx, `!!document.getElementById("offline-mark")`) {
		t.Fatal("the last chart is marked offline while the server is still answering")
	}
	if got := p.wasmAll.Load(); got != asked {
		t.Fatalf("the second visit asked the network for app.wasm (%d requests, %d before)", got, asked)
	}
	screenshot(t, ctx, "pwa-before-network")
	p.release()
	waitFor(t, ctx, `!document.getElementById("offline-mark") && !document.getElementById("chart-status")`)
	// The shell carries no contract list (unlike the first visit's page,
	// whose list left nothing in the HTTP cache): the page asks the network
	// for it, an answer the gate held back.
	waitFor(t, ctx, `performance.getEntriesByType("resource").some((r) => new URL(r.name).pathname === "`+venueapi.PathContracts+`")`)
	// The worker's static routes answered the app's files from its cache
	// without running its script, and sent live data to the network.
	routes := evalJS[[][2]string](t, ctx, `performance.getEntriesByType("resource").map((r) => [new URL(r.name).pathname, r.workerFinalSourceType])`)
	want := map[string]string{"/app.js": "cache", "/web/echarts.min.js": "cache", "/web/chart-boot.js": "cache", "/api/v1/contracts": "network"}
	// app.wasm is fetched by the worker that compiles it (web/app-start.js),
	// which hands the page its timing: none of it came over the network.
	if wire := wasmWireBytes(t, ctx); wire != 0 {
		t.Errorf("app.wasm's fetch moved %v bytes (-1: no timing handed over), want 0: the cache", wire)
	}
	for _, r := range routes {
		if strings.HasPrefix(r[0], "/sapi/") || strings.HasPrefix(r[0], "/api/") {
			if r[1] != "network" {
				t.Errorf("%s came from %q, want the network", r[0], r[1])
			}
		}
		if w, ok := want[r[0]]; ok {
			if r[1] != w {
				t.Errorf("%s came from %q, want %q", r[0], r[1], w)
			}
			delete(want, r[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("the second visit did not load %v", want)
	}
}

// evalAwait evaluates js, waiting for the promise it returns.
func evalAwait[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &v, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// TestAReturnVisitOpensThePageItAskedFor: the service worker keeps each
// page's shell. A bare path opens from its shell at once, the network held
// back; a URL naming a view opens the server's page for that view; with the
// server gone, its path's shell, which the app then routes. One shell for
// every page would show a tiers embed as the chart page's header and chips,
// for BTC-USDT, until app.wasm ran.
func TestAReturnVisitOpensThePageItAskedFor(t *testing.T) {
	s := startServer(t, nil)
	p := newGatedProxy(t, s.URL)
	t.Cleanup(p.release)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.URL+"/tiers?contract_code=ETH-USDT")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:risk-first-data").length > 0`)
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	// What the page held as it finished parsing (readyState "interactive",
	// before the deferred app.js runs: at DOMContentLoaded, after it, a
	// module from the cache had at times let the app render its view
	// already), and the theme on its <html> as the parser made it, before
	// any script.
	if err := chromedp.Run(ctx, onEveryDocument(`new MutationObserver((records, seen) => {
  const html = records.flatMap((r) => [...r.addedNodes]).find((n) => n.nodeName === "HTML");
  if (html) {
    sessionStorage.setItem("theme", html.getAttribute("data-theme") || "none");
    seen.disconnect();
  }
}).observe(document, { childList: true });
document.addEventListener("readystatechange", () => {
  if (document.readyState !== "interactive") return;
  const root = document.querySelector(".page, #embed-root");
  const head = document.querySelector(".risk-head");
  sessionStorage.setItem("parsed", (root ? root.className : "none") + " | " + (head ? head.textContent.replace(/\s+/g, " ").trim() : "no panel"));
})`)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		held       bool   // the network holds every request
		stopped    bool   // the server is gone (from this case on)
		want       string // the page's root and its panel's head as parsed
		app        string // the panel's head once the app runs
		theme      string // the theme on <html> as parsed; "none": none
	}{
		{"a bare path, the network held", "/limits", true, false, "page risk-page | Risk · BTC-USDT", "", "none"},
		{"the tiers of another contract", "/tiers?contract_code=SOL-USDT", false, false, "page risk-page | Risk · SOL-USDT", "", "none"},
		{"a tiers embed", "/embed/tiers?contract_code=ETH-USDT&theme=dark", false, false, "embed embed-tiers | Risk · ETH-USDT", "", "dark"},
		{"a chart view", "/?contract_code=ETH-USDT&period=5min", false, false, "page chart-page | Risk · ETH-USDT", "", "none"},
		{"the server gone: its path's shell", "/tiers?contract_code=XRP-USDT", false, true, "page risk-page | Risk · BTC-USDT", "Risk · XRP-USDT", "none"},
		// The server is still gone: a dark embed opened from its shell is dark from the first byte.
		{"the server gone: a dark embed's shell", "/embed/limits?contract_code=ETH-USDT&theme=dark", false, false, "embed embed-limits | Risk · BTC-USDT", "Risk · ETH-USDT", "dark"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.held {
				p.hold()
				defer p.release()
			}
			if tc.stopped {
				s.Stop(t)
			}
			if err := chromedp.Run(ctx, chromedp.Evaluate(`sessionStorage.removeItem("parsed"); sessionStorage.removeItem("theme")`, nil), chromedp.Navigate(p.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `sessionStorage.getItem("parsed") !== null`)
			if got := evalJS[string](t, ctx, `sessionStorage.getItem("parsed")`); !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s opened as %q, want %q", tc.path, got, tc.want)
			}
			if got := evalJS[string](t, ctx, `sessionStorage.getItem("theme") ?? "not seen"`); got != tc.theme {
				t.Errorf("%s opened in the theme %q, want %q", tc.path, got, tc.theme)
			}
			if tc.app != "" {
				waitFor(t, ctx, `(document.querySelector(".risk-head") || {}).textContent?.includes(`+strconv.Quote(tc.app)+`)`)
			}
		})
	}
}
