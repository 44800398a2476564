// Package servertest holds what the tests that start a whole Riskchart share,
// whether they run it in-process or as the built binary: a log buffer, the
// waits for it to say where it serves and to answer /healthz, WaitFor, the
// wait for any condition its parts' tests look for, and ChildAttr, for every
// process a test or a bench starts.
package servertest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Buffer is a text buffer safe for a server's goroutines and the test.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p; it never fails.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns all written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingOn = regexp.MustCompile(`serving on (http://\S+)/`)

// ServingURL reads a server's stdout until it says where it serves, and
// returns that base URL; it then drains out, so that the server never
// blocks writing to it. When out ends first it fails t, showing log
// (which may be nil).
func ServingURL(t testing.TB, out io.Reader, log fmt.Stringer) string {
	t.Helper()
	url := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := servingOn.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	go io.Copy(io.Discard, out)
	if url == "" {
		shown := ""
		if log != nil {
			shown = log.String()
		}
		t.Fatalf("server did not start: %v\nlog:\n%s", sc.Err(), shown)
	}
	return url
}

// WaitHealthy waits until url answers 200, for at most 10 s.
func WaitHealthy(t testing.TB, url string) {
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

// WaitFor polls cond every 20 ms for up to d, and fails t, saying what was
// waited for, if it does not hold by then.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
