package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// venueLog is a venue that notes when each request arrived, by path, so
// that a test can read what the venue saw: calls per series per interval,
// and the most private calls in any window.
type venueLog struct {
	mu   sync.Mutex
	seen map[string][]time.Time // by path
	size map[string][]time.Time // KLine latest-candle calls, by contract and period
}

func (v *venueLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		v.mu.Lock()
		v.seen[r.URL.Path] = append(v.seen[r.URL.Path], now)
		if q := r.URL.Query(); r.URL.Path == venueapi.PathKLine && q.Has("size") {
			k := q.Get("contract_code") + "|" + q.Get("period")
			v.size[k] = append(v.size[k], now)
		}
		v.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// mostInWindow is the most calls to the private paths within any window of d.
func (v *venueLog) mostInWindow(d time.Duration) int {
	v.mu.Lock()
	at := slices.Concat(v.seen[venueapi.PathTiers], v.seen[venueapi.PathPositionLimit])
	v.mu.Unlock()
	slices.SortFunc(at, time.Time.Compare)
	most := 0
	for i, lo := 0, 0; i < len(at); i++ {
		for at[i].Sub(at[lo]) >= d {
			lo++
		}
		most = max(most, i-lo+1)
	}
	return most
}

// latestCalls counts the latest-candle calls of each series between from and to.
func (v *venueLog) latestCalls(from, to time.Time) map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[string]int{}
	for k, ts := range v.size {
		for _, t := range ts {
			if !t.Before(from) && t.Before(to) {
				out[k]++
			}
		}
	}
	return out
}

