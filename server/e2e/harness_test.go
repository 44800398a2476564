package e2e

// The harness of the end-to-end tests: the real server binary, started as a
// process with the embedded sandbox on loopback, and Debian's chromium driven
// by chromedp.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// repoRoot holds web/, wasm_exec.js and artifacts/, seen from this package.
var repoRoot = filepath.Join("..", "..")

// builtDir holds the binary this run built when RISKCHART_BIN is unset.
var builtDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// serverBinary is RISKCHART_BIN, or ./server built once for this test run,
// so that go test ./server/e2e works without make.
func serverBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if p := os.Getenv("RISKCHART_BIN"); p != "" {
			binPath, binErr = filepath.Abs(p)
			return
		}
		if builtDir, binErr = os.MkdirTemp("", "riskchart-e2e-"); binErr != nil {
			return
		}
		binPath = filepath.Join(builtDir, "riskchart")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/riskchart/riskchart/server").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ./server: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatalf("the server binary: %v", binErr)
	}
	return binPath
}

// command prepares the server binary with args, serving the repository's
// front end, and env added to a minimal environment (PATH and HOME): the
// developer's own RISKCHART_* variables must not reach it.
func command(t testing.TB, env map[string]string, args ...string) *exec.Cmd {
	t.Helper()
	return commandOf(serverBinary(t), frontEnd(t), env, args...)
}

// frontEnd is the repository's front end, the root the server serves.
func frontEnd(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// commandOf is command for the binary bin serving the front end in root
// (another build's, for BenchmarkStartUpAB).
func commandOf(bin, root string, env map[string]string, args ...string) *exec.Cmd {
	vars := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "RISKCHART_ROOT": root}
	if seed := os.Getenv("RISKCHART_SANDBOX_SEED"); seed != "" { // make test-markets
		vars["RISKCHART_SANDBOX_SEED"] = seed
	}
	for k, v := range env {
		vars[k] = v
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = servertest.ChildAttr()
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// runCommand runs a subcommand of the server binary to its end and returns
// what it printed.
func runCommand(t testing.TB, env map[string]string, args ...string) string {
	t.Helper()
	cmd := command(t, env, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("riskchart %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// testServer is a running Riskchart.
type testServer struct {
	URL  string             // http://127.0.0.1:port
	Log  *servertest.Buffer // its stderr
	Out  *servertest.Buffer // its stdout
	stop func(t testing.TB)
	kill func()
	// signal sends the process a signal; exited waits for its end.
	signal func(t testing.TB, sig os.Signal)
	exited func(t testing.TB, d time.Duration) error
}

// Stop shuts the server down now (tests of what happens without it): it
// must exit cleanly within 15 s of SIGTERM, as it does when deployed.
func (s *testServer) Stop(t testing.TB) { s.stop(t) }

// Kill ends the server at once with SIGKILL, as a crash or an OOM kill
// would: nothing of it gets to clean up.
func (s *testServer) Kill() { s.kill() }

// Signal sends the server sig, as an operator's kill or Ctrl-C does.
func (s *testServer) Signal(t testing.TB, sig os.Signal) { s.signal(t, sig) }

// Exited waits up to d for the server to end on its own and returns how it
// ended (cmd.Wait's error); past d it kills the server and fails the test.
func (s *testServer) Exited(t testing.TB, d time.Duration) error { return s.exited(t, d) }

// startServer starts the server binary on a free loopback port, with env
// added to a minimal environment, and stops it at the end of the test.
func startServer(t testing.TB, env map[string]string) *testServer {
	t.Helper()
	return startServerOf(t, serverBinary(t), frontEnd(t), env)
}

// startServerOf is startServer for the binary bin serving the front end in
// root (another build's, for BenchmarkStartUpAB).
func startServerOf(t testing.TB, bin, root string, env map[string]string) *testServer {
	t.Helper()
	vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0"}
	for k, v := range env {
		vars[k] = v
	}
	cmd := commandOf(bin, root, vars)
	s := &testServer{Log: &servertest.Buffer{}, Out: &servertest.Buffer{}}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = io.MultiWriter(pw, s.Out), s.Log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.CloseWithError(fmt.Errorf("server exited: %v", err))
		done <- err
	}()
	var once sync.Once
	s.kill = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-done
		})
	}
	s.signal = func(t testing.TB, sig os.Signal) {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatalf("signalling the server %v: %v", sig, err)
		}
	}
	s.exited = func(t testing.TB, d time.Duration) (err error) {
		once.Do(func() {
			select {
			case err = <-done:
			case <-time.After(d):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the server still ran %v later; killed\nlog:\n%s", d, s.Log.String())
			}
		})
		return err
	}
	s.stop = func(t testing.TB) {
		once.Do(func() {
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Errorf("signalling the server: %v", err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("server did not exit cleanly: %v\nlog:\n%s", err, s.Log.String())
				}
			case <-time.After(15 * time.Second):
				t.Errorf("server did not exit within 15s of SIGTERM")
				cmd.Process.Kill()
				<-done
			}
		})
	}
	t.Cleanup(func() { s.stop(t) })
	// A server that never says where it listens is killed, which ends the scan.
	hung := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	s.URL = func() string { defer hung.Stop(); return servertest.ServingURL(t, pr, s.Log) }()
	servertest.WaitHealthy(t, s.URL+"/healthz")
	return s
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
	actx := startChromium(t, "riskchart-chromium-", chromedp.Flag("disable-dev-shm-usage", true))
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab) // runs before startChromium's cleanup, which ends the browser
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// startChromium returns the allocator of a headless chromium with a fresh
// profile in a directory named from prefix, and the flags every test and
// bench browser shares, then extra. Chromium's temporary files go inside
// the profile too: killed at the end, it leaves its socket directory behind
// (/tmp/org.chromium.Chromium.*, one per browser), and the cleanup removes
// the profile with everything in it.
func startChromium(t testing.TB, prefix string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	profile := newProfile(t, prefix)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), chromiumOptions(t, profile, extra...)...)
	t.Cleanup(cancel) // before the profile's removal: cleanups run last first
	return actx
}

