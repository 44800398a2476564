package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A refusal is answered fast: counted as a request done, it would raise
// req/s and lower p99 of a run the limiter refused. Only 200s count.
func TestLoadCountsOnlyAnswersThatSucceeded(t *testing.T) {
	candles := sandboxAnswer(t, "contract_code=BTC-USDT&period=1min&size=300")
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		time.Sleep(2 * time.Millisecond)
		w.Write(candles)
	}))
	defer srv.Close()
	f := flags{duration: 10 * time.Second, requests: 200, clients: 1}
	r := load(t.Context(), srv.URL, f, 0, func(int, int) string { return "/kline" })
	if r.sent != 200 || r.errors != 100 {
		t.Fatalf("sent %d, errors %d: want 200 and 100", r.sent, r.errors)
	}
	if r.done != 100 || len(r.lat) != 100 {
		t.Errorf("done %d, latencies %d: want 100 each, the 200s only (the 429s are errors)", r.done, len(r.lat))
	}
	if r.quantile(1) < 2*time.Millisecond {
		t.Errorf("p1 %s: a 429's latency was counted with the answers'", r.quantile(1))
	}
}
