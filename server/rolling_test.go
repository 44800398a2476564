package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// A candle stream whose browser stopped reading (its socket full) must not
// take the whole RISKCHART_SHUTDOWN_TIMEOUT from the requests in flight:
// docs/deploy.md says shutdown waits the grace period for answers in
// flight, and a request the proxy sent while the replica still listened is
// one of them.
func TestAStuckStreamDoesNotCutTheRequestsInFlightAtShutdown(t *testing.T) {
	const grace = 3 * time.Second
	// The venue answers each call after 1 s: a request in flight takes that long.
	key, sb := keyedSandbox(t)
	sbln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sbctx, stopSB := context.WithCancel(context.Background())
	defer stopSB()
	go sb.Serve(sbctx, sbln)

	srv := startServer(t, map[string]string{"RISKCHART_SHUTDOWN_TIMEOUT": grace.String(),
		"RISKCHART_VENUE_URL": "http://" + sbln.Addr().String(), "RISKCHART_ACCESS_KEY": key.Access, "RISKCHART_SECRET_KEY": key.Secret})
	base := srv.URL

	// A browser that resumes a stream from 2000 candles back, then reads
	// nothing: its first write fills the socket and waits.
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
	defer conn.Close()
	from := venueapi.Period1Min.Start(time.Now().Unix()) - 1999*60
	fmt.Fprintf(conn, "GET %s?contract_code=BTC-USDT&period=1min HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: %d.0\r\n\r\n", venueapi.PathStreamKLine, from)
	line, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("the stream did not start: %q %v", line, err)
	}
	time.Sleep(200 * time.Millisecond)
	sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Latency: time.Second}}})

	done := make(chan error, 1)
	go func() { done <- srv.Stop() }() // SIGTERM
	signalled := time.Now()
	// The proxy still reaches the replica: a request sent 0.5 s before the
	// grace period ends, that takes 1 s, must be answered (or refused at
	// connect, which the proxy retries elsewhere), never cut.
	time.Sleep(grace - 500*time.Millisecond)
	type result struct {
		status int
		err    error
	}
	asked := make(chan result, 1)
	go func() {
		res, err := http.Post(base+venueapi.PathPositionLimit, "application/json", strings.NewReader(`{"contract_code":"ETH-USDT"}`))
		if err != nil {
			asked <- result{err: err}
			return
		}
		_, err = io.ReadAll(res.Body)
		res.Body.Close()
		asked <- result{res.StatusCode, err}
	}()
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(grace + 5*time.Second):
		t.Fatal("run did not return within the grace period and 5 s")
	}
	took := time.Since(signalled)
	r := <-asked
	refusedAtConnect := r.err != nil && strings.Contains(r.err.Error(), "connection refused")
	if runErr != nil || (r.err != nil && !refusedAtConnect) {
		t.Fatalf("after %s: run: %v; the request in flight: HTTP %d, %v\nlog:\n%s", took.Round(10*time.Millisecond), runErr, r.status, r.err, srv.Log.String())
	}
}