// newProfile makes an empty chromium profile directory, removed at the end
// of the test.
func newProfile(t testing.TB, prefix string) string {
	t.Helper()
	profile, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatalf("creating a chromium profile: %v", err)
	}
	if err := os.Mkdir(filepath.Join(profile, "tmp"), 0o700); err != nil {
		t.Fatalf("creating chromium's temporary directory: %v", err)
	}
	t.Cleanup(func() {
		// Chromium's helpers may still be writing the profile as the browser
		// exits, and write its cache's index again just after it is removed:
		// it is removed until it stays gone.
		for range 20 {
			os.RemoveAll(profile)
			time.Sleep(100 * time.Millisecond)
			if _, err := os.Stat(profile); errors.Is(err, fs.ErrNotExist) {
				return
			}
		}
		t.Errorf("chromium's profile %s is still there after 2 s", profile)
	})
	return profile
}

// chromiumOptions are the flags every test and bench browser shares, on
// profile, then extra.
func chromiumOptions(t testing.TB, profile string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	return append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.UserDataDir(profile),
		chromedp.Env("TMPDIR=" + filepath.Join(profile, "tmp")),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 800),
	}, extra...)
}

// openChromium starts a headless chromium on profile, which outlives it, and
// returns a tab's context and a function that closes the browser as a
// person would (Browser.close), so that what it keeps on disk is written,
// and waits for it to exit. The test's end closes it too, if still open.
func openChromium(t testing.TB, profile string, extra ...chromedp.ExecAllocatorOption) (ctx context.Context, closeBrowser func()) {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(t, profile, extra...)...)
	ctx, cancelTab := chromedp.NewContext(actx)
	closeBrowser = func() {
		if err := chromedp.Cancel(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("closing chromium: %v", err)
		}
		cancelTab()
		cancelAlloc()
	}
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx, closeBrowser
}

