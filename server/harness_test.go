package main

// The in-process harness of package main's own tests: run() on a loopback
// port with the embedded sandbox. The browser tests start the built binary
// instead (package e2e).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"
)

// testServer is a running Riskchart.
type testServer struct {
	URL  string // http://127.0.0.1:port
	Log  *servertest.Buffer
	Out  *servertest.Buffer
	stop func() error
}

// Stop ends the server as SIGTERM does (its context ends) and returns what
// run returned; the end of the test stops it otherwise.
func (s *testServer) Stop() error { return s.stop() }

// startServer runs the whole server in-process on a free loopback port, with
// env added to a minimal environment, and stops it at the end of the test.
func startServer(t testing.TB, env map[string]string) *testServer {
	t.Helper()
	vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": ".."}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{Log: &servertest.Buffer{}, Out: &servertest.Buffer{}}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"riskchart"}, func(k string) string { return vars[k] }, io.MultiWriter(pw, s.Out), s.Log)
		pw.CloseWithError(fmt.Errorf("server stopped: %v", err))
		done <- err
	}()
	var once sync.Once
	var stopped error
	s.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopped = <-done:
			case <-time.After(15 * time.Second):
				stopped = errors.New("the server did not stop within 15s of its context ending")
			}
		})
		return stopped
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("server stopped with an error: %v", err)
		}
	})
	s.URL = servertest.ServingURL(t, pr, s.Log)
	servertest.WaitHealthy(t, s.URL+"/healthz")
	return s
}

// do sends a request of method to the server's path with header, and
// returns the answer with its body read whole.
func (s *testServer) do(t testing.TB, method, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return res, b
}
