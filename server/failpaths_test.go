package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// goroutinesBackTo waits, for at most 3 s, until no more goroutines run
// than before, and reports the stacks of those left otherwise.
func goroutinesBackTo(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<22)
			t.Errorf("%d goroutines 3 s after run returned, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A start that fails part-way names the setting at fault, and stops what
// it started on the way before run returns: a second run on the same
// addresses starts at once.
func TestAStartThatFailsPartWayLeavesNothingRunning(t *testing.T) {
	redis := redistest.Start(t)
	locked := redistest.Start(t, "--requirepass", "right-one")
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"the sandbox address taken", map[string]string{"RISKCHART_SANDBOX_ADDR": taken.Addr().String()}, "RISKCHART_SANDBOX_ADDR"},
		{"the address taken, with Redis", map[string]string{"RISKCHART_ADDR": taken.Addr().String(), "RISKCHART_REDIS_URL": redis.URL()}, "RISKCHART_ADDR"},
		{"the address taken, Redis refusing the password", map[string]string{"RISKCHART_ADDR": taken.Addr().String(),
			"RISKCHART_REDIS_URL": "redis://:wrong-one@" + locked.Addr() + "/0"}, "RISKCHART_ADDR"},
		{"the address taken, Redis out of reach", map[string]string{"RISKCHART_ADDR": taken.Addr().String(),
			"RISKCHART_REDIS_URL": "redis://" + freeAddr(t) + "/0"}, "RISKCHART_ADDR"},
		{"the metrics address taken, with Redis", map[string]string{"RISKCHART_METRICS_ADDR": taken.Addr().String(), "RISKCHART_REDIS_URL": redis.URL()}, "RISKCHART_METRICS_ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": "..", "RISKCHART_SANDBOX_ADDR": freeAddr(t),
				"RISKCHART_METRICS_ADDR": freeAddr(t), "RISKCHART_SANDBOX_KEYS": "failpaths-access:failpaths-secret"}
			for k, v := range tc.env {
				vars[k] = v
			}
			before := runtime.NumGoroutine()
			err := run(t.Context(), []string{"riskchart"}, func(k string) string { return vars[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want+" "+taken.Addr().String()) {
				t.Fatalf("run: %v, want an error naming %s and the address", err, tc.want)
			}
			for _, secret := range []string{"wrong-one", "failpaths-secret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("run: %v shows a secret", err)
				}
			}
			goroutinesBackTo(t, before)
			// Again, on the addresses that were free.
			again := map[string]string{}
			for k, v := range vars {
				if v != taken.Addr().String() {
					again[k] = v
				}
			}
			startServer(t, again).Stop()
		})
	}
}

// A context that ends during start-up ends run as a shutdown does, and run
// returns with its addresses free.
func TestAContextEndedDuringStartUpLeavesTheAddressesFree(t *testing.T) {
	redis := redistest.Start(t)
	addr, sandboxAddr, metricsAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	vars := map[string]string{"RISKCHART_ADDR": addr, "RISKCHART_ROOT": "..", "RISKCHART_SANDBOX_ADDR": sandboxAddr,
		"RISKCHART_METRICS_ADDR": metricsAddr, "RISKCHART_REDIS_URL": redis.URL()}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx, []string{"riskchart"}, func(k string) string { return vars[k] }, io.Discard, io.Discard); err != nil {
		t.Errorf("run: %v, want nil: an ended context is a shutdown", err)
	}
	goroutinesBackTo(t, before)
	for _, a := range []string{addr, sandboxAddr, metricsAddr} {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			t.Errorf("%s still taken after run returned: %v", a, err)
			continue
		}
		ln.Close()
	}
}

// A candle stream whose browser stopped reading is ended when the grace
// period ends, before run returns: its connection, taken over from
// net/http, is no longer closed by http.Server.Close, and would otherwise
// stay open, with its goroutine, for the stream's write timeout (10 s).
func TestAStuckStreamIsEndedBeforeRunReturns(t *testing.T) {
	const grace = 500 * time.Millisecond
	s := startServer(t, map[string]string{"RISKCHART_SHUTDOWN_TIMEOUT": grace.String()})
	openStuckStream(t, s.URL)
	if err := s.Stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	stopped := time.Now()
	for len(goroutinesNamed(streamGoroutine)) > 0 {
		if time.Since(stopped) > 2*time.Second {
			t.Fatalf("the stuck stream still runs 2 s after run returned (grace %s)\nlog:\n%s", grace, s.Log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// streamGoroutine names the goroutine that writes a candle stream.
const streamGoroutine = "gateway.(*server).stream.func"

// openStuckStream opens a candle stream on the server at base for a browser
// that resumes it from 2000 candles back, then reads nothing, and returns
// once the stream's first write has filled the socket and waits.
func openStuckStream(t *testing.T, base string) {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		// A small window and segment, as a browser far away behind a
		// proxy: the replica's socket buffer stays as small as on a real network.
		return c.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048)
			_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, 536)
		})
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	from := venueapi.Period1Min.Start(time.Now().Unix()) - 1999*60
	fmt.Fprintf(conn, "GET %s?contract_code=BTC-USDT&period=1min HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: %d.0\r\n\r\n", venueapi.PathStreamKLine, from)
	if line, err := bufio.NewReaderSize(conn, 16).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("the stream did not start: %q %v", line, err)
	}
	servertest.WaitFor(t, 5*time.Second, "the stream's write waiting for its reader", func() bool {
		return slices.ContainsFunc(goroutinesNamed(streamGoroutine), func(g string) bool { return strings.Contains(g, "waitWrite") })
	})
}

// goroutinesNamed is the stacks of the goroutines that name fn.
func goroutinesNamed(fn string) []string {
	buf := make([]byte, 1<<22)
	var named []string
	for g := range strings.SplitSeq(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			named = append(named, g)
		}
	}
	return named
}
