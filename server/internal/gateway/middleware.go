package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

type ctxKey int

const requestIDKey ctxKey = iota

// saneRequestID reports whether an X-Request-Id may be kept: 1 to 64 of
// letters, digits, '.', '_' and '-', so that it cannot forge a log field.
func saneRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// logged gives every request an id (a sane X-Request-Id, or a new one) and
// logs it with its outcome: method, path, status, duration. Never the query of
// a private path, a token or a cookie.
func (s *server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		start := time.Now() // a measurement: the monotonic clock, not Config.Now
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
		d := time.Since(start)
		route := routeOf(r.URL.Path)
		s.metrics.requests.WithLabelValues(route, strconv.Itoa(rec.status)).Inc()
		s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
		level := slog.LevelDebug
		if rec.status >= 500 {
			level = slog.LevelWarn
		} else if route != "app" {
			level = slog.LevelInfo
		}
		s.log.Log(r.Context(), level, "request", "id", id, "method", r.Method, "path", r.URL.Path,
			"status", rec.status, "duration_ms", float64(d.Microseconds())/1000)
	})
}

// logFor returns the logger for what r's handling has to say: with its id,
// so that a warning joins the request's own line.
func (s *server) logFor(r *http.Request) *slog.Logger {
	id, _ := r.Context().Value(requestIDKey).(string)
	return s.log.With("id", id)
}

// routeOf names a path for metrics without letting paths grow the label set.
func routeOf(p string) string {
	switch p {
	case venueapi.PathKLine:
		return "kline"
	case venueapi.PathTiers:
		return "tiers"
	case venueapi.PathPositionLimit:
		return "position_limit"
	case "/api/v1/contracts", "/healthz", "/readyz", "/metrics", "/login":
		return strings.TrimPrefix(p, "/")
	}
	return "app"
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// contentSecurityPolicy allows exactly what the app needs: its own scripts,
// WebAssembly compilation, no inline script, framing by the allow-list only.
func contentSecurityPolicy(frameAncestors []string) string {
	ancestors := "'self'"
	if len(frameAncestors) > 0 {
		ancestors += " " + strings.Join(frameAncestors, " ")
	}
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self' 'wasm-unsafe-eval'",
		"style-src 'self' 'unsafe-inline'", // ECharts and go-app set element styles
		"img-src 'self' data: blob:",
		"connect-src 'self'",
		"worker-src 'self'",
		"manifest-src 'self'",
		"object-src 'none'",
		"base-uri 'self'",
		"form-action 'self'",
		"frame-ancestors " + ancestors,
	}, "; ")
}

// headers are header values built once, set on answers by assigning the
// slice rather than by Header.Set, which allocates one per call on the hot
// path. Nothing appends to them: an Add would copy (their capacity is 1).
type headers struct {
	csp, nosniff, referrer, opener []string
	json, vary, gzip, stale        []string
	live, immutable, noStore       []string // Cache-Control
}

func newHeaders(csp string, refresh time.Duration) headers {
	one := func(v string) []string { return []string{v} }
	return headers{
		csp: one(csp), nosniff: one("nosniff"), referrer: one("strict-origin-when-cross-origin"), opener: one("same-origin"),
		json: one("application/json"), vary: one("Accept-Encoding"), gzip: one("gzip"), stale: one("true"),
		// An answer holding the open candle may be kept for one refresh interval.
		live:      one("public, max-age=" + strconv.Itoa(max(1, int(refresh/time.Second)))),
		immutable: one("public, max-age=31536000, immutable"),
		noStore:   one("no-store"),
	}
}

// secured sets the security headers on every answer.
func (s *server) secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Security-Policy"] = s.headers.csp
		h["X-Content-Type-Options"] = s.headers.nosniff
		h["Referrer-Policy"] = s.headers.referrer
		h["Cross-Origin-Opener-Policy"] = s.headers.opener
		next.ServeHTTP(w, r)
	})
}

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

// private guards the signed paths: open to loopback listeners, otherwise a
// viewer token (bearer header or the login cookie) is required. A request
// from an embed (it carries the embed header) is judged by its signed embed
// link instead, in the handler, once the contract is known.
func (s *server) private(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "private, no-store")
		if _, embed := r.Header[venueapi.EmbedHeader]; embed {
			next.ServeHTTP(w, r)
			return
		}
		if s.cfg.Public && !s.viewer(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="riskchart"`)
			writeError(w, r.URL.Path, http.StatusUnauthorized, venueapi.CodeForbidden,
				"private data needs a viewer token: sign in at /login or send Authorization: Bearer <token>", s.now())
			return
		}
		next.ServeHTTP(w, r)
	})
}

const viewerCookie = "riskchart_viewer"

// viewer reports whether r carries a configured viewer token (bearer header)
// or the login cookie of one, comparing in constant time.
func (s *server) viewer(r *http.Request) bool {
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return s.validToken(auth)
	}
	if c, err := r.Cookie(viewerCookie); err == nil {
		return s.validCookie(c.Value)
	}
	return false
}

func (s *server) validToken(token string) bool {
	if token == "" {
		return false
	}
	ok := 0
	for _, t := range s.cfg.ViewerTokens {
		ok |= subtle.ConstantTimeCompare([]byte(t), []byte(token))
	}
	return ok == 1
}

// cookieOf is the login cookie's value for a token: a MAC keyed by the token,
// so that the token itself is never in an answer or a browser's storage, the
// cookie outlives restarts, and removing the token revokes its cookie.
func cookieOf(token venue.Secret) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("riskchart viewer cookie v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *server) validCookie(value string) bool {
	if value == "" {
		return false
	}
	ok := 0
	for _, t := range s.cfg.ViewerTokens {
		ok |= subtle.ConstantTimeCompare([]byte(cookieOf(t)), []byte(value))
	}
	return ok == 1
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

// embedDenied reports, and answers, an embed call its link does not cover.
func (s *server) embedDenied(w http.ResponseWriter, r *http.Request, panel, contract string) bool {
	if _, embed := r.Header[venueapi.EmbedHeader]; !embed {
		return false
	}
	token := r.Header.Get(venueapi.EmbedHeader)
	if s.cfg.EmbedLinks != nil && token != "" {
		if scope, err := s.cfg.EmbedLinks.Check(token); err == nil && scope.Allows(panel, contract, s.now()) {
			return false
		}
	}
	writeError(w, r.URL.Path, http.StatusForbidden, venueapi.CodeForbidden,
		"this embed has no valid link for the "+panel+" of "+contract+" (missing, expired, tampered or out of scope)", s.now())
	return true
}
