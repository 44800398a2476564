package gateway_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// logLines decodes a JSON log, one record a line.
func logLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// A live chart polls every second: at info level the log holds the misses
// and the minute's summary, not a line per poll (docs/deploy.md#logs).
func TestAtInfoLevelCachedPollsWriteNoLineAMissWritesOneAndTheSummaryCountsThem(t *testing.T) {
	info := &servertest.Buffer{}
	reg := prometheus.NewRegistry()
	var summary *gateway.LogSummary
	s := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(info, &slog.HandlerOptions{Level: slog.LevelInfo}))
		c.Registry = reg
		summary = gateway.NewLogSummary(reg, c.Logger)
	}})
	poll := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2"
	if a := s.get(t, poll); a.status != 200 {
		t.Fatalf("first poll: HTTP %d %s", a.status, a.body)
	}
	lines := logLines(t, info.String())
	if len(lines) != 1 || lines[0]["msg"] != "request" || lines[0]["level"] != "INFO" || lines[0]["cache"] != "miss" {
		t.Fatalf("the first poll, a miss, logged %v; want one INFO request line with cache=miss", lines)
	}
	for range 100 {
		s.get(t, poll)
	}
	s.clock.Advance(2 * time.Second) // the open candle is due a refresh: one venue call, still a poll
	s.get(t, poll)
	if got := logLines(t, info.String()); len(got) != 1 {
		t.Fatalf("101 cached or refreshed polls logged %d more lines at info level:\n%s", len(got)-1, info.String())
	}
	summary.Write(t.Context())
	lines = logLines(t, info.String())
	last := lines[len(lines)-1]
	want := map[string]float64{"requests": 102, "errors": 0, "cache_hits": 100, "cache_misses": 2, "venue_calls": float64(s.klineCalls()), "streams_open": 0}
	if last["msg"] != "summary" || last["level"] != "INFO" {
		t.Fatalf("the last line is %v, want the INFO summary", last)
	}
	for k, v := range want {
		if last[k] != v {
			t.Errorf("summary %s = %v, want %v (%v)", k, last[k], v, last)
		}
	}
	if s.klineCalls() != 2 {
		t.Errorf("the venue got %d KLine calls, want 2 (the miss and the refresh)", s.klineCalls())
	}
	// The next line counts only what came since.
	s.get(t, poll)
	summary.Write(t.Context())
	lines = logLines(t, info.String())
	if last := lines[len(lines)-1]; last["requests"] != float64(1) || last["cache_hits"] != float64(1) || last["venue_calls"] != float64(0) {
		t.Errorf("the second summary is %v, want 1 request, 1 hit, no venue call", last)
	}
}

func TestRequestLogLevels(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		want       string // the request line's level; "" for none at info level
	}{
		{"a page is debug", "/tiers", ""},
		{"health is debug", "/healthz", ""},
		{"a malformed query is info", venueapi.PathKLine + "?contract_code=BTC-USDT&period=2min&size=2", "INFO"},
		{"a range not held is a miss, info", venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&from=1795000000&to=1795000600", "INFO"},
		{"tiers not held are a miss, info", venueapi.PathTiers + "?contract_code=BTC-USDT", "INFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &servertest.Buffer{}
			s := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) {
				c.Logger = slog.New(slog.NewJSONHandler(info, &slog.HandlerOptions{Level: slog.LevelInfo}))
			}})
			s.get(t, tc.path)
			var levels []any
			for _, l := range logLines(t, info.String()) {
				if l["msg"] == "request" {
					levels = append(levels, l["level"])
				}
			}
			if tc.want == "" && len(levels) != 0 || tc.want != "" && (len(levels) != 1 || levels[0] != tc.want) {
				t.Fatalf("request lines at levels %v, want %q:\n%s", levels, tc.want, info.String())
			}
		})
	}
}
