package sandbox

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// windows counts requests per key (an access key, or a client IP) in fixed
// windows, as the venue does: a request counts when it arrives, whether it
// succeeds or not, and the ratelimit-* headers tell where the window stands.
type windows struct {
	limit Limit
	mu    sync.Mutex
	w     map[string]*window
}

type window struct {
	start time.Time
	used  int
}

func newWindows(l Limit) *windows { return &windows{limit: l, w: map[string]*window{}} }

// take counts one request of key at now and reports whether it is within the
// limit, with what is left and the time until the window resets.
func (ws *windows) take(key string, now time.Time) (ok bool, remaining int, reset time.Duration) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if len(ws.w) > 10_000 { // forget windows long over, so the map stays bounded
		for k, w := range ws.w {
			if now.Sub(w.start) >= ws.limit.Per {
				delete(ws.w, k)
			}
		}
	}
	w := ws.w[key]
	if w == nil || now.Sub(w.start) >= ws.limit.Per {
		w = &window{start: now}
		ws.w[key] = w
	}
	w.used++
	reset = w.start.Add(ws.limit.Per).Sub(now)
	return w.used <= ws.limit.Requests, max(ws.limit.Requests-w.used, 0), reset
}

func (ws *windows) headers(h http.Header, remaining int, reset time.Duration) {
	h.Set("ratelimit-limit", strconv.Itoa(ws.limit.Requests))
	h.Set("ratelimit-interval", strconv.FormatInt(ws.limit.Per.Milliseconds(), 10))
	h.Set("ratelimit-remaining", strconv.Itoa(remaining))
	h.Set("ratelimit-reset", strconv.FormatInt(reset.Milliseconds(), 10))
}

// guard limits next by the key keyOf derives from the request, answering
// 429 with code 1032 when over.
func (ws *windows) guard(now func() time.Time, keyOf func(*http.Request) string, path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, _, reset := ws.take(keyOf(r), now())
		if !ok {
			w.Header().Set("Retry-After", strconv.FormatInt(int64((reset+time.Second-1)/time.Second), 10))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(venueapi.ErrorBody(path, venueapi.CodeRateLimited, "request rate over the limit", now().UnixMilli()))
			return
		}
		next.ServeHTTP(w, r)
	})
}
