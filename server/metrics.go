package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveMetrics serves GET /metrics from reg on a listener of its own at addr
// (RISKCHART_METRICS_ADDR), so that a deployment can keep its counts off the
// address its proxy publishes (docs/deploy.md#metrics). It answers until ctx
// ends or stop is called, whichever comes first; stop waits for it.
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry, log *slog.Logger) (net.Addr, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listening for /metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("the metrics listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	stopped := context.AfterFunc(ctx, func() { srv.Close() })
	stop := func() {
		stopped()
		srv.Close() // a scrape is short: nothing to wait for
		<-done
	}
	return ln.Addr(), stop, nil
}
