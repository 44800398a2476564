package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

type ctxKey int

// requestKey holds the request's *statusRecorder: its id, and where a
// refusal is noted for the log.
const requestKey ctxKey = iota

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
// a private path, a token or a cookie. Refusals are logged thinned (refusals).
func (s *server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK, id: id}
		start := time.Now() // a measurement: the monotonic clock, not Config.Now
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), requestKey, rec)))
		d := time.Since(start)
		route := routeOf(r.URL.Path)
		s.metrics.requests.WithLabelValues(route, strconv.Itoa(rec.status)).Inc()
		s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
		if reason := rec.refusal; reason != "" || rec.status == http.StatusTooManyRequests {
			if reason == "" {
				reason = refusalRate // the client's rate or the venue's budget, in clientlimit.go and respond.go
			}
			if n, due := s.refused.note(reason, start.Add(d)); due {
				s.log.Log(r.Context(), slog.LevelInfo, "requests refused", "reason", reason, "count", n,
					"id", id, "method", r.Method, "path", r.URL.Path, "status", rec.status)
			}
			return
		}
		cache := lookup(rec.cache.Load())
		level := requestLevel(rec.status, rec.failed, cache)
		if !s.log.Enabled(r.Context(), level) {
			return // the hot path: a cached answer builds no line
		}
		attrs := []any{"id", id, "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration_ms", float64(d.Microseconds()) / 1000}
		if cache != lookupNone {
			attrs = append(attrs, "cache", cache.String())
		}
		s.log.Log(r.Context(), level, "request", attrs...)
	})
}

// logFor returns the logger for what r's handling has to say: with its id,
// so that a warning joins the request's own line.
func (s *server) logFor(r *http.Request) *slog.Logger {
	id := ""
	if rec, ok := r.Context().Value(requestKey).(*statusRecorder); ok {
		id = rec.id
	}
	return s.log.With("id", id)
}

// routeOf names a path for metrics without letting paths grow the label set.
func routeOf(p string) string {
	switch p {
	case venueapi.PathKLine, venueapi.PathTiers, venueapi.PathPositionLimit:
		return venue.EndpointName(p)
	case venueapi.PathStreamKLine:
		return "stream"
	case venueapi.PathContracts, "/healthz", "/readyz", "/metrics", "/login", "/logout":
		return strings.TrimPrefix(p, "/")
	}
	return "app"
}

type statusRecorder struct {
	http.ResponseWriter
	status  int
	id      string
	refusal string       // why the gateway refused the request (refuse), "" if it did not
	cache   atomic.Int32 // the lookup that answered it (noteLookup); set by a shared venue call's goroutine too
	failed  bool         // answered with an error in the venue's envelope, whatever its HTTP status (noteFailed)
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// scriptHash is a Content-Security-Policy hash source, the only kind of
// script source besides 'self' the gateway takes (Config.ScriptSources).
var scriptHash = regexp.MustCompile(`^'sha(256|384|512)-[A-Za-z0-9+/]+={0,2}'$`)

// contentSecurityPolicy allows exactly what the app needs: its own scripts,
// WebAssembly compilation, no inline script but those scriptSources allow
// by hash, framing by the allow-list only.
func contentSecurityPolicy(frameAncestors, scriptSources []string) string {
	ancestors := "'self'"
	if len(frameAncestors) > 0 {
		ancestors += " " + strings.Join(frameAncestors, " ")
	}
	scripts := "'self' 'wasm-unsafe-eval'"
	if len(scriptSources) > 0 {
		scripts += " " + strings.Join(scriptSources, " ")
	}
	return strings.Join([]string{
		"default-src 'self'",
		"script-src " + scripts,
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
