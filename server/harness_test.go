package main

// The harness of the end-to-end tests: the real server, started in-process by
// run() with the embedded sandbox on loopback, and Debian's chromium driven by
// chromedp. Browser tests of every package-main test file use it.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// testServer is a running Riskchart.
type testServer struct {
	URL  string // http://127.0.0.1:port
	Log  *syncBuffer
	Out  *syncBuffer
	stop func(t testing.TB)
}

// Stop shuts the server down now (tests of what happens without it).
func (s *testServer) Stop(t testing.TB) { s.stop(t) }

// startServer runs the whole server in-process on a free loopback port, with
// env added to a minimal environment, and stops it at the end of the test.
func startServer(t testing.TB, env map[string]string) *testServer {
	t.Helper()
	vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": ".."}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{Log: &syncBuffer{}, Out: &syncBuffer{}}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"riskchart"}, func(k string) string { return vars[k] }, io.MultiWriter(pw, s.Out), s.Log)
		pw.CloseWithError(fmt.Errorf("server stopped: %v", err))
		done <- err
	}()
	var once sync.Once
	s.stop = func(t testing.TB) {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("server stopped with an error: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Errorf("server did not stop within 15s of its context ending")
			}
		})
	}
	t.Cleanup(func() { s.stop(t) })
	urlRE := regexp.MustCompile(`serving on (http://\S+)/`)
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
			s.URL = m[1]
			break
		}
	}
	go io.Copy(io.Discard, pr) // keep draining so the server never blocks on stdout
	if s.URL == "" {
		t.Fatalf("server did not start: %v\nlog:\n%s", sc.Err(), s.Log.String())
	}
	waitHealthy(t, s.URL+"/healthz")
	return s
}

func waitHealthy(t testing.TB, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within 10s", url)
}

// chromiumPath finds the browser. Without one, a test skips on a developer's
// machine and fails under CI=true: a missing browser must never pass silently.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("RISKCHART_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium found (set RISKCHART_CHROMIUM or run make test, which installs Debian's chromium); CI=true makes this a failure")
	}
	t.Skip("no chromium found: run make test, which installs Debian's chromium")
	return ""
}

// newBrowser starts a headless chromium with a fresh profile and returns a
// tab's context, closed at the end of the test.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	profile, err := os.MkdirTemp("", "riskchart-chromium-")
	if err != nil {
		t.Fatalf("creating a chromium profile: %v", err)
	}
	opts := append([]chromedp.ExecAllocatorOption{},
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		// Chromium's helpers may still be writing the profile as it exits.
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// artifactDir is where browser tests leave screenshots and measurements.
func artifactDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("creating %s: %v", dir, err)
	}
	return dir
}

// screenshot saves what the tab's window shows as artifacts/<name>.png. Not
// the whole page: for that, Chromium lays a page taller than the window out
// again at its full height, and ECharts' canvases keep their size, so such
// pictures showed charts over the panels below them, or shrunk in a corner
// of their iframe, which the page never does.
func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(artifactDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Errorf("saving %s: %v", path, err)
	}
}

// jsCandleCount is how many candles the page's ECharts chart holds (0 until drawn).
const jsCandleCount = `(() => {
  const el = document.getElementById("chart");
  const c = el && window.echarts && echarts.getInstanceByDom(el);
  const o = c && c.getOption();
  return (o && o.series && o.series[0] && o.series[0].data) ? o.series[0].data.length : 0;
})()`

// waitForCandles waits until the chart holds candles and returns how many.
func waitForCandles(t testing.TB, ctx context.Context, timeout time.Duration) int {
	t.Helper()
	var n int
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(jsCandleCount+" > 0", nil, chromedp.WithPollingInterval(20*time.Millisecond)),
		chromedp.Evaluate(jsCandleCount, &n)); err != nil {
		var status string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &status))
		t.Fatalf("chart not drawn within %s: %v; page says: %q", timeout, err, strings.TrimSpace(status))
	}
	return n
}

// syncBuffer is a bytes buffer safe for the server's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
