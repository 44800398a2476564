package main

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
)

// TestMetricsOnAListenerOfTheirOwn: with RISKCHART_METRICS_ADDR, /metrics is
// answered there and not on RISKCHART_ADDR, which a deployment's proxy
// publishes; without it, RISKCHART_ADDR answers it (docs/deploy.md#metrics).
func TestMetricsOnAListenerOfTheirOwn(t *testing.T) {
	const counted = "riskchart_connections_open"
	get := func(t *testing.T, u string) (int, string) {
		t.Helper()
		res, err := http.Get(u)
		body := sandboxtest.Body(t, res, err)
		return res.StatusCode, string(body)
	}
	t.Run("its own listener", func(t *testing.T) {
		s := startServer(t, map[string]string{"RISKCHART_METRICS_ADDR": "127.0.0.1:0"})
		m := regexp.MustCompile(`Metrics are served on (http://127\.0\.0\.1:\d+/metrics)\n`).FindStringSubmatch(s.Out.String())
		if m == nil {
			t.Fatalf("the server does not say where its metrics are:\n%s", s.Out)
		}
		if status, body := get(t, m[1]); status != http.StatusOK || !strings.Contains(body, counted) {
			t.Errorf("GET %s: HTTP %d, want 200 with %s:\n%.300s", m[1], status, counted, body)
		}
		if status, body := get(t, s.URL+"/metrics"); status != http.StatusNotFound || strings.Contains(body, counted) {
			t.Errorf("GET /metrics on RISKCHART_ADDR: HTTP %d, want 404 without the counts:\n%.300s", status, body)
		}
	})
	t.Run("the default", func(t *testing.T) {
		s := startServer(t, nil)
		if strings.Contains(s.Out.String(), "Metrics are served on") {
			t.Errorf("without RISKCHART_METRICS_ADDR the server names a metrics listener:\n%s", s.Out)
		}
		if status, body := get(t, s.URL+"/metrics"); status != http.StatusOK || !strings.Contains(body, counted) {
			t.Errorf("GET /metrics: HTTP %d, want 200 with %s", status, counted)
		}
	})
}

// TestAMetricsListenerThatCannotListenOrOutlivesTheServerIsRefused: an
// address taken is named, and a metrics listener opened before the main
// listener failed is closed when run returns.
func TestAMetricsListenerThatCannotListenOrOutlivesTheServerIsRefused(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free := freeAddr(t)
	for _, tc := range []struct {
		name, addr, metrics, want string
	}{
		{"the metrics address taken", "127.0.0.1:0", taken.Addr().String(), "RISKCHART_METRICS_ADDR"},
		{"the main address taken", taken.Addr().String(), free, "RISKCHART_ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"RISKCHART_ADDR": tc.addr, "RISKCHART_METRICS_ADDR": tc.metrics, "RISKCHART_ROOT": ".."}
			// The context stays open: what run started must stop because run returns.
			err := run(t.Context(), []string{"riskchart"}, func(k string) string { return vars[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want+" "+taken.Addr().String()) {
				t.Fatalf("run: %v, want an error naming %s and the address", err, tc.want)
			}
			if c, err := net.Dial("tcp", free); err == nil {
				c.Close()
				t.Errorf("the metrics listener on %s still takes connections after run returned", free)
			}
		})
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
