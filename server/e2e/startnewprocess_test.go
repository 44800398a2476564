package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkStartUpNewProcess is a start of each page in a browser just
// opened on a profile that has shown the page before, as when a person opens
// the browser, or the installed app, again: V8's own cache of compiled
// modules is empty, and the app starts from what the browser kept on disk,
// the service worker's copy of app.wasm and, beside it, the code V8
// optimised on an earlier run (docs/startup.md, "The browser's cache of
// compiled code"). Each page first has a first visit, then a visit of 45 s
// in a browser opened for it: on a live chart V8 offers its optimised code
// about half a minute in. Then come rounds of starts, each in a browser
// opened for it, the pages in turn, on loopback.
func BenchmarkStartUpNewProcess(b *testing.B) {
	s := startServer(b, nil)
	plain := brotliInFront(b, plainOrigin(b, s.URL))
	urls := []string{s.URL + "/", plain + "/web/bench/plain.html"}
	profiles := []string{newProfile(b, "riskchart-chromium-"), newProfile(b, "riskchart-chromium-")}
	start := func(page int, stay time.Duration) startTimes {
		ctx, closeBrowser := openChromium(b, profiles[page], chromedp.Flag("disable-dev-shm-usage", true))
		defer closeBrowser()
		if err := chromedp.Run(ctx, onEveryDocument(startMarksJS)); err != nil {
			b.Fatalf("setting up the tab: %v", err)
		}
		t := startAfterNavigation(b, ctx, urls[page])
		time.Sleep(stay)
		return t
	}
	start(0, 3*time.Second)
	start(0, 45*time.Second)
	start(1, 3*time.Second)
	start(1, 3*time.Second) // the plain page's second load makes its script's code cache
	b.ResetTimer()
	var got [2][]startTimes
	for round := range 8 {
		for k := range urls {
			page := (round + k) % len(urls)
			got[page] = append(got[page], start(page, 2*time.Second))
		}
	}
	app, js := got[0], got[1]
	var out strings.Builder
	report := reporter(b, &out)
	plainChart := medianOf(js, func(t startTimes) float64 { return t.Drawn })
	candles := medianOf(app, func(t startTimes) float64 { return t.Drawn })
	running := medianOf(app, func(t startTimes) float64 { return t.Running })
	report("newprocess-candles-app-ms", candles)
	report("newprocess-candles-plain-ms", plainChart)
	report("newprocess-candles-ratio", candles/plainChart)
	report("newprocess-running-app-ms", running)
	report("newprocess-running-ratio", running/plainChart)
	report("newprocess-go-run-ms", medianOf(app, func(t startTimes) float64 { return t.Running - t.mark("riskchart:instantiated") }))
	out.WriteString("\nstart by start, ms (the app: candles / running / Go's run, instantiated to running; the plain page: its chart):\n")
	for i := range app {
		fmt.Fprintf(&out, "%.0f/%.0f/%.0f %.0f\n", app[i].Drawn, app[i].Running, app[i].Running-app[i].mark("riskchart:instantiated"), js[i].Drawn)
	}
	os.WriteFile(filepath.Join(artifactDir(b), "startnewprocess.txt"), []byte(out.String()), 0o644)
}