// jsAppRunning is true once the app runs: go-app's loader gone and the
// app's own chart drawn.
const jsAppRunning = `!document.getElementById("app-wasm-loader") && performance.getEntriesByName("riskchart:app-drawn").length > 0`

// artifactDir is where browser tests leave screenshots and measurements.
func artifactDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot, "artifacts")
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

// pollToDeadline is chromedp.Poll bounded by the context's deadline alone.
// Poll gives up after 30 s of its own unless told otherwise, so a wait whose
// context allows longer (a quiet market's next move, a venue's 30 s retry, a
// benchmark's slow page) ended at 30 s, shorter than the caller asked for.
func pollToDeadline(js string, res any, opts ...chromedp.PollOption) chromedp.PollAction {
	return chromedp.Poll(js, res, append(opts, chromedp.WithPollingTimeout(0))...)
}

// waitForCandles waits until the chart holds candles and returns how many.
func waitForCandles(t testing.TB, ctx context.Context, timeout time.Duration) int {
	t.Helper()
	var n int
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Run(tctx, pollToDeadline(jsCandleCount+" > 0", nil, chromedp.WithPollingInterval(20*time.Millisecond)),
		chromedp.Evaluate(jsCandleCount, &n)); err != nil {
		var status string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &status))
		t.Fatalf("chart not drawn within %s: %v; page says: %q", timeout, err, strings.TrimSpace(status))
	}
	return n
}

// appWasmPattern matches every request for app.wasm, the page's and the
// compile worker's, in the browser's request patterns.
const appWasmPattern = "*/web/app.wasm*"

// holdAppWasm has the browser hold back each request for app.wasm: run hold
// before the navigation; each held request comes on the channel, for
// letAppWasmThrough.
func holdAppWasm(ctx context.Context) (held <-chan fetch.RequestID, hold chromedp.Action) {
	return holdRequests(ctx, appWasmPattern)
}

// openHoldingAppWasm opens u in a new browser with app.wasm held back (see
// holdAppWasm), after the actions before (a screen, a time zone, a script
// for every document): the page as it is before the app runs.
func openHoldingAppWasm(t testing.TB, u string, before ...chromedp.Action) (ctx context.Context, held <-chan fetch.RequestID) {
	t.Helper()
	return openHolding(t, u, holdAppWasm, before...)
}

// openStillHoldingAppWasm is openHoldingAppWasm with the app's live stream
// held back too, never answered: the latest candle stays as the first paint
// read it while a test compares the first paint with the app.
func openStillHoldingAppWasm(t testing.TB, u string, before ...chromedp.Action) (ctx context.Context, held <-chan fetch.RequestID) {
	t.Helper()
	return openStillRewritingKLine(t, u, nil, before...)
}

// openStillRewritingKLine is openStillHoldingAppWasm with each KLine answer
// the page or the app asks for passed to it through rewrite (nil: as the
// server sent it).
func openStillRewritingKLine(t testing.TB, u string, rewrite func(body []byte) ([]byte, error), before ...chromedp.Action) (ctx context.Context, held <-chan fetch.RequestID) {
	t.Helper()
	return openHolding(t, u, func(ctx context.Context) (<-chan fetch.RequestID, chromedp.Action) {
		patterns := []*fetch.RequestPattern{
			{URLPattern: appWasmPattern, RequestStage: fetch.RequestStageRequest},
			{URLPattern: liveStream, RequestStage: fetch.RequestStageRequest},
		}
		if rewrite != nil {
			patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*" + venueapi.PathKLine + "?*", RequestStage: fetch.RequestStageResponse})
		}
		each, hold := holdEach(ctx, patterns...)
		whenHeld(ctx, each[1], func(fetch.RequestID) {}) // never answered
		if rewrite != nil {
			whenHeld(ctx, each[2], func(id fetch.RequestID) {
				err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
					body, err := fetch.GetResponseBody(id).Do(ctx)
					if err != nil {
						return err
					}
					if body, err = rewrite(body); err != nil {
						return err
					}
					return answerJSON(id, body).Do(ctx)
				}))
				if err != nil && ctx.Err() == nil {
					t.Errorf("rewriting the KLine answer: %v", err)
				}
			})
		}
		return each[0], hold
	}, before...)
}

