package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// countingVenue is the sandbox behind a loopback server that counts the
// connections open to it, and can hold the KLine calls for one contract.
type countingVenue struct {
	URL  string
	Key  sandbox.Key
	open atomic.Int64

	hold    string        // a contract whose KLine calls wait for release
	asked   chan struct{} // closed when the first held call arrived
	release chan struct{}
	once    sync.Once
	letGo   func()
}

func startCountingVenue(t *testing.T, hold string) *countingVenue {
	t.Helper()
	key, err := sandbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Keys: []sandbox.Key{key}})
	if err != nil {
		t.Fatal(err)
	}
	v := &countingVenue{Key: key, hold: hold, asked: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	v.letGo = func() { releaseOnce.Do(func() { close(v.release) }) }
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold != "" && r.URL.Path == venueapi.PathKLine && r.URL.Query().Get("contract_code") == hold {
			v.once.Do(func() { close(v.asked) })
			<-v.release
		}
		sb.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			v.open.Add(1)
		case http.StateClosed, http.StateHijacked:
			v.open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(v.letGo) // before the venue closes: Close waits for its handlers
	v.URL = srv.URL
	return v
}

// runInProcess runs the server with vars until stop, which returns what run
// returned; the log is what run wrote to stderr.
func runInProcess(t *testing.T, vars map[string]string) (base string, log *servertest.Buffer, stop func() error) {
	t.Helper()
	env := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": ".."}
	for k, v := range vars {
		env[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	log = &servertest.Buffer{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"riskchart"}, func(k string) string { return env[k] }, pw, log)
		pw.Close()
	}()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { stop() })
	base = servertest.ServingURL(t, pr, log)
	servertest.WaitHealthy(t, base+"/healthz")
	return base, log, stop
}

// Once run has returned, the server holds no connection to the venue: an
// embedder (or a test) that runs it again, or goes on without it, keeps no
// kept-alive connection, with its two goroutines, for the transport's idle
// timeout (90 s).
func TestRunReturnsWithNoConnectionToTheVenueOpen(t *testing.T) {
	v := startCountingVenue(t, "")
	base, log, stop := runInProcess(t, map[string]string{"RISKCHART_VENUE_URL": v.URL,
		"RISKCHART_ACCESS_KEY": v.Key.Access, "RISKCHART_SECRET_KEY": v.Key.Secret})
	for _, p := range []string{venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5", venueapi.PathTiers + "?contract_code=BTC-USDT", "/readyz"} {
		res, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	if v.open.Load() == 0 {
		t.Fatal("the server opened no connection to the venue")
	}
	if err := stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for v.open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := v.open.Load(); n > 0 {
		t.Errorf("%d connections to the venue still open 2 s after run returned\nlog:\n%s", n, log.String())
	}
}

// A replica that stops leaves the budgets' count of present replicas then,
// not once its presence runs out: a replica restarted in its place at once
// must not be warned of more replicas than RISKCHART_REPLICAS (and spend its
// one warning on it), while one beside a replica still running is.
func TestARestartedReplicaIsNotCountedBesideItsOldSelf(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stopFirst bool
		warned    bool
	}{
		{"restarted at once", true, false},
		{"beside one still running", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := redistest.Start(t)
			env := map[string]string{"RISKCHART_REDIS_URL": redis.URL(), "RISKCHART_REPLICAS": "1"}
			get := func(base, code, period string) {
				t.Helper()
				res, err := http.Get(base + venueapi.PathKLine + "?contract_code=" + code + "&period=" + period + "&size=5")
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			first, _, stopFirst := runInProcess(t, env)
			get(first, "BTC-USDT", "1min")
			if tc.stopFirst {
				if err := stopFirst(); err != nil {
					t.Fatalf("run: %v", err)
				}
			}
			second, log, _ := runInProcess(t, env)
			// A series the first did not ask for: a venue call, and a turn.
			get(second, "ETH-USDT", "1min")
			const crowded = "more replicas present than RISKCHART_REPLICAS"
			got := strings.Contains(log.String(), crowded)
			if got != tc.warned {
				t.Errorf("the second replica warned %q: %v, want %v\nits log:\n%s", crowded, got, tc.warned, log.String())
			}
		})
	}
}
