package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/servertest"

	"github.com/riskchart/riskchart/venueapi"
)

func TestSecretsAppearInNoAnswerLogLineOrBundleFile(t *testing.T) {
	const secret = "sandbox-secret-that-must-not-leak"
	s := startServer(t, map[string]string{"RISKCHART_SANDBOX_KEYS": "lead:" + secret})
	paths := []string{"/", "/tiers", "/app.js", "/app-worker.js", "/manifest.webmanifest", "/wasm_exec.js", "/web/app.wasm",
		"/api/v1/contracts", "/metrics", "/readyz", venueapi.PathTiers + "?contract_code=BTC-USDT",
		venueapi.PathPositionLimit, venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5",
		venueapi.PathTiers + "?contract_code=NOPE-USDT"}
	for _, p := range paths {
		res, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(body), secret) || strings.Contains(res.Header.Get("Set-Cookie"), secret) {
			t.Errorf("%s shows the secret", p)
		}
	}
	if strings.Contains(s.Log.String(), secret) || strings.Contains(s.Out.String(), secret) {
		t.Fatalf("the secret is in the logs or the printed configuration")
	}
	if !strings.Contains(s.Out.String(), "RISKCHART_SANDBOX_KEYS") {
		t.Fatalf("the configuration was not printed:\n%s", s.Out.String())
	}
}

// TestShutdownLetsInFlightRequestsFinish: a request in flight when the
// context ends is answered whole, and the server then stops answering. The
// venue holds the request's call until the listener has closed, so that the
// request is in flight when the shutdown begins and is answered during it,
// however slow the machine: a sleep before the signal left the request
// unsent (refused at connect) or already answered.
func TestShutdownLetsInFlightRequestsFinish(t *testing.T) {
	venue := startCountingVenue(t, "DOGE-USDT")
	srv := startServer(t, venue.env())
	base := srv.URL
	var wg sync.WaitGroup
	var status int
	var askErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		to := venueapi.Period1Min.Start(time.Now().Unix()) - 86400*300
		res, err := http.Get(base + venueapi.PathKLine + "?contract_code=DOGE-USDT&period=1min&from=" + itoa(to-1999*60) + "&to=" + itoa(to))
		askErr = err
		if err == nil {
			status = res.StatusCode
			res.Body.Close()
		}
	}()
	select {
	case <-venue.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not reach the venue within 10 s")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop() }()
	// The listener closes as the shutdown begins: from then on the request
	// is one the shutdown waits for.
	addr := strings.TrimPrefix(base, "http://")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still takes connections 10 s after its context ended")
		}
	}
	venue.letGo()
	wg.Wait()
	if err := <-stopped; err != nil {
		t.Fatalf("run: %v", err)
	}
	if status != http.StatusOK {
		t.Fatalf("the in-flight request got %d (%v), want 200", status, askErr)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("the server still answers after shutdown")
	}
}