// openHolding opens u in a new browser after the actions before and the
// hold that holdFor makes for it; held has the requests holdFor holds back.
func openHolding(t testing.TB, u string, holdFor func(context.Context) (<-chan fetch.RequestID, chromedp.Action), before ...chromedp.Action) (ctx context.Context, held <-chan fetch.RequestID) {
	t.Helper()
	ctx = newBrowser(t)
	held, hold := holdFor(ctx)
	if err := chromedp.Run(ctx, append(before, hold, chromedp.Navigate(u))...); err != nil {
		t.Fatal(err)
	}
	return ctx, held
}

// holdRequests has the browser hold back each request whose URL matches
// pattern: run hold before the navigation; each held request comes on the
// channel, to be let through (fetch.ContinueRequest) or failed.
func holdRequests(ctx context.Context, pattern string) (held <-chan fetch.RequestID, hold chromedp.Action) {
	return holdAt(ctx, pattern, fetch.RequestStageRequest)
}

// holdResponses is holdRequests once the server has answered: the answer is
// in the browser, held back from the page.
func holdResponses(ctx context.Context, pattern string) (held <-chan fetch.RequestID, hold chromedp.Action) {
	return holdAt(ctx, pattern, fetch.RequestStageResponse)
}

func holdAt(ctx context.Context, pattern string, stage fetch.RequestStage) (held <-chan fetch.RequestID, hold chromedp.Action) {
	each, hold := holdEach(ctx, &fetch.RequestPattern{URLPattern: pattern, RequestStage: stage})
	return each[0], hold
}

// holdEach holds back the requests of several patterns at once (the
// browser takes one list of them: a second hold would replace the first),
// each pattern's on its own channel, held[i] for patterns[i]. A request
// goes to the first pattern its URL matches, a pattern's * standing for
// any text and ? for one character, as in the browser's.
func holdEach(ctx context.Context, patterns ...*fetch.RequestPattern) (held []<-chan fetch.RequestID, hold chromedp.Action) {
	chans := make([]chan fetch.RequestID, len(patterns))
	globs := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		chans[i] = make(chan fetch.RequestID, 4)
		held = append(held, chans[i])
		glob := strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(p.URLPattern))
		globs[i] = regexp.MustCompile("^" + glob + "$")
	}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			for i, g := range globs {
				if g.MatchString(e.Request.URL) {
					chans[i] <- e.RequestID
					return
				}
			}
		}
	})
	return held, fetch.Enable().WithPatterns(patterns)
}

// failEveryHeld has the browser fail, for reason, every request held back
// from now on (fetch.Enable's patterns say which).
func failEveryHeld(t *testing.T, ctx context.Context, reason network.ErrorReason) {
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			go func() {
				c := chromedp.FromContext(ctx)
				if err := fetch.FailRequest(e.RequestID, reason).Do(cdp.WithExecutor(ctx, c.Target)); err != nil && ctx.Err() == nil {
					t.Logf("failing %s: %v", e.Request.URL, err)
				}
			}()
		}
	})
}

