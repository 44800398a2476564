package main

// The in-process harness of package main's own tests: run() on a loopback
// port with the embedded sandbox. The browser tests start the built binary
// instead (package e2e).

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer is a running Riskchart.
type testServer struct {
	URL string // http://127.0.0.1:port
	Log *syncBuffer
	Out *syncBuffer
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
	s := &testServer{Log: &syncBuffer{}, Out: &syncBuffer{}}
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
