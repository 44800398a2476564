package sandbox

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// limiter counts requests per client (an access key, or an IP) in fixed
// windows, as the venue does: a request counts when it arrives, whether it
// succeeds or not (docs/decisions.md, Request counting), and the ratelimit-*
// headers tell where the window stands.
type limiter struct {
	limit venueapi.Limit
	mu    sync.Mutex
	used  map[string]*usage
}

type usage struct {
	start time.Time // the window began with the client's first request in it
	n     int
}

// verdict is what one request learns from the limiter.
type verdict struct {
	ok        bool
	remaining int
	reset     time.Duration // until the window ends
}

// forgetAbove bounds the clients remembered: past it, windows long over are dropped.
const forgetAbove = 10_000

func newLimiter(l venueapi.Limit) *limiter { return &limiter{limit: l, used: map[string]*usage{}} }

// take counts one request of client at now.
func (l *limiter) take(client string, now time.Time) verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.used) > forgetAbove {
		for k, u := range l.used {
			if now.Sub(u.start) >= l.limit.Per {
				delete(l.used, k)
			}
		}
	}
	u := l.used[client]
	if u == nil || now.Sub(u.start) >= l.limit.Per || now.Before(u.start) {
		u = &usage{start: now}
		l.used[client] = u
	}
	u.n++
	return verdict{ok: u.n <= l.limit.Requests, remaining: max(l.limit.Requests-u.n, 0), reset: u.start.Add(l.limit.Per).Sub(now)}
}

// setHeaders writes the ratelimit-* headers of docs/decisions.md, Rate-limit
// headers.
func (l *limiter) setHeaders(h http.Header, v verdict) {
	h.Set("ratelimit-limit", strconv.Itoa(l.limit.Requests))
	h.Set("ratelimit-interval", strconv.FormatInt(l.limit.Per.Milliseconds(), 10))
	h.Set("ratelimit-remaining", strconv.Itoa(v.remaining))
	h.Set("ratelimit-reset", strconv.FormatInt(v.reset.Milliseconds(), 10))
}

// retryAfter is the Retry-After header of a 429: whole seconds, at least one.
func (v verdict) retryAfter() string {
	return strconv.FormatInt(max(int64((v.reset+time.Second-1)/time.Second), 1), 10)
}