// answerEveryHeld answers each request held (fetch.Enable's patterns) with
// 200, contentType and body, as a network that answers for the server
// does.
func answerEveryHeld(t *testing.T, ctx context.Context, contentType, body string) {
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			go func() {
				c := chromedp.FromContext(ctx)
				headers := []*fetch.HeaderEntry{{Name: "Content-Type", Value: contentType}}
				err := fetch.FulfillRequest(e.RequestID, 200).WithResponseHeaders(headers).WithBody(base64.StdEncoding.EncodeToString([]byte(body))).
					Do(cdp.WithExecutor(ctx, c.Target))
				if err != nil && ctx.Err() == nil {
					t.Logf("answering %s: %v", e.Request.URL, err)
				}
			}()
		}
	})
}

// onEveryDocument runs js in every document the tab loads from now on,
// before the document's own scripts.
func onEveryDocument(js string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	})
}

// whenHeld runs do on each request held (holdRequests, holdResponses), in
// turn, until ctx ends.
func whenHeld(ctx context.Context, held <-chan fetch.RequestID, do func(fetch.RequestID)) {
	go func() {
		for {
			select {
			case id := <-held:
				do(id)
			case <-ctx.Done():
				return
			}
		}
	}()
}

// awaitHandled waits for the first held request's handler to report on
// done: it fails the test with the handler's error, or with none when no
// request was held within d.
func awaitHandled(t *testing.T, done <-chan error, d time.Duration, none string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatal(none)
	}
}

// answerJSON answers the held request id with body, JSON that no cache
// keeps, as the server answers the KLine path.
func answerJSON(id fetch.RequestID, body []byte) chromedp.Action {
	return answerWith(id, "application/json", body)
}

// answerWith answers the held request id with body, of contentType, which
// no cache keeps.
func answerWith(id fetch.RequestID, contentType string, body []byte) chromedp.Action {
	headers := []*fetch.HeaderEntry{{Name: "Content-Type", Value: contentType}, {Name: "Cache-Control", Value: "no-store"}}
	return fetch.FulfillRequest(id, http.StatusOK).WithResponseHeaders(headers).WithBody(base64.StdEncoding.EncodeToString(body))
}

// wasmWireBytes is what the worker that fetched app.wasm (web/app-start.js)
// reported of its download: the bytes on the wire, 0 from a cache, -1 when
// the page has no such report.
func wasmWireBytes(t *testing.T, ctx context.Context) float64 {
	t.Helper()
	return evalJS[float64](t, ctx, `(performance.getEntriesByName("riskchart:wasm-fetch")[0] || { detail: { transferSize: -1 } }).detail.transferSize`)
}

// letAppWasmThrough lets the next held request for app.wasm go on.
func letAppWasmThrough(t testing.TB, ctx context.Context, held <-chan fetch.RequestID) {
	t.Helper()
	letThrough(t, ctx, held, "app.wasm")
}

// letThrough lets the next request held on held, for what, go on.
func letThrough(t testing.TB, ctx context.Context, held <-chan fetch.RequestID, what string) {
	t.Helper()
	select {
	case id := <-held:
		if err := chromedp.Run(ctx, fetch.ContinueRequest(id)); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was never asked for", what)
	}
}

// consoleLines collects, from now on, the text of each console call of the
// given type ("warning", "debug", "log" …) the tab's pages make; the
// function it returns reads those collected so far.
func consoleLines(ctx context.Context, typ runtime.APIType) func() []string {
	return collected(ctx, func(ev any) (text string, ok bool) {
		if e, is := ev.(*runtime.EventConsoleAPICalled); is && e.Type == typ && len(e.Args) > 0 {
			ok = json.Unmarshal(e.Args[0].Value, &text) == nil
		}
		return text, ok
	})
}

// collected collects, from now on, the text pick says of each event of the
// tab it takes; the function it returns reads those collected so far.
func collected(ctx context.Context, pick func(ev any) (string, bool)) func() []string {
	var mu sync.Mutex
	var texts []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if text, ok := pick(ev); ok {
			mu.Lock()
			texts = append(texts, text)
			mu.Unlock()
		}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(texts)
	}
}
