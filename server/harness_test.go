package main

// The in-process harness of package main's own tests: run() on a loopback
// port with the embedded sandbox. The browser tests start the built binary
// instead (package e2e).

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"
)

// testServer is a running Riskchart.
type testServer struct {
	URL string // http://127.0.0.1:port
	Log *servertest.Buffer
	Out *servertest.Buffer
}

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
	t.Cleanup(func() {
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
