package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
)

// BenchmarkFrontEnd is make bench's front-end section, in headless Chromium:
// navigation to the first drawn chart of the go-app page and of a plain
// JavaScript page drawing the same candles with the same frame, interleaved
// in one run, at Chromium's own cache temperatures (see loadVisits): cold,
// warm and hot; the same on the next visit in the same tab straight from the
// page, where the plain page has ECharts from its renderer's memory cache;
// the time to the app's own draw (the first draw may be the page's first
// paint, before app.wasm runs); the time to prepend 2000 older candles (the
// median of three page loads) and to apply one live update (the median of
// the first ten, beside the plain page's own live updates of the same kind on
// 2000 candles); and the size of app.wasm.
// Times come from the pages' own User Timing marks, not from polling.
func BenchmarkFrontEnd(b *testing.B) {
	s := startServer(b, nil)
	plain := plainOrigin(b, s.URL)
	alloc := newAllocator(b)
	// Nine rounds, the pages taking turns to go first. A page's next visit in
	// the same tab varies by a third from round to round (the plain page's
	// ECharts comes from the memory cache in most rounds, from the disk cache
	// in others), and the host's own pace drifts: runs minutes apart gave
	// ratios of that visit 0.15 apart, so read several runs, not one.
	const rounds = 9
	// [page][visit] first draws; app[visit] the app's own draws.
	var drawn [2][visits][]float64
	var app [visits][]float64
	var prepend, live, plainLive []float64
	pages := [2]struct{ name, url string }{{"go-app", s.URL + "/"}, {"plain-js", plain + "/web/bench/plain.html"}}
	visitNames := [visits]string{"cold", "warm", "hot", "same-tab"}
	for range b.N {
		for r := 0; r < rounds; r++ {
			for j := range pages {
				i := (j + r) % len(pages)
				for v, at := range loadVisits(b, alloc, pages[i].url) {
					drawn[i][v] = append(drawn[i][v], at[0])
					if i == 0 {
						app[v] = append(app[v], at[1])
					}
				}
			}
		}
		for i := range 3 { // one prepend per page load: a single one ranged from 71 to 154 ms over a day's runs
			p, l := prependAndLive(b, alloc, pages[0].url, i == 0)
			prepend, live = append(prepend, p), append(live, l...)
		}
		plainLive = append(plainLive, liveUpdates(b, alloc, pages[1].url+"?live=1")...)
	}
	raw, gz := fileSize(b, filepath.Join(repoRoot, "web", "app.wasm")), fileSize(b, filepath.Join(repoRoot, "web", "app.wasm.gz"))
	type metric struct {
		name  string
		value float64
	}
	var report []metric
	for v, visit := range visitNames {
		goApp, js, own := median(drawn[0][v]), median(drawn[1][v]), median(app[v])
		report = append(report, metric{pages[0].name + "-" + visit + "-ms", goApp}, metric{pages[1].name + "-" + visit + "-ms", js},
			metric{visit + "-ratio", goApp / js}, metric{"app-drawn-" + visit + "-ms", own}, metric{"app-drawn-" + visit + "-ratio", own / js})
	}
	report = append(report, metric{"prepend-2000-ms", median(prepend)}, metric{"live-update-ms", median(live)},
		metric{"plain-js-live-update-ms", median(plainLive)}, metric{"live-update-ratio", median(live) / median(plainLive)},
		metric{"app.wasm-MB", float64(raw) / 1e6}, metric{"app.wasm.gz-MB", float64(gz) / 1e6})
	var out string
	for _, m := range report {
		b.ReportMetric(m.value, m.name)
		out += fmt.Sprintf("%-24s %10.3f\n", m.name, m.value)
	}
	// Every round's first draw too, in round order: the medians alone hide
	// how widely a visit varies.
	out += "\nfirst drawn chart, ms, round by round:\n"
	for i, page := range pages {
		for v, visit := range visitNames {
			out += fmt.Sprintf("%-18s %s\n", page.name+"-"+visit, strings.Trim(fmt.Sprintf("%.0f", drawn[i][v]), "[]"))
		}
	}
	os.WriteFile(filepath.Join(artifactDir(b), "frontbench.txt"), []byte(out), 0o644)
}

