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
// headers tell where the window stands. A window is forgotten once it has
// ended, a few at each take, so memory follows the clients of the last
// interval and a take costs the same however many there were before.
type limiter struct {
	limit venueapi.Limit
	mu    sync.Mutex
	used  map[string]*usage
	order []*usage // every window held, in the order it began: the oldest ends first
}

type usage struct {
	client string
	start  time.Time // the window began with the client's first request in it
	n      int
}

// verdict is what one request learns from the limiter.
type verdict struct {
	ok        bool
	remaining int
	reset     time.Duration // until the window ends
}

func newLimiter(l venueapi.Limit) *limiter { return &limiter{limit: l, used: map[string]*usage{}} }

// take counts one request of client at now.
func (l *limiter) take(client string, now time.Time) verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forget(now)
	u := l.used[client]
	if u == nil || l.ended(u, now) || now.Before(u.start) {
		u = &usage{client: client, start: now}
		l.used[client] = u
		l.order = append(l.order, u)
	}
	u.n++
	return verdict{ok: u.n <= l.limit.Requests, remaining: max(l.limit.Requests-u.n, 0), reset: u.start.Add(l.limit.Per).Sub(now)}
}

// forget drops the windows that have ended, oldest first, and stops at the
// first still open: each window is dropped once, so a take costs O(1)
// amortised. A window that a clock set back replaced is in order but no
// longer in used, and only leaves order.
func (l *limiter) forget(now time.Time) {
	i := 0
	for ; i < len(l.order) && l.ended(l.order[i], now); i++ {
		if u := l.order[i]; l.used[u.client] == u {
			delete(l.used, u.client)
		}
		l.order[i] = nil // collected now, not when append next moves the array
	}
	l.order = l.order[i:]
}

// ended reports whether u's window is over at now.
func (l *limiter) ended(u *usage, now time.Time) bool { return now.Sub(u.start) >= l.limit.Per }

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
