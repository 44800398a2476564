package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAppWasmsCompiledCodeIsKeptByTheBrowser checks that the browser keeps
// app.wasm's compiled code and that a start in a new browser process takes
// it from there (its trace has Blink's code cache hit for app.wasm), as a
// person closing the browser and coming back would. V8 offers the code
// through the context that compiled the module, the compile worker, which
// therefore stays for the page's life (web/app-compile.js;
// docs/startup.md, "The browser's cache of compiled code"). V8 offers
// it once its optimising compiler has been idle for 2 s or has made 1 MB of
// code, which on a live chart takes half a minute; these browsers offer it
// at 300 kB (--wasm-caching-hard-threshold), a few seconds into the app's
// run, so that the test waits on the page, not on V8's pace. With a worker
// that ends itself once it has answered, nothing is kept and the test
// fails.
func TestAppWasmsCompiledCodeIsKeptByTheBrowser(t *testing.T) {
	s := startServer(t, nil)
	profile := newProfile(t, "riskchart-chromium-")
	open := func() (ctx context.Context, closeBrowser func()) {
		return openChromium(t, profile, chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("js-flags", "--wasm-caching-hard-threshold=300000"))
	}
	const running = `!!navigator.serviceWorker.controller && ` + jsAppRunning

	// A first visit installs the service worker, which keeps app.wasm.
	ctx, closeBrowser := open()
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	closeBrowser()

	// Each later start compiles the service worker's app.wasm in a new
	// process, unless the browser kept its code, and V8 offers the optimised
	// code as the chart runs: the second start at the latest should take it.
	for start := 2; start <= 4; start++ {
		ctx, closeBrowser = open()
		tr := &tabTrace{}
		events, _ := tr.record(t, ctx, func() {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, running)
		})
		if size, ok := moduleCacheHit(events, s.URL+"/web/app.wasm"); ok {
			closeBrowser()
			if size < 100_000 {
				t.Errorf("the browser kept %d bytes of app.wasm's compiled code; it is hundreds of kB once optimised", size)
			}
			t.Logf("start %d took %d bytes of app.wasm's compiled code from the browser's cache", start, size)
			return
		}
		// The app runs on until V8 has 300 kB of optimised code and Blink has
		// kept it (its trace's v8.wasm.cachedModule): a few seconds here, and
		// more on a loaded host, whose optimising compiler runs on background
		// threads; a browser closed before then keeps nothing, and the next
		// start compiles from the bytes again. Traced a second at a time, up
		// to a minute; past it the next start says whether the code was kept.
		began := time.Now()
		for !cachedModule(events) && time.Since(began) < time.Minute {
			events, _ = tr.record(t, ctx, func() { time.Sleep(time.Second) })
		}
		t.Logf("start %d: app.wasm's compiled code offered to the cache: %v, %v after the app ran", start, cachedModule(events), time.Since(began).Round(time.Second))
		closeBrowser()
	}
	t.Fatal("every start in a new browser process compiled app.wasm again: its compiled code was not kept")
}

// moduleCacheHit is the size of the compiled code a trace's visit took from
// the browser's cache for the module at url (Blink's v8.wasm.moduleCacheHit).
func moduleCacheHit(events []traceEvent, url string) (size int, ok bool) {
	for _, e := range events {
		if e.Name != "v8.wasm.moduleCacheHit" {
			continue
		}
		var a struct {
			URL  string `json:"url"`
			Size int    `json:"consumedCacheSize"`
		}
		if json.Unmarshal(e.Args, &a) == nil && a.URL == url {
			return a.Size, true
		}
	}
	return 0, false
}

// cachedModule reports whether a trace has Blink keep a module's compiled
// code that V8 offered it (Blink's v8.wasm.cachedModule): the page's only
// module is app.wasm.
func cachedModule(events []traceEvent) bool {
	return slices.ContainsFunc(events, func(e traceEvent) bool { return e.Name == "v8.wasm.cachedModule" })
}
