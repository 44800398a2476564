package gateway

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
	"github.com/riskchart/riskchart/server/internal/firstdata"
)

// limited applies the per-client-IP request rate, so that one page cannot
// spend the venue budget for everyone, and says on every answer where the
// client's budget stands, in the venue's ratelimit-* headers
// (docs/venue.md#served-by-riskchart), so that a client written for the venue
// paces itself here as it would there. A 429 for another budget says that
// budget's wait instead (writeRateLimited).
func (s *server) limited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.perClient == nil { // RISKCHART_CLIENT_RATE=0: no limit, and no budget to describe
			next.ServeHTTP(w, r)
			return
		}
		v := s.charge(r)
		s.perClient.setHeaders(w.Header(), v)
		if !v.ok {
			writeRateLimited(w, r.URL.Path, v.reset, s.now(), "too many requests from this client")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withRenderRate charges a page the front end must render (not one it sends
// as kept, nor a file) to its client's rate, as limited charges a venue
// path: the front end asks when it is about to render (firstdata.Render),
// and answers 429 with Retry-After when the rate is spent.
func (s *server) withRenderRate(next http.Handler) http.Handler {
	if s.perClient == nil { // RISKCHART_CLIENT_RATE=0
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(firstdata.WithRender(r.Context(), func() (bool, time.Duration) {
			v := s.charge(r) // only for a render: a kept page or a file reads no address
			return v.ok, v.reset
		}))
		next.ServeHTTP(w, r)
	})
}

// charge spends a request of r's client's rate, counting a refusal.
func (s *server) charge(r *http.Request) verdict {
	v := s.perClient.allow(s.clientOf(r))
	if !v.ok {
		s.metrics.throttled.WithLabelValues("client").Inc()
	}
	return v
}

// clientOf is the address r counts against: the connection's peer, or
// behind trusted proxies the client they name (docs/deploy.md#behind-a-reverse-proxy),
// an IPv6 client as its /64 (clientaddr.Holder), as connlimit counts it.
// Requests whose peer is no address (in-memory tests) share the zero Addr.
func (s *server) clientOf(r *http.Request) netip.Addr {
	a, _, _ := s.clients.Client(r)
	return clientaddr.Holder(a)
}

// forwarded reports whether r came through a trusted proxy: its client is
// not on this machine, whatever the listener's address.
func (s *server) forwarded(r *http.Request) bool {
	_, fwd, _ := s.clients.Client(r)
	return fwd
}

// ipLimiter holds a token bucket per client IP, in a bounded map: idle
// entries go first, then arbitrary ones (a bucket forgotten starts full,
// which costs at most one burst).
//
// The venue states its limits as requests per window; a bucket reads in
// those words as: limit = the burst, interval = the time to refill a whole
// burst, remaining = the whole tokens left, reset = the time until the
// bucket is full again, or until the next token when none is left (so that
// a client that waits for the reset when nothing remains waits no longer
// than it must).
type ipLimiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time
	max   int
	mu    sync.Mutex
	m     map[netip.Addr]*ipEntry
	swept time.Time

	limitH, intervalH []string // ratelimit-limit and -interval: the same on every answer
}

type ipEntry struct {
	l    *rate.Limiter
	seen time.Time
}

// ipLimiterMax bounds the clients remembered at once.
const ipLimiterMax = 10_000

func newIPLimiter(perSecond rate.Limit, burst int, now func() time.Time) *ipLimiter {
	refill := time.Duration(math.Ceil(float64(burst) / float64(perSecond) * float64(time.Second)))
	return &ipLimiter{rate: perSecond, burst: burst, now: now, max: ipLimiterMax, m: map[netip.Addr]*ipEntry{},
		limitH:    []string{strconv.Itoa(burst)},
		intervalH: []string{strconv.FormatInt(ceilMillis(refill), 10)},
	}
}

// verdict is what one request learns of its client's budget.
type verdict struct {
	ok        bool
	remaining int           // whole requests left
	reset     time.Duration // until the bucket is full, or until the next request when none is left
}

// allow takes one request of ip's rate, if there is one.
func (l *ipLimiter) allow(ip netip.Addr) verdict {
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
	ok := e.l.AllowN(now, 1)
	tokens := max(e.l.TokensAt(now), 0)
	v := verdict{ok: ok, remaining: int(tokens)}
	missing := float64(l.burst) - tokens
	if v.remaining == 0 {
		missing = 1 - tokens
	}
	v.reset = time.Duration(math.Ceil(missing / float64(l.rate) * float64(time.Second)))
	return v
}

// setHeaders writes the ratelimit-* headers of v. The two that change are
// formatted into one string, sliced: two allocations on the hot path, not four.
func (l *ipLimiter) setHeaders(h http.Header, v verdict) {
	h["Ratelimit-Limit"] = l.limitH // the canonical form of the venue's "ratelimit-limit"
	h["Ratelimit-Interval"] = l.intervalH
	var buf [40]byte
	b := strconv.AppendInt(buf[:0], int64(v.remaining), 10)
	n := len(b)
	b = strconv.AppendInt(b, ceilMillis(v.reset), 10)
	both := string(b)
	vals := []string{both[:n], both[n:]}
	h["Ratelimit-Remaining"] = vals[:1:1] // capacity 1: an Add copies rather than overwrites
	h["Ratelimit-Reset"] = vals[1:]
}

// ceilMillis is d in whole milliseconds, rounded up: a client that waits
// that long has waited long enough.
func ceilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
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
