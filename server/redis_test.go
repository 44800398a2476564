package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/venueapi"
)

func TestWithRedisTheServerSharesItsBudgetsAndSaysSoOnHealthz(t *testing.T) {
	redis := redistest.Start(t)
	s := startServer(t, map[string]string{"RISKCHART_REDIS_URL": redis.URL(), "RISKCHART_REPLICAS": "3",
		"RISKCHART_EGRESS": "nat-a", "RISKCHART_SANDBOX_KEYS": "lead-access-key:lead-secret"})
	get := func(path string) string {
		t.Helper()
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d %.200s", path, res.StatusCode, b)
		}
		return string(b)
	}
	var health map[string]string
	if err := json.Unmarshal([]byte(get("/healthz")), &health); err != nil || health["status"] != "ok" || health["redis"] != "ok" {
		t.Fatalf("/healthz %v %v, want ok with Redis ok", health, err)
	}
	get(venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5")
	get(venueapi.PathTiers + "?contract_code=BTC-USDT")
	metrics := get("/metrics")
	// The private budget is named for a hash of the access key, never the key.
	// The first KLine call waits out the hold of a log new to Redis (longer
	// than the refresh interval: docs/architecture.md, "Shared state
	// (Redis)"), so its answer is old on arrival and fetched again.
	for _, want := range []string{`riskchart_shared_budget_degraded\{budget="public-nat-a"\} 0`, `riskchart_shared_budget_degraded\{budget="private-[0-9a-f]{16}"\} 0`,
		`riskchart_shared_budget_turns_total\{budget="public-nat-a",from="shared",result="granted"\} [1-9]`,
		`riskchart_shared_cache_total\{cache="kline_latest",how="fetched"\} [1-9]`, `riskchart_redis_errors_total\{kind="error"\} 0`} {
		if !regexp.MustCompile(want).MatchString(metrics) {
			t.Errorf("/metrics has no line matching %s", want)
		}
	}
	if regexp.MustCompile(`lead-access-key`).MatchString(metrics) {
		t.Errorf("/metrics names the access key")
	}
}

// go-redis's own messages are logged at debug, so they show at
// RISKCHART_LOG_LEVEL debug and not above. Nothing listens at the Redis URL:
// go-redis logs the failed dial before the shared budget warns of it.
func TestGoRedisMessagesAreLoggedAtTheConfiguredLevel(t *testing.T) {
	closed := "redis://" + freeAddr(t) + "/0"
	for _, tt := range []struct {
		level string
		want  bool // a line of go-redis's
	}{
		{"debug", true},
		{"info", false},
	} {
		t.Run(tt.level, func(t *testing.T) {
			s := startServer(t, map[string]string{"RISKCHART_REDIS_URL": closed, "RISKCHART_LOG_LEVEL": tt.level})
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(s.Log.String(), "shared budget degraded") {
				if time.Now().After(deadline) {
					t.Fatalf("no warning of Redis out of reach within 10 s:\n%s", s.Log.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if got := strings.Contains(s.Log.String(), `"component":"redis"`); got != tt.want {
				t.Errorf("a line of go-redis's: %v, want %v; the log:\n%s", got, tt.want, s.Log.String())
			}
		})
	}
}

// A Redis that refuses the replica's password is told apart from one out of
// reach, on /healthz and in the log, naming the setting to mend and never
// the password; one out of reach is said to be so.
func TestARedisThatRefusesThePasswordIsNamedAsSuch(t *testing.T) {
	locked := redistest.Start(t, "--requirepass", "the-right-one")
	closed := "redis://" + freeAddr(t) + "/0"
	for _, tc := range []struct {
		name, url, want, not string
	}{
		{"a wrong password", "redis://:a-wrong-one@" + locked.Addr() + "/0", "refused this replica's login", "out of reach"},
		{"no password", "redis://" + locked.Addr() + "/0", "refused this replica's login", "out of reach"},
		{"nothing listening", closed, "out of reach", "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, map[string]string{"RISKCHART_REDIS_URL": tc.url})
			var health map[string]string
			deadline := time.Now().Add(10 * time.Second)
			for health["status"] != "degraded" {
				if time.Now().After(deadline) {
					t.Fatalf("/healthz %v 10 s after start, want degraded", health)
				}
				time.Sleep(20 * time.Millisecond)
				res, err := http.Get(s.URL + "/healthz")
				if err != nil {
					t.Fatal(err)
				}
				health = nil
				json.NewDecoder(res.Body).Decode(&health)
				res.Body.Close()
			}
			if !strings.Contains(health["redis"], tc.want) || strings.Contains(health["redis"], tc.not) {
				t.Errorf("/healthz says %q, want it to say %q and not %q", health["redis"], tc.want, tc.not)
			}
			if tc.want != "out of reach" && !strings.Contains(health["redis"], "RISKCHART_REDIS_URL") {
				t.Errorf("/healthz says %q, want it to name RISKCHART_REDIS_URL", health["redis"])
			}
			if log := s.Log.String(); !strings.Contains(log, tc.want) || strings.Contains(log, "a-wrong-one") {
				t.Errorf("the log says nothing of %q, or shows the password:\n%.3000s", tc.want, log)
			}
		})
	}
}