// TestThreeReplicasShareOneVenueBudgetAndCarryOnWhenRedisOrAReplicaDies runs
// the deployment docs/deploy.md describes, with real processes: three
// replicas of the built binary behind a (simulated) load balancer, one
// redis-server, one venue. 300 browsers open charts and poll them, and ask
// for tiers and limits. Healthy, the cluster calls the venue at most once
// per series per refresh interval; whatever fails, it never sends more than
// the venue's 72 private calls in any 3 s, and every browser is answered.
func TestThreeReplicasShareOneVenueBudgetAndCarryOnWhenRedisOrAReplicaDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers and Redis")
	}
	const (
		access, secret, viewer = "cluster-access", "cluster-secret-never-shown", "cluster-viewer-token"
		browsers               = 300
		refresh                = time.Second
	)
	redis := redistest.Start(t)
	sb, err := sandbox.New(sandbox.Config{Keys: []sandbox.Key{{Access: access, Secret: secret, Read: true}},
		PublicLimit: venueapi.Limit{Requests: 1 << 20, Per: time.Second}}) // the replicas share one loopback address
	if err != nil {
		t.Fatal(err)
	}
	log := &venueLog{seen: map[string][]time.Time{}, size: map[string][]time.Time{}}
	venueSrv := httptest.NewServer(log.wrap(sb))
	t.Cleanup(venueSrv.Close)

	env := map[string]string{
		"RISKCHART_VENUE_URL": venueSrv.URL, "RISKCHART_ACCESS_KEY": access, "RISKCHART_SECRET_KEY": secret,
		"RISKCHART_REDIS_URL": redis.URL(), "RISKCHART_REPLICAS": "3",
		"RISKCHART_TRUSTED_PROXIES": "127.0.0.1", "RISKCHART_VIEWER_TOKENS": viewer,
		"RISKCHART_REFRESH_INTERVAL": refresh.String(),
	}
	var replicas []*testServer
	for range 3 {
		replicas = append(replicas, startServer(t, env))
	}
	var codes []string
	for _, m := range sb.Markets() {
		if m.Kind == venueapi.KindSwap && len(codes) < 4 {
			codes = append(codes, m.Code)
		}
	}

	// The load balancer: each browser sticks to a replica, and moves to the
	// next one that answers when its own is gone.
	var down [3]atomic.Bool
	client := &http.Client{Timeout: 10 * time.Second}
	ask := func(b int, path string) (int, []byte, error) {
		var lastErr error
		for try := range 3 {
			r := (b + try) % 3
			if down[r].Load() {
				continue
			}
			req, _ := http.NewRequest(http.MethodGet, replicas[r].URL+path, nil)
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.%d.%d", b/200, b%200))
			req.Header.Set("Authorization", "Bearer "+viewer)
			res, err := client.Do(req)
			if err != nil {
				lastErr = err
				continue
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, body, err
		}
		return 0, nil, fmt.Errorf("no replica answered: %v", lastErr)
	}

	var (
		asked, failed atomic.Int64
		failures      sync.Map // a few examples
	)
	phase := func(name string, d time.Duration) {
		t.Logf("%s: %s", name, d)
		stop := time.Now().Add(d)
		var wg sync.WaitGroup
		for b := range browsers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code := codes[b%len(codes)]
				paths := []string{
					venueapi.PathKLine + "?contract_code=" + code + "&period=1min&size=2",
					venueapi.PathTiers + "?contract_code=" + code,
					venueapi.PathPositionLimit + "?contract_code=" + code,
				}
				time.Sleep(time.Duration(b) * refresh / browsers) // browsers poll out of step
				for i := 0; time.Now().Before(stop); i++ {
					p := paths[0]
					if i%2 == 1 {
						p = paths[1+(i/2)%2]
					}
					asked.Add(1)
					status, body, err := ask(b, p)
					if err == nil && status == http.StatusOK && !strings.Contains(string(body), `"status":"error"`) && !strings.Contains(string(body), `"code":403`) {
						time.Sleep(refresh)
						continue
					}
					failed.Add(1)
					failures.LoadOrStore(fmt.Sprintf("%s HTTP %d %v", strings.SplitN(p, "?", 2)[0], status, err), string(body))
					time.Sleep(refresh)
				}
			}()
		}
		wg.Wait()
	}

	// Every browser opens its chart: the history, fetched once for the cluster.
	for b := range browsers {
		if status, body, err := ask(b, venueapi.PathKLine+"?contract_code="+codes[b%len(codes)]+"&period=1min&size=300"); err != nil || status != 200 {
			t.Fatalf("browser %d opening its chart: HTTP %d %v %.200s", b, status, err, body)
		}
	}

	healthyFrom := time.Now()
	phase("healthy", 6*refresh)
	healthyTo := time.Now()
	for series, n := range log.latestCalls(healthyFrom, healthyTo) {
		// One call per interval; one more where an interval straddles an end.
		if limit := int(healthyTo.Sub(healthyFrom)/refresh) + 2; n > limit {
			t.Errorf("healthy: the venue got %d latest-candle calls for %s in %s, at most %d (one per %s)", n, series, healthyTo.Sub(healthyFrom).Round(time.Millisecond), limit, refresh)
		}
	}

	redis.Kill()
	phase("Redis down", 5*refresh)
	if !strings.Contains(getBody(t, replicas[1].URL+"/healthz"), "degraded") {
		t.Errorf("with Redis down, /healthz does not say degraded")
	}

	replicas[0].Kill()
	down[0].Store(true)
	phase("Redis and one replica down", 3*refresh)

	if n := log.mostInWindow(3 * time.Second); n > venueapi.PrivateLimit().Requests {
		t.Errorf("the venue got %d private calls within 3 s, more than its %d", n, venueapi.PrivateLimit().Requests)
	}
	t.Logf("%d browser requests, %d not answered; venue: %d KLine, %d tiers, %d position_limit calls; at most %d private calls in any 3 s",
		asked.Load(), failed.Load(), len(log.seen[venueapi.PathKLine]), len(log.seen[venueapi.PathTiers]), len(log.seen[venueapi.PathPositionLimit]), log.mostInWindow(3*time.Second))
	if failed.Load() > 0 {
		failures.Range(func(k, v any) bool { t.Errorf("not answered: %s: %.200s", k, v); return true })
	}
}

func getBody(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var v map[string]any
	if json.Unmarshal(b, &v) != nil {
		t.Fatalf("GET %s: not JSON: %.200s", u, b)
	}
	return string(b)
}
