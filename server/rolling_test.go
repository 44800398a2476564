package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
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

	openStuckStream(t, base) // its first write fills the socket and waits
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
