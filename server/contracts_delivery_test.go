package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// TestTheSandboxsOfferedContractsOutliveADelivery: with RISKCHART_CONTRACTS
// unset the server offers the sandbox's markets, listed once at start
// (main.go). Every contract offered must still be one the sandbox answers
// after the next Friday's delivery (docs/decisions.md#futures-calendar):
// a server running across a Friday 08:00 UTC must not offer a delivered
// future, which the chart can only answer with "The venue does not list this
// contract".
func TestTheSandboxsOfferedContractsOutliveADelivery(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 4, 7, 59, 59, 0, time.UTC) // a Friday, a second before its delivery
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	sb, err := sandbox.New(sandbox.Config{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	offered := contractsOf(sb.Markets()) // as main.go offers them, at start
	for _, later := range []time.Duration{time.Second, 2 * time.Second, 7 * 24 * time.Hour, 90 * 24 * time.Hour} {
		mu.Lock()
		now = time.Date(2026, 12, 4, 7, 59, 59, 0, time.UTC).Add(later)
		mu.Unlock()
		for _, c := range offered {
			res, err := http.Get(srv.URL + venueapi.PathKLine + "?contract_code=" + c.Code + "&period=1day&size=1")
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Status  string `json:"status"`
				ErrCode int    `json:"err_code"`
				Code    int    `json:"code"`
				ErrMsg  string `json:"err_msg"`
			}
			err = json.NewDecoder(res.Body).Decode(&env)
			res.Body.Close()
			if err != nil || env.Status != venueapi.StatusOK {
				t.Errorf("%s after the start: the server offers %s, the sandbox answers %+v %v", later, c.Code, env, err)
			}
		}
	}
}