// plainOrigin serves the plain JavaScript page, the ECharts script and the
// chart frame, and forwards the venue paths to Riskchart: the same candles
// from the same origin as the page. It answers with Riskchart's security
// headers, read from Riskchart's own page, as a page in production would:
// the comparison is then of the app, not of the headers (a new tab's
// about:blank renderer serves a page without Cross-Origin-Opener-Policy,
// while one with it needs a renderer of its own: about 160 ms of a cold
// visit on a two-core machine).
func plainOrigin(b *testing.B, riskchart string) string {
	target, _ := url.Parse(riskchart)
	res, err := http.Get(riskchart + "/")
	if err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	security := http.Header{}
	for _, k := range []string{"Content-Security-Policy", "Cross-Origin-Opener-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
		if v := res.Header.Get(k); v != "" {
			security.Set(k, v)
		}
	}
	if len(security) != 4 {
		b.Fatalf("Riskchart's page has only these security headers: %v", security)
	}
	frame, err := chartopt.Frame(chartopt.DefaultStyle(false))
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/sapi/", httputil.NewSingleHostReverseProxy(target))
	mux.HandleFunc("/web/bench/frame.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(frame)
	})
	mux.Handle("/web/", http.StripPrefix("/web/", http.FileServer(http.Dir(filepath.Join(repoRoot, "web")))))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		maps.Copy(w.Header(), security)
		mux.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// newAllocator starts the benches' browser: a background tab must not be
// throttled, since a bench's tabs are opened one after another.
func newAllocator(b *testing.B) context.Context {
	actx := startChromium(b, "riskchart-bench-",
		chromedp.Flag("disable-background-timer-throttling", true), chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true))
	bctx, cancelBrowser := chromedp.NewContext(actx)
	b.Cleanup(cancelBrowser)
	if err := chromedp.Run(bctx); err != nil {
		b.Fatal(err)
	}
	return bctx
}

// The visits loadVisits measures: Chromium's cache temperatures, then the
// next visit in the same tab.
const (
	cold    = iota // the HTTP cache and all of the origin's storage cleared
	warm           // visited once before
	hot            // visited twice before
	sameTab        // visited once before, straight from that page
	visits
)

// loadVisits measures a page at Chromium's own cache temperatures, as its
// loading benchmarks set them (Telemetry's cache_temperature.py): cold in a
// new tab after clearing the HTTP cache and all of the origin's storage,
// service worker included; then warm and hot in the same tab, each after the
// previous visit has settled, the tab has gone to about:blank and every
// service worker has been stopped, so that a visit pays for starting its
// worker and its renderer as a person's next visit does. A second new tab
// measures the next visit in the same tab straight from the page: the
// renderer is kept, and with it the plain page's memory cache, which Blink
// keys by the controlling service worker, so the go-app page's first visit
// leaves nothing there for its next.
//
// Every visit ends with the service workers stopped, so that the next
// page's cold visit starts with no renderer of this one alive. Both pages
// are on the same site (127.0.0.1), and a running service worker keeps a
// renderer of its site, which the browser gives the site's next page: the
// plain page's cold visit ran in the renderer the go-app page's worker had
// kept, and skipped starting one (plain page, cold, after the go-app page:
// 383–498 ms with the worker left running, 512–670 ms with it stopped, in
// four alternating rounds of one run).
func loadVisits(b *testing.B, browser context.Context, u string) (at [visits][2]float64) {
	pu, _ := url.Parse(u)
	tab := func() (context.Context, context.CancelFunc) {
		ctx, cancel := chromedp.NewContext(browser)
		if err := chromedp.Run(ctx, network.ClearBrowserCache(), storage.ClearDataForOrigin(pu.Scheme+"://"+pu.Host, "all")); err != nil {
			b.Fatalf("clearing the cache: %v", err)
		}
		return ctx, cancel
	}
	ctx, cancel := tab()
	for v := cold; v <= hot; v++ {
		at[v] = drawnAfterNavigation(b, ctx, u)
		settle(b, ctx)
		leave(b, ctx)
	}
	cancel()
	ctx, cancel = tab()
	defer cancel()
	drawnAfterNavigation(b, ctx, u)
	settle(b, ctx)
	at[sameTab] = drawnAfterNavigation(b, ctx, u)
	settle(b, ctx)
	leave(b, ctx)
	return at
}

// leave takes the tab to about:blank and stops the browser's service
// workers, as Telemetry does between the visits of a cache temperature.
func leave(b *testing.B, ctx context.Context) {
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank"), serviceworker.Enable(), serviceworker.StopAllWorkers()); err != nil {
		b.Fatalf("leaving the page: %v", err)
	}
}