// TestShutdownClosesWhatIsLeftAfterTheGracePeriod: a request still running
// when RISKCHART_SHUTDOWN_TIMEOUT runs out has its connection closed, which
// ends its context, and serve says the shutdown did not finish.
func TestShutdownClosesWhatIsLeftAfterTheGracePeriod(t *testing.T) {
	const grace = 200 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served, asked, _ := holdOneRequest(t, ctx, ln, grace)
	cancel()
	select {
	case err = <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return 10 s after its context ended")
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "still running") {
		t.Errorf("serve: %v; want it to say requests were still running after the grace period", err)
	}
	select {
	case err := <-asked:
		if err == nil {
			t.Fatal("the request was answered whole; want its connection closed")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the request still waits 2 s after serve returned: its connection was left open")
	}
}

// holdOneRequest runs serve on ln with the grace period grace until ctx
// ends, its one handler holding each request until the request's context
// ends, and sends it one request; it returns once the handler has it.
// served gets serve's return, asked the client's (nil: answered whole), and
// handled is closed once the handler has returned.
func holdOneRequest(t *testing.T, ctx context.Context, ln net.Listener, grace time.Duration) (served, asked <-chan error, handled <-chan struct{}) {
	t.Helper()
	release := make(chan struct{}) // ends a handler a server left running, so that the test does not hang
	t.Cleanup(func() { close(release) })
	started, returned := make(chan struct{}, 1), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	serving := make(chan error, 1)
	cfg := config{ReadTimeout: time.Second, ShutdownTimeout: grace}
	go func() {
		serving <- serve(ctx, ln, h, gateway.NewStreams(), gateway.NewDetached(), cfg, slog.New(slog.DiscardHandler))
	}()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	answered := make(chan error, 1)
	go func() {
		res, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String() + "/")
		if err == nil {
			_, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		answered <- err
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the request did not reach the handler")
	}
	return serving, answered, returned
}

// failingListener is a listener whose Accept fails for good once fail is
// closed, as a listener's file descriptor taken away would.
type failingListener struct {
	net.Listener
	fail chan struct{}
}

func (l failingListener) Accept() (net.Conn, error) {
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Listener.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	select {
	case c, ok := <-accepted:
		if ok {
			return c, nil
		}
		return nil, net.ErrClosed
	case <-l.fail:
		l.Listener.Close()
		return nil, errors.New("accept: the listener failed")
	}
}

// TestAListenerThatFailsEndsTheServerAsAShutdownWould: when Serve stops
// because its listener failed, serve does not return while a request it took
// still runs (runService would close the Redis client and the sandbox under
// it): the request gets the grace period, then its connection is closed, and
// serve's error names the listener's failure.
func TestAListenerThatFailsEndsTheServerAsAShutdownWould(t *testing.T) {
	const grace = 300 * time.Millisecond
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := failingListener{Listener: inner, fail: make(chan struct{})}
	served, _, handled := holdOneRequest(t, context.Background(), ln, grace)
	close(ln.fail)
	select {
	case err = <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return 10 s after its listener failed")
	}
	if err == nil || !strings.Contains(err.Error(), "the listener failed") || !strings.Contains(err.Error(), "still running") {
		t.Errorf("serve: %v; want the listener's failure and the request still running after the grace period", err)
	}
	// Handlers end once their connection is closed: serve returned after
	// closing it, so the handler's return follows shortly, not at release.
	select {
	case <-handled:
	case <-time.After(5 * time.Second):
		t.Fatal("the request still runs 5 s after serve returned: its connection was left open")
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestTheSandboxRunsOnItsOwn(t *testing.T) {
	// Its address given as a variable, then as a flag: either is kept, not
	// replaced by the port it takes when none is given (9000).
	t.Run("the address as a flag", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"riskchart", "sandbox", "-sandbox-addr", "127.0.0.1:0"}, func(k string) string { return map[string]string{"RISKCHART_SANDBOX_KEYS": "a:b"}[k] }, pw, io.Discard)
			pw.Close()
		}()
		if base := servertest.ServingURL(t, pr, nil); strings.HasSuffix(base, ":9000") {
			t.Errorf("-sandbox-addr 127.0.0.1:0 served on %s, the default's port", base)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	env := map[string]string{"RISKCHART_SANDBOX_KEYS": "a:b", "RISKCHART_SANDBOX_ADDR": "127.0.0.1:0"}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"riskchart", "sandbox"}, func(k string) string { return env[k] }, pw, io.Discard)
		pw.Close()
	}()
	base := servertest.ServingURL(t, pr, nil)
	res, err := http.Get(base + venueapi.PathKLine + "?contract_code=ETH-USDT&period=1day&size=3")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"ch":"market.ETH-USDT.kline.1day"`) {
		t.Fatalf("standalone sandbox answered %s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"riskchart", "sandbox"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "RISKCHART_SANDBOX_KEYS") {
		t.Fatalf("without keys: %v", err)
	}
}

// The sandbox alone logs at RISKCHART_LOG_LEVEL: at debug, a line per
// request.
func TestTheSandboxLogsAtTheLevelGiven(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want bool // a debug line for the request
	}{
		{"by default, info", nil, nil, false},
		{"the flag", []string{"-log-level", "debug"}, nil, true},
		{"the variable", nil, map[string]string{"RISKCHART_LOG_LEVEL": "debug"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"RISKCHART_SANDBOX_KEYS": "a:b", "RISKCHART_SANDBOX_ADDR": "127.0.0.1:0"}
			for k, v := range tt.env {
				env[k] = v
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pr, pw := io.Pipe()
			log := &servertest.Buffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"riskchart", "sandbox"}, tt.args...), func(k string) string { return env[k] }, pw, log)
				pw.Close()
			}()
			base := servertest.ServingURL(t, pr, log)
			res, err := http.Get(base + venueapi.PathKLine + "?contract_code=ETH-USDT&period=1day&size=3")
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(log.String(), `"level":"DEBUG","msg":"request"`); got != tt.want {
				t.Errorf("a debug line for the request: %v, want %v; the log:\n%s", got, tt.want, log.String())
			}
		})
	}
}

// A server that cannot listen on RISKCHART_ADDR returns, and what it started
// on the way has stopped: nothing logs on for it.
func TestAServerThatCannotListenLeavesNothingRunning(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	vars := map[string]string{"RISKCHART_ADDR": taken.Addr().String(), "RISKCHART_ROOT": ".."}
	before := goroutinesRunning("gateway.(*LogSummary).Run")
	// The context stays open: what run started must stop because run returns.
	err = run(t.Context(), []string{"riskchart"}, func(k string) string { return vars[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "RISKCHART_ADDR") {
		t.Fatalf("run: %v, want an error naming RISKCHART_ADDR", err)
	}
	if after := goroutinesRunning("gateway.(*LogSummary).Run"); after != before {
		t.Errorf("%d log summaries run after run returned, %d before", after, before)
	}
}

// goroutinesRunning counts the goroutines whose stack holds fn.
func goroutinesRunning(fn string) int {
	buf := make([]byte, 1<<22)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), fn+"(")
}

func TestTheBinaryNamesTheVariableBehindALibrarysRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"a public address without viewer tokens", map[string]string{"RISKCHART_ADDR": "0.0.0.0:0"}, []string{"RISKCHART_ADDR", "RISKCHART_VIEWER_TOKENS", "viewer tokens"}},
		{"a malformed sandbox key", map[string]string{"RISKCHART_SANDBOX_KEYS": "a:b,no-colon"}, []string{"RISKCHART_SANDBOX_KEYS", "pair 2"}},
		{"a short embed key", map[string]string{"RISKCHART_EMBED_KEY": "short"}, []string{"RISKCHART_EMBED_KEY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": ".."}
			for k, v := range tc.env {
				vars[k] = v
			}
			err := run(t.Context(), []string{"riskchart"}, func(k string) string { return vars[k] }, io.Discard, io.Discard)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("run: %v, want an error naming %q", err, w)
				}
			}
		})
	}
}

func TestTheSandboxSeedDrawsTheMarket(t *testing.T) {
	// closes is the day closes of BTC-USDT's last month before today's,
	// by candle id, as the server answers them.
	closes := func(t *testing.T, env map[string]string) map[int64]string {
		t.Helper()
		s := startServer(t, env)
		res, err := http.Get(s.URL + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1day&size=30")
		body := sandboxtest.Body(t, res, err)
		a, err := venueapi.DecodeKLine(body)
		if err != nil || len(a.Data) != 30 {
			t.Fatalf("decoding the answer (%v, %d candles): %s", err, len(a.Data), body)
		}
		out := map[int64]string{}
		for _, c := range a.Data[:len(a.Data)-1] { // today's candle moves
			out[c.ID] = c.Close.String()
		}
		return out
	}
	same := func(a, b map[int64]string) (agree, differ int) {
		for id, c := range a {
			switch d, ok := b[id]; {
			case !ok:
			case c == d:
				agree++
			default:
				differ++
			}
		}
		return agree, differ
	}
	byDefault := closes(t, nil)
	seven := closes(t, map[string]string{"RISKCHART_SANDBOX_SEED": "7"})
	sevenAgain := closes(t, map[string]string{"RISKCHART_SANDBOX_SEED": "7"})
	// Three servers started within a second share at least 28 of the 29
	// days, unless the day turned between them.
	if agree, differ := same(seven, sevenAgain); differ != 0 || agree < 28 {
		t.Errorf("two sandboxes of seed 7: %d day closes agree, %d differ; want one market", agree, differ)
	}
	if agree, differ := same(byDefault, seven); differ < 28 {
		t.Errorf("the default market and seed 7's: %d day closes agree, %d differ; want another market", agree, differ)
	}
}
