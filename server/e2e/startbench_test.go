package e2e

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// startMarksJS times what the pages do not mark themselves (compile,
// instantiation, go-app's loader leaving, the first risk table) and reads
// every time back as benchStartTimes().
//
//go:embed testdata/startmarks.js
var startMarksJS string

// startProfile is the network and CPU a start-up is measured under.
type startProfile struct {
	name string
	// mobile: Chromium's emulation of a mid-range phone on a good mobile
	// link: 9 Mbit/s down, 1.5 Mbit/s up, 40 ms round trip, CPU 4× slower.
	mobile bool
}

var startProfiles = []startProfile{{"loopback", false}, {"mobile", true}}

// startTimes is benchStartTimes() of testdata/startmarks.js.
type startTimes struct {
	AppPage         bool    `json:"appPage"`
	Drawn           float64 `json:"drawn"`    // first candles on screen, whoever drew them: a sketch, or ECharts
	Chart           float64 `json:"chart"`    // the first chart ECharts drew, the page's or the app's
	AppDrawn        float64 `json:"appDrawn"` // the app's own first draw
	Running         float64 `json:"running"`  // go-app's loader gone; the plain page: its first chart
	Risk            float64 `json:"risk"`     // the first risk tier row on show
	RiskLive        float64 `json:"riskLive"` // the app's risk panel shows its data: its controls answer
	WasmStart       float64 `json:"wasmStart"`
	WasmResponseEnd float64 `json:"wasmResponseEnd"`
	WasmTransfer    float64 `json:"wasmTransfer"` // bytes on the wire, headers included; 0 from a cache
	WasmReady       float64 `json:"wasmReady"`    // instantiateStreaming resolved: compiled and instantiated
	Marks           []struct {
		Name string  `json:"name"`
		At   float64 `json:"at"`
	} `json:"marks"`
	Done bool `json:"done"`
}

// mark is when the page first left the mark called name; 0 when it did not.
func (t startTimes) mark(name string) float64 {
	for _, m := range t.Marks {
		if m.Name == name {
			return m.At
		}
	}
	return 0
}

// BenchmarkStartUp is make bench's start-up section (issue 24): the go-app
// page against the plain page drawing the same KLine answer, rounds
// interleaved, on a cold visit (caches and the origin's storage cleared)
// and the next visit in the same tab; on loopback and under the mobile
// profile. For each: first candles (the first paint's sketch, or ECharts'
// chart) and the first chart ECharts drew, app running (go-app's loader
// gone, against the plain page's first chart), the first risk table (the
// server's prerendered one, or the app's) and the app's risk panel live.
func BenchmarkStartUp(b *testing.B) {
	fault := pageFaultMicros() // before the browser and the servers take the host
	s := startServer(b, nil)
	plain := brotliInFront(b, plainOrigin(b, s.URL))
	alloc := newAllocator(b)
	names := []string{"go-app", "plain-js"}
	urls := []string{s.URL + "/", plain + "/web/bench/plain.html"}
	warmUp(b, alloc, urls...)
	got := startRounds(b, alloc, urls, map[string]int{"loopback": 10, "mobile": 4})
	var out strings.Builder
	report := reporter(b, &out)
	for _, p := range startProfiles {
		for v, visit := range []string{"cold", "next"} {
			app, js := got[p.name][0][v], got[p.name][1][v]
			candles, plainChart := medianOf(app, func(t startTimes) float64 { return t.Drawn }), medianOf(js, func(t startTimes) float64 { return t.Drawn })
			running := medianOf(app, func(t startTimes) float64 { return t.Running })
			pre := p.name + "-" + visit + "-"
			report(pre+"candles-app-ms", candles)
			report(pre+"candles-plain-ms", plainChart)
			report(pre+"candles-ratio", candles/plainChart)
			report(pre+"echarts-app-ms", medianOf(app, func(t startTimes) float64 { return t.Chart }))
			report(pre+"running-app-ms", running)
			report(pre+"running-ratio", running/plainChart)
			report(pre+"risk-table-ms", medianOf(app, func(t startTimes) float64 { return t.Risk }))
			report(pre+"risk-live-ms", medianOf(app, func(t startTimes) float64 { return t.RiskLive }))
			if v == 0 {
				report(p.name+"-app.wasm-wire-MB", medianOf(app, func(t startTimes) float64 { return t.WasmTransfer })/1e6)
			}
		}
	}
	report("host-page-fault-us", fault)
	if st, err := os.Stat(filepath.Join(repoRoot, "web", "app.wasm.br")); err == nil { // a build without brotli, for comparison, has none
		report("app.wasm.br-MB", float64(st.Size())/1e6)
	}
	writeRounds(&out, got, names)
	os.WriteFile(filepath.Join(artifactDir(b), "startbench.txt"), []byte(out.String()), 0o644)
}

