package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// A run that did not serve all its viewers measured less load than it
// claims: fewer streams cost less memory and CPU, and a 429 is answered
// fast. No target is met on such a run.
func TestTargetsNeedEveryViewerServed(t *testing.T) {
	good := func() (result, result) {
		return result{viewers: 10_000, samples: 5000, p99: 20 * time.Millisecond, perViewer: 10 << 10, cpu: 0.2},
			result{viewers: 10_000, samples: 9000, p99: 990 * time.Millisecond, perViewer: 30 << 10, cpu: 0.5}
	}
	for _, tc := range []struct {
		name  string
		spoil func(stream, polled *result)
		want  bool
	}{
		{"both runs whole", func(*result, *result) {}, true},
		{"streams refused at opening", func(s, _ *result) { s.failed, s.viewers = 5000, 5000 }, false},
		{"streams ended during the run", func(s, _ *result) { s.ended = 1 }, false},
		{"streams dropped as too slow", func(s, _ *result) { s.dropped = 3 }, false},
		{"polls answered 429", func(_, p *result) { p.refused = 200 }, false},
		{"no candle read by a stream", func(s, _ *result) { s.samples, s.p99 = 0, 0 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream, polled := good()
			tc.spoil(&stream, &polled)
			all := true
			for _, tg := range targets(stream, polled) {
				all = all && tg.met
				if tc.want && !tg.met {
					t.Errorf("%q not met", tg.what)
				}
			}
			if !tc.want && all {
				t.Errorf("every target met on a run whose viewers were not all served: %+v / %+v", stream, polled)
			}
		})
	}
}

// A poll answered 429 or with the venue's error envelope under 200 is
// counted, not passed over.
func TestAPollNotAnsweredWithCandlesIsCounted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"429", http.StatusTooManyRequests, string(venueapi.ErrorBody(venueapi.PathKLine, venueapi.CodeRateLimited, "too many requests from this client: retry in 1s", 1))},
		{"an error envelope under 200", http.StatusOK, string(venueapi.ErrorBody(venueapi.PathKLine, venueapi.CodeNoSuchContract, "contract_code: not listed", 1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			v := &viewer{query: "contract_code=BTC-USDT&period=1min", from: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)},
				srv: &server{url: srv.URL}, venue: &venue{first: map[string]time.Time{}}}
			ctx, cancel := context.WithTimeout(t.Context(), 2100*time.Millisecond) // the first poll within a second, the next a second later
			defer cancel()
			if err := v.poll(ctx, func() {}); err != nil && !strings.Contains(err.Error(), "closed") {
				t.Fatal(err)
			}
			if v.refused.Load() < 1 {
				t.Errorf("polls answered %d were not counted", tc.status)
			}
		})
	}
}
