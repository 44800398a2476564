package main

import (
	"context"
	"fmt"
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
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
)

// BenchmarkFrontEnd is make bench's front-end section, in headless Chromium:
// navigation to the first drawn chart (cold cache and warm) of the go-app
// page and of a plain JavaScript page drawing the same candles with the same
// frame, interleaved in one run; the time to prepend 2000 older candles and
// to apply one live update; and the size of app.wasm. Times come from the
// pages' own User Timing marks, not from polling.
func BenchmarkFrontEnd(b *testing.B) {
	s := startServer(b, nil)
	plain := plainOrigin(b, s.URL)
	alloc := newAllocator(b)
	const rounds = 5
	var goCold, goWarm, appCold, appWarm, jsCold, jsWarm, prepend, live []float64
	for range b.N {
		for r := 0; r < rounds; r++ {
			c, w := loadTwice(b, alloc, s.URL+"/")
			goCold, goWarm = append(goCold, c[0]), append(goWarm, w[0])
			appCold, appWarm = append(appCold, c[1]), append(appWarm, w[1])
			c, w = loadTwice(b, alloc, plain+"/web/bench/plain.html")
			jsCold, jsWarm = append(jsCold, c[0]), append(jsWarm, w[0])
		}
		p, l := prependAndLive(b, alloc, s.URL+"/")
		prepend, live = append(prepend, p), append(live, l...)
	}
	raw, gz := fileSize(b, "../web/app.wasm"), fileSize(b, "../web/app.wasm.gz")
	report := []struct {
		name  string
		value float64
	}{
		{"go-app-cold-ms", median(goCold)}, {"plain-js-cold-ms", median(jsCold)}, {"cold-ratio", median(goCold) / median(jsCold)},
		{"go-app-warm-ms", median(goWarm)}, {"plain-js-warm-ms", median(jsWarm)}, {"warm-ratio", median(goWarm) / median(jsWarm)},
		{"app-drawn-cold-ms", median(appCold)}, {"app-drawn-warm-ms", median(appWarm)},
		{"app-cold-ratio", median(appCold) / median(jsCold)}, {"app-warm-ratio", median(appWarm) / median(jsWarm)},
		{"prepend-2000-ms", median(prepend)}, {"live-update-ms", median(live)},
		{"app.wasm-MB", float64(raw) / 1e6}, {"app.wasm.gz-MB", float64(gz) / 1e6},
	}
	for _, m := range report {
		b.ReportMetric(m.value, m.name)
	}
	var out string
	for _, m := range report {
		out += fmt.Sprintf("%-18s %10.3f\n", m.name, m.value)
	}
	os.WriteFile(filepath.Join(artifactDir(b), "frontbench.txt"), []byte(out), 0o644)
}

// plainOrigin serves the plain JavaScript page, the ECharts script and the
// chart frame, and forwards the venue paths to Riskchart: the same candles
// from the same origin as the page.
func plainOrigin(b *testing.B, riskchart string) string {
	target, _ := url.Parse(riskchart)
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
	mux.Handle("/web/", http.StripPrefix("/web/", http.FileServer(http.Dir("../web"))))
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	return srv.URL
}

func newAllocator(b *testing.B) context.Context {
	profile, err := os.MkdirTemp("", "riskchart-bench-")
	if err != nil {
		b.Fatal(err)
	}
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.ExecPath(chromiumPath(b)), chromedp.UserDataDir(profile),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 800),
		// Tabs other than the first must not be throttled as background tabs.
		chromedp.Flag("disable-background-timer-throttling", true), chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Run(bctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancelBrowser(); cancel(); os.RemoveAll(profile) })
	return bctx
}

// loadTwice opens u in a new tab after clearing the HTTP cache and all of
// the origin's storage, service worker included (cold), then again (warm),
// and returns both times to the drawn mark.
func loadTwice(b *testing.B, browser context.Context, u string) (cold, warm [2]float64) {
	ctx, cancel := chromedp.NewContext(browser)
	defer cancel()
	pu, _ := url.Parse(u)
	if err := chromedp.Run(ctx, network.ClearBrowserCache(), storage.ClearDataForOrigin(pu.Scheme+"://"+pu.Host, "all")); err != nil {
		b.Fatalf("clearing the cache: %v", err)
	}
	cold = drawnAfterNavigation(b, ctx, u)
	warm = drawnAfterNavigation(b, ctx, u)
	return cold, warm
}

// jsMarks are the first riskchart:drawn (candles on screen, whoever drew
// them) and the first riskchart:app-drawn (the app's own; the plain page
// marks none) of the page.
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
		chromedp.Poll(wait, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(jsMarks, &ms)); err != nil {
		b.Fatalf("%s: %v", u, err)
	}
	return [2]float64{ms[0], ms[1]}
}

// prependAndLive scrolls the go-app chart back once and waits for live
// updates, returning the page's own measures.
func prependAndLive(b *testing.B, ctx context.Context, u string) (prepend float64, live []float64) {
	drawnAfterNavigation(b, ctx, u)
	tctx, cancelT := context.WithTimeout(ctx, 30*time.Second)
	defer cancelT()
	measures := func(name string) string {
		return fmt.Sprintf(`performance.getEntriesByName(%q).map(e => e.duration)`, name)
	}
	var prep, lives []float64
	if err := chromedp.Run(tctx,
		chromedp.Evaluate(jsChart+`.dispatchAction({type: "dataZoom", startValue: 0, endValue: 60})`, nil),
		chromedp.Poll(measures("riskchart:prepend")+".length > 0", nil),
		chromedp.Poll(measures("riskchart:live")+".length >= 3", nil),
		chromedp.Evaluate(measures("riskchart:prepend"), &prep),
		chromedp.Evaluate(measures("riskchart:live"), &lives)); err != nil {
		b.Fatalf("prepend and live: %v", err)
	}
	return prep[0], lives
}

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
