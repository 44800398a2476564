package e2e

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestASecondSignalEndsTheServerAtOnce: the first SIGTERM starts a graceful
// shutdown, which waits for the requests in flight up to
// RISKCHART_SHUTDOWN_TIMEOUT; a second one, as an operator's second Ctrl-C,
// ends the process the default way instead of waiting that out
// (docs/deploy.md#behind-a-reverse-proxy, its timeouts).
func TestASecondSignalEndsTheServerAtOnce(t *testing.T) {
	asked := make(chan struct{}, 1)
	// A venue that takes every request and never answers holds a KLine
	// request in flight for the venue client's whole timeout.
	venue := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	t.Cleanup(venue.Close)
	s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": venue.URL, "RISKCHART_SHUTDOWN_TIMEOUT": "60s"})
	go func() {
		if res, err := http.Get(s.URL + "/sapi/v1/market/history/kline?contract_code=BTC-USDT&period=1min"); err == nil {
			res.Body.Close()
		}
	}()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the KLine request did not reach the venue within 10 s")
	}

	s.Signal(t, syscall.SIGTERM)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.Log.String(), `"msg":"shutting down"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no shutdown logged 10 s after SIGTERM; log:\n%s", s.Log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Signal(t, syscall.SIGTERM)
	err := s.Exited(t, 5*time.Second)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the server ended with %v after the second SIGTERM; want it killed by the signal", err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("the server ended with %v after the second SIGTERM; want it killed by the signal", err)
	}
}
