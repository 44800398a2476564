package gateway

import (
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limited applies the per-client-IP request rate, so that one page cannot
// spend the venue budget for everyone.
func (s *server) limited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, retry := s.perIP.allow(clientIP(r)); !ok {
			s.metrics.throttled.WithLabelValues("client").Inc()
			writeRateLimited(w, r.URL.Path, retry, s.now(), "too many requests from this client")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ipLimiter holds a token bucket per client IP, in a bounded map: idle
// entries go first, then arbitrary ones (a bucket forgotten starts full,
// which costs at most one burst).
type ipLimiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time
	max   int
	mu    sync.Mutex
	m     map[string]*ipEntry
	swept time.Time
}

type ipEntry struct {
	l    *rate.Limiter
	seen time.Time
}

// ipLimiterMax bounds the clients remembered at once.
const ipLimiterMax = 10_000

func newIPLimiter(perSecond float64, burst int, now func() time.Time) *ipLimiter {
	return &ipLimiter{rate: rate.Limit(perSecond), burst: burst, now: now, max: ipLimiterMax, m: map[string]*ipEntry{}}
}

// allow takes one request of ip's rate, or says when to retry.
func (l *ipLimiter) allow(ip string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[ip]
	if e == nil {
		if len(l.m) >= l.max {
			l.evict(now)
		}
		e = &ipEntry{l: rate.NewLimiter(l.rate, l.burst)}
		l.m[ip] = e
	}
	e.seen = now
	if e.l.AllowN(now, 1) {
		return true, 0
	}
	return false, time.Duration(math.Ceil(float64(time.Second) / float64(l.rate)))
}

// evict makes room for a tenth of the bound: idle clients first (at most a
// sweep a second, so that a full map of active ones is not swept per request).
func (l *ipLimiter) evict(now time.Time) {
	if now.Sub(l.swept) >= time.Second {
		l.swept = now
		for k, e := range l.m {
			if now.Sub(e.seen) > time.Minute {
				delete(l.m, k)
			}
		}
	}
	for k := range l.m {
		if len(l.m) < l.max*9/10 {
			break
		}
		delete(l.m, k)
	}
}