// settle waits until the page has filled the caches of the next visit (its
// service worker, if it registers one, installed and active), then a second
// more, so that every visit starts from an idle browser as a person's next
// visit would: without it the warm visit overlapped the cold one's
// precaching, and the next one the warm page's loading of its risk panels.
func settle(b *testing.B, ctx context.Context) {
	defer time.Sleep(time.Second)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	const installed = `(async () => {
  if (!navigator.serviceWorker || !document.querySelector('script[src="/app.js"]')) return true;
  const r = await navigator.serviceWorker.getRegistration();
  return !!r && !!r.active && !r.installing && !r.waiting;
})()`
	for {
		var ok bool
		err := chromedp.Run(tctx, chromedp.Evaluate(installed, &ok, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		if err != nil {
			b.Fatalf("waiting for the service worker: %v", err)
		}
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jsMarks are the first riskchart:drawn (the first chart ECharts drew, the
// first paint's or the app's; the sketch of the candles before it is not
// counted: docs/performance.md, "The candles sketched before ECharts") and
// the first riskchart:app-drawn (the app's own; the plain page marks none)
// of the page.
const jsMarks = `(() => {
  const at = (n) => { const m = performance.getEntriesByName(n); return m.length ? m[0].startTime : 0; };
  return [at("riskchart:drawn"), at("riskchart:app-drawn")];
})()`

func drawnAfterNavigation(b *testing.B, ctx context.Context, u string) [2]float64 {
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var ms []float64
	wait := jsMarks + "[0] > 0"
	if !strings.Contains(u, "/bench/") {
		wait = jsMarks + "[1] > 0"
	}
	if err := chromedp.Run(tctx, chromedp.Navigate(u),
		pollToDeadline(wait, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(jsMarks, &ms)); err != nil {
		b.Fatalf("%s: %v", u, err)
	}
	return [2]float64{ms[0], ms[1]}
}

// prependAndLive opens the go-app page in a new tab and scrolls its chart
// back once; with live, it then shows the newest candles again and waits
// for live updates (ten: the first few run before the browser has optimised
// the code). It returns the page's own measures. Live updates are measured
// with the newest candle in view, as the plain page's are: out of view, one
// draws nothing.
func prependAndLive(b *testing.B, browser context.Context, u string, live bool) (prepend float64, lives []float64) {
	tctx, cancel := drawnInNewTab(b, browser, u)
	defer cancel()
	var prep []float64
	if err := chromedp.Run(tctx,
		chromedp.Evaluate(jsChart+`.dispatchAction({type: "dataZoom", startValue: 0, endValue: 60})`, nil),
		chromedp.Poll(measures("riskchart:prepend")+".length > 0", nil),
		chromedp.Evaluate(measures("riskchart:prepend"), &prep)); err != nil {
		b.Fatalf("prepend: %v", err)
	}
	if !live {
		return prep[0], nil
	}
	if err := chromedp.Run(tctx,
		chromedp.Evaluate(`(() => {
  const c = `+jsChart+`, n = c.getOption().series[0].data.length;
  c.dispatchAction({type: "dataZoom", startValue: n - 120, endValue: n - 1});
  performance.clearMeasures("riskchart:live");
})()`, nil)); err != nil {
		b.Fatalf("showing the newest candles: %v", err)
	}
	return prep[0], firstLiveUpdates(b, tctx)
}

// liveUpdates opens the plain page in its live mode and returns the times
// of its first ten updates, as prependAndLive does for the app's.
func liveUpdates(b *testing.B, browser context.Context, u string) []float64 {
	tctx, cancel := drawnInNewTab(b, browser, u)
	defer cancel()
	return firstLiveUpdates(b, tctx)
}

// drawnInNewTab opens u in a new tab of browser and waits for its first
// drawn chart; the context it returns has 45 s for what follows.
func drawnInNewTab(b *testing.B, browser context.Context, u string) (context.Context, context.CancelFunc) {
	ctx, cancelTab := chromedp.NewContext(browser)
	if err := chromedp.Run(ctx); err != nil {
		cancelTab()
		b.Fatal(err)
	}
	drawnAfterNavigation(b, ctx, u)
	tctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	return tctx, func() { cancel(); cancelTab() }
}

// firstLiveUpdates waits for the page's first ten live updates and returns
// their times.
func firstLiveUpdates(b *testing.B, ctx context.Context) []float64 {
	var ms []float64
	if err := chromedp.Run(ctx, pollToDeadline(measures("riskchart:live")+".length >= 10", nil),
		chromedp.Evaluate(measures("riskchart:live")+".slice(0, 10)", &ms)); err != nil {
		b.Fatalf("live updates: %v", err)
	}
	return ms
}

// measures is a script listing the durations of the page's User Timing
// measures named name.
func measures(name string) string {
	return fmt.Sprintf(`performance.getEntriesByName(%q).map(e => e.duration)`, name)
}

// median is the middle of v's values: of an even count, the upper of the
// two middle ones, for every page alike. Every run the documents count was
// taken so (docs/startup.md, "Method"), and a new one compares with them.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}