// startRounds visits each of urls (startVisits: cold, then next in the same
// tab) in rounds under each profile, rounds[profile] of them, the pages'
// order turning by one from round to round so that none is always first:
// got[profile][page][visit: 0 cold, 1 next].
func startRounds(b *testing.B, alloc context.Context, urls []string, rounds map[string]int) map[string][][2][]startTimes {
	got := map[string][][2][]startTimes{}
	for _, p := range startProfiles {
		got[p.name] = make([][2][]startTimes, len(urls))
	}
	for range b.N {
		for _, p := range startProfiles {
			for r := range rounds[p.name] {
				for j := range urls {
					i := (j + r) % len(urls)
					cold, next := startVisits(b, alloc, urls[i], p, nil)
					got[p.name][i][0] = append(got[p.name][i][0], cold)
					got[p.name][i][1] = append(got[p.name][i][1], next)
				}
			}
		}
	}
	return got
}

// medianOf is the median of f over ts.
func medianOf(ts []startTimes, f func(startTimes) float64) float64 {
	xs := make([]float64, 0, len(ts))
	for _, t := range ts {
		xs = append(xs, f(t))
	}
	return median(xs)
}

// reporter returns report, which reports a metric of b and writes it as a
// line of out, the bench's artifact.
func reporter(b *testing.B, out *strings.Builder) (report func(name string, v float64)) {
	return func(name string, v float64) {
		b.ReportMetric(v, name)
		fmt.Fprintf(out, "%-36s %10.3f\n", name, v)
	}
}

// writeRounds writes every round of startRounds' got, the pages named by
// names in its order. The last figure, when app.wasm was asked for (0 for
// the plain page), tells a round whose compile worker started only after
// the first paint's draw from one whose worker started before it: on a
// next visit they differ by 30-40 ms of app running (docs/startup.md,
// "Where the targets stand").
func writeRounds(out *strings.Builder, got map[string][][2][]startTimes, names []string) {
	out.WriteString("\nround by round, ms (candles / ECharts' chart / running / risk table / risk panel live / app.wasm asked for):\n")
	for _, p := range startProfiles {
		for i, name := range names {
			for v, visit := range []string{"cold", "next"} {
				fmt.Fprintf(out, "%-26s", p.name+"-"+name+"-"+visit)
				for _, t := range got[p.name][i][v] {
					fmt.Fprintf(out, " %.0f/%.0f/%.0f/%.0f/%.0f/%.0f", t.Drawn, t.Chart, t.Running, t.Risk, t.RiskLive, t.WasmStart)
				}
				out.WriteString("\n")
			}
		}
	}
}

