package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// countingVenue is the sandbox behind a loopback server that counts the
// connections open to it, and can hold the KLine calls for one contract.
type countingVenue struct {
	URL   string
	Key   sandbox.Key
	open  atomic.Int64
	asked chan struct{} // closed when the first held call arrived
	letGo func()        // lets the held calls, and those to come, through
}

// keyedSandbox is a sandbox venue that takes one new key, and that key.
func keyedSandbox(t *testing.T) (sandbox.Key, *sandbox.Sandbox) {
	t.Helper()
	key, err := sandbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Keys: []sandbox.Key{key}})
	if err != nil {
		t.Fatal(err)
	}
	return key, sb
}

func startCountingVenue(t *testing.T, hold string) *countingVenue {
	t.Helper()
	key, sb := keyedSandbox(t)
	release := make(chan struct{})
	v := &countingVenue{Key: key, asked: make(chan struct{}), letGo: sync.OnceFunc(func() { close(release) })}
	asked := sync.OnceFunc(func() { close(v.asked) })
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold != "" && r.URL.Path == venueapi.PathKLine && r.URL.Query().Get("contract_code") == hold {
			asked()
			<-release
		}
		sb.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			v.open.Add(1)
		case http.StateClosed, http.StateHijacked:
			v.open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(v.letGo) // before the venue closes: Close waits for its handlers
	v.URL = srv.URL
	return v
}

// env is the settings that point a server at the venue, with its key.
func (v *countingVenue) env() map[string]string {
	return map[string]string{"RISKCHART_VENUE_URL": v.URL, "RISKCHART_ACCESS_KEY": v.Key.Access, "RISKCHART_SECRET_KEY": v.Key.Secret}
}

// Once run has returned, the server holds no connection to the venue: an
// embedder (or a test) that runs it again, or goes on without it, keeps no
// kept-alive connection, with its two goroutines, for the transport's idle
// timeout (90 s).
func TestRunReturnsWithNoConnectionToTheVenueOpen(t *testing.T) {
	v := startCountingVenue(t, "")
	s := startServer(t, v.env())
	for _, p := range []string{venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5", venueapi.PathTiers + "?contract_code=BTC-USDT", "/readyz"} {
		s.do(t, http.MethodGet, p, nil)
	}
	if v.open.Load() == 0 {
		t.Fatal("the server opened no connection to the venue")
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for v.open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := v.open.Load(); n > 0 {
		t.Errorf("%d connections to the venue still open 2 s after run returned\nlog:\n%s", n, s.Log.String())
	}
}

// A replica that stops leaves the budgets' count of present replicas then,
// not once its presence runs out: a replica restarted in its place at once
// must not be warned of more replicas than RISKCHART_REPLICAS (and spend its
// one warning on it), while one beside a replica still running is.
func TestARestartedReplicaIsNotCountedBesideItsOldSelf(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stopFirst bool
		warned    bool
	}{
		{"restarted at once", true, false},
		{"beside one still running", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := redistest.Start(t)
			env := map[string]string{"RISKCHART_REDIS_URL": redis.URL(), "RISKCHART_REPLICAS": "1"}
			kline := func(code string) string {
				return venueapi.PathKLine + "?contract_code=" + code + "&period=1min&size=5"
			}
			first := startServer(t, env)
			// run starts the budgets' heartbeats and does not wait for the
			// first: the first replica is present once it has reached Redis,
			// and only then is there a presence for the second to be counted
			// beside, or for the first to end as it stops.
			waitPresent(t, redis.URL(), 1)
			first.do(t, http.MethodGet, kline("BTC-USDT"), nil)
			if tc.stopFirst {
				if err := first.Stop(); err != nil {
					t.Fatalf("run: %v", err)
				}
			}
			second := startServer(t, env)
			// A series the first did not ask for: a venue call, and a turn.
			second.do(t, http.MethodGet, kline("ETH-USDT"), nil)
			const crowded = "more replicas present than RISKCHART_REPLICAS"
			got := strings.Contains(second.Log.String(), crowded)
			if got != tc.warned {
				t.Errorf("the second replica warned %q: %v, want %v\nits log:\n%s", crowded, got, tc.warned, second.Log.String())
			}
		})
	}
}

// waitPresent waits until n replicas are present in the public budget of
// the default egress, in the Redis at url.
func waitPresent(t *testing.T, url string, n int64) {
	t.Helper()
	opt, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(opt)
	defer c.Close()
	const key = "riskchart:budget:{public-default}:present" // the cluster package's
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := c.ZCard(context.Background(), key).Result()
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d replicas present in Redis 10 s after the first started, want %d: %v", got, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