// brotliInFront serves the plain page's scripts brotli-compressed, from
// the build's .br siblings, as Riskchart serves its own, and everything else
// from origin, the plain page's server: on the mobile profile the plain page
// would otherwise download ECharts uncompressed (544 kB at 9 Mbit/s: about
// half a second) and the comparison would be of the compression. Each
// compressed answer carries the headers origin gives the same file.
func brotliInFront(b *testing.B, origin string) string {
	target, _ := url.Parse(origin)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/web/")
		br, err := os.ReadFile(filepath.Join(repoRoot, "web", filepath.FromSlash(path.Clean(name))+".br"))
		if !ok || err != nil || r.Method != http.MethodGet || r.Header.Get("Range") != "" || !strings.Contains(r.Header.Get("Accept-Encoding"), "br") {
			proxy.ServeHTTP(w, r)
			return
		}
		head, err := http.Head(origin + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		head.Body.Close()
		maps.Copy(w.Header(), head.Header)
		// A revalidation is answered as origin would, or the plain page's next visit would download again.
		if since, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil {
			if mod, err := http.ParseTime(head.Header.Get("Last-Modified")); err == nil && !mod.After(since) {
				w.Header().Del("Content-Length")
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("Content-Encoding", "br")
		w.Header().Set("Content-Length", strconv.Itoa(len(br)))
		w.Header().Add("Vary", "Accept-Encoding")
		w.Write(br)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkStartUpTrace is make trace-startup: one cold and one next visit
// of the go-app page on loopback, broken down by what the browser and the
// app did, from the Performance API (resource timing of app.wasm, the
// marks of testdata/startmarks.js and every riskchart: mark the app set).
func BenchmarkStartUpTrace(b *testing.B) {
	s := startServer(b, nil)
	alloc := newAllocator(b)
	warmUp(b, alloc, s.URL+"/")
	var out strings.Builder
	for range b.N {
		cold, next := startVisits(b, alloc, s.URL+"/", startProfiles[0], nil)
		for _, v := range []struct {
			name string
			t    startTimes
		}{{"cold", cold}, {"next visit, same tab", next}} {
			writeStartTrace(&out, v.name, v.t)
		}
	}
	os.WriteFile(filepath.Join(artifactDir(b), "starttrace.txt"), []byte(out.String()), 0o644)
}

// writeStartTrace writes one visit's breakdown, each step with its start,
// end and duration in ms since navigation.
func writeStartTrace(out *strings.Builder, name string, t startTimes) {
	fmt.Fprintf(out, "%s (app.wasm %.0f bytes on the wire)\n", name, t.WasmTransfer)
	// seen is a time a step can start from: -1 when the page never reached it.
	seen := func(at float64) float64 {
		if at <= 0 {
			return -1
		}
		return at
	}
	step := func(what string, from, to float64) {
		if from < 0 || to <= 0 {
			fmt.Fprintf(out, "  %-48s (not seen)\n", what)
			return
		}
		fmt.Fprintf(out, "  %-48s %7.0f → %7.0f  %6.0f ms\n", what, from, to, to-from)
	}
	step("page until app.wasm is asked for", 0, t.WasmStart)
	step("download of app.wasm (compiling as it streams)", seen(t.WasmStart), t.WasmResponseEnd)
	step("compile tail, in the worker", seen(t.WasmResponseEnd), t.mark("riskchart:module-compiled"))
	step("module handed to the page", seen(t.mark("riskchart:module-compiled")), t.mark("riskchart:module"))
	step("instantiate", seen(t.mark("riskchart:module")), t.mark("riskchart:instantiated"))
	step("then waiting for the first paint to settle", seen(t.mark("riskchart:instantiated")), t.WasmReady)
	step("Go runtime, package init, main, mount", seen(t.WasmReady), t.Running)
	step("first candles drawn (page or app)", 0, t.Drawn)
	step("first chart drawn by ECharts", 0, t.Chart)
	step("app's own draw (chart adopted)", 0, t.AppDrawn)
	step("first risk tier row on show", 0, t.Risk)
	step("the app's risk panel shows its data", 0, t.RiskLive)
	for _, m := range t.Marks {
		fmt.Fprintf(out, "  mark %-43s %7.0f\n", m.Name, m.At)
	}
}

// warmUp visits each page once, cold and next, on loopback, and starts the
// benchmark's timer again: the first visit of a run (the browser's first
// page, the server's first answers) is its slowest, and the visits after
// it are what a page's start-up is measured by. Counted, it went to the
// first page of the first round alone (docs/startup.md, "Method").
func warmUp(b *testing.B, browser context.Context, urls ...string) {
	for _, u := range urls {
		startVisits(b, browser, u, startProfiles[0], nil)
	}
	b.ResetTimer()
}

// startVisits opens u in a new tab under profile p, with the caches and the
// origin's storage cleared, and returns its cold visit and the next visit in
// the same tab, each once it has drawn (and, for the app, runs and shows
// its risk table). visit, when not nil, runs each visit in place of
// startAfterNavigation (which it calls), to measure more around it; it is
// told which visit it runs, "cold" or "next".
func startVisits(b *testing.B, browser context.Context, u string, p startProfile, visit func(ctx context.Context, which string) startTimes) (cold, next startTimes) {
	ctx, cancel := chromedp.NewContext(browser)
	defer cancel()
	origin := u[:strings.Index(u[len("http://"):], "/")+len("http://")]
	setup := chromedp.Tasks{network.Enable(), network.ClearBrowserCache(), storage.ClearDataForOrigin(origin, "all"),
		onEveryDocument(startMarksJS)}
	if p.mobile {
		setup = append(setup, network.EmulateNetworkConditions(false, 40, 9e6/8, 1.5e6/8), emulation.SetCPUThrottlingRate(4))
	}
	if err := chromedp.Run(ctx, setup); err != nil {
		b.Fatalf("setting up the tab: %v", err)
	}
	if visit == nil {
		visit = func(ctx context.Context, _ string) startTimes { return startAfterNavigation(b, ctx, u) }
	}
	cold = visit(ctx, "cold")
	settle(b, ctx)
	next = visit(ctx, "next")
	settle(b, ctx)
	leave(b, ctx)
	return cold, next
}

func startAfterNavigation(b *testing.B, ctx context.Context, u string) startTimes {
	tctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var t startTimes
	if err := chromedp.Run(tctx, chromedp.Navigate(u),
		pollToDeadline(`window.benchStartTimes && benchStartTimes().done`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(`benchStartTimes()`, &t)); err != nil {
		b.Fatalf("%s: %v", u, err)
	}
	return t
}
