package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// writeError answers with the venue's error envelope for path, under
// status. The venue's paths answer as the venue does
// (docs/decisions.md#gateway-error-statuses): a business error is HTTP 200,
// since a client written for the venue reads the envelope; 429 goes with
// 1032; a 5xx with 1004, for a fault; 405, 413, 415 or 400 with 1030, for a
// request the gateway could not read.
func writeError(w http.ResponseWriter, path string, status, code int, msg string, now time.Time) {
	w.Header().Set("Content-Type", "application/json")
	if w.Header().Get("Cache-Control") == "" { // a private path said "private, no-store" already
		w.Header().Set("Cache-Control", "no-store")
	}
	noteFailed(w)
	w.WriteHeader(status)
	w.Write(venueapi.ErrorBody(path, code, msg, now.UnixMilli()))
}

// unreadable is a request the gateway cannot read as parameters: a method
// the path does not take, a body of another media type, cut short or too
// large. Unlike a rule broken by a parameter, it keeps an HTTP status of its
// own (405, 415, 400, 413), which clients and proxies act on.
type unreadable struct {
	status int
	err    *venueapi.ParamError
}

func (e *unreadable) Error() string { return e.err.Error() }
func (e *unreadable) Unwrap() error { return e.err }

// writeInvalid answers a request that breaks a rule with code 1030, naming
// the parameter: HTTP 200 as the venue answers it, or an unreadable
// request's own status.
func (s *server) writeInvalid(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusOK
	var u *unreadable
	if errors.As(err, &u) {
		status = u.status
	}
	writeError(w, r.URL.Path, status, venueapi.CodeInvalidInput, err.Error(), s.now())
}

// writeRateLimited answers 1032 under 429 with the wait in every header a
// client may read it from: Retry-After in whole seconds, and ratelimit-remaining
// 0 with ratelimit-reset in milliseconds, which a client of the venue waits
// after a 429 (docs/venue.md#rate-limit-headers), whatever budget ran out.
// A wait not known is a second.
func writeRateLimited(w http.ResponseWriter, path string, retry time.Duration, now time.Time, msg string) {
	if retry <= 0 {
		retry = time.Second
	}
	secs := strconv.FormatInt(int64((retry+time.Second-1)/time.Second), 10)
	h := w.Header()
	h.Set("Retry-After", secs)
	h.Set("Ratelimit-Remaining", "0")
	h.Set("Ratelimit-Reset", strconv.FormatInt(ceilMillis(retry), 10))
	writeError(w, path, http.StatusTooManyRequests, venueapi.CodeRateLimited, msg+": retry in "+secs+"s", now)
}

// asked is what a request names that the venue may not list, for a 1013
// answer to name: the parameter and its value (contract_code, or endpoint
// 2's pair).
type asked struct{ param, value string }

// askedCode is a request for one contract code.
func askedCode(code string) asked { return asked{"contract_code", code} }

// unlisted is a 1013 answer's message: which parameter, and what the venue
// does not list.
func (a asked) unlisted() string {
	if a.value == "" {
		return "unknown contract: the venue does not list it"
	}
	return "unknown " + a.param + ": the venue does not list " + a.value
}

// writeVenueError maps what a venue call returned, the venue client's errors
// or a call not made for the client's spent share (fairshare.go), to an
// answer a client of the venue (or a person) can act on, with the venue's
// statuses: its business errors under HTTP 200, its limit under 429, and a
// 5xx only when the venue cannot be reached or fails. Nothing of the server's key, and
// nothing of where the venue lives, is ever in it; the log line with the
// request id has the detail.
func (s *server) writeVenueError(w http.ResponseWriter, r *http.Request, a asked, err error) {
	path, now, log := r.URL.Path, s.now(), s.logFor(r)
	// A call the breaker did not send repeats what the log said when the
	// venue last failed (docs/decisions.md#failure-memory): a flood of them
	// would write a line each, so they go to debug; so does a spent budget,
	// which riskchart_throttled_total counts and the thinned request log
	// already names.
	level, keyLevel := slog.LevelWarn, slog.LevelError
	var open *venue.CircuitOpenError
	if errors.As(err, &open) {
		level, keyLevel = slog.LevelDebug, slog.LevelDebug
	}
	var (
		inv   *venue.InvalidRequestError
		rej   *venue.RejectedError
		au    *venue.AuthError
		rl    *venue.RateLimitedError
		nf    *venue.NotFoundError
		un    *venue.UnavailableError
		spent *shareSpentError // not a venue error: a call not made (fairshare.go)
	)
	switch {
	case errors.As(err, &inv):
		writeError(w, path, http.StatusOK, venueapi.CodeInvalidInput, inv.Error(), now)
	case errors.As(err, &nf):
		writeError(w, path, http.StatusOK, venueapi.CodeNoSuchContract, a.unlisted(), now)
	case errors.As(err, &spent):
		s.metrics.throttled.WithLabelValues("client_share").Inc()
		s.metrics.local.WithLabelValues("share_spent").Inc()
		writeRateLimited(w, path, spent.retryAfter, now, "this client's share of the venue's request budget is spent")
	case errors.As(err, &rl):
		budget := "venue_budget"
		if rl.Venue {
			budget = "venue_refused"
		}
		s.metrics.throttled.WithLabelValues(budget).Inc()
		log.Debug("venue budget spent", "err", err)
		writeRateLimited(w, path, rl.RetryAfter, now, "the venue's request budget is spent")
	case errors.As(err, &au):
		if !s.venue.HasKey() {
			writeError(w, path, http.StatusOK, venueapi.CodeForbidden, "this server has no venue key for private data", now)
			return
		}
		log.Log(r.Context(), keyLevel, "the venue refused the server's key", "code", au.Code, "message", au.Message)
		writeError(w, path, http.StatusOK, venueapi.CodeForbidden,
			"the venue refused this server's key: the operator must check the server's venue access key and secret key", now)
	case errors.As(err, &rej):
		status := http.StatusOK
		if rej.Code == venueapi.CodeBusy {
			status = http.StatusServiceUnavailable
		}
		writeError(w, path, status, rej.Code, "the venue rejected the request: "+rej.Message, now)
	case timedOut(err):
		log.Log(r.Context(), level, "the venue did not answer in time", "err", err)
		writeError(w, path, http.StatusGatewayTimeout, venueapi.CodeBusy, "the venue did not answer in time; try again in a moment", now)
	case errors.As(err, &un):
		log.Log(r.Context(), level, "the venue is unavailable", "err", err)
		what := "could not be reached"
		switch {
		case un.HTTPStatus >= 500:
			what = "answered HTTP " + strconv.Itoa(un.HTTPStatus)
		case un.HTTPStatus != 0:
			what = "sent an answer this server cannot read"
		}
		writeError(w, path, http.StatusBadGateway, venueapi.CodeBusy,
			"the venue "+what+"; try again in a moment (if it lasts, the operator should check the server's venue address)", now)
	case errors.Is(err, context.Canceled):
		// The browser left: nobody reads this answer.
		writeError(w, path, http.StatusGatewayTimeout, venueapi.CodeBusy, "the request was cancelled", now)
	default:
		log.Error("unclassified venue error", "err", err)
		writeError(w, path, http.StatusBadGateway, venueapi.CodeBusy, "the venue call failed; try again in a moment", now)
	}
}

// wrongMethod answers a method a venue path does not take: 405, the methods
// it takes in Allow, and code 1030 naming the method in the path's envelope.
func (s *server) wrongMethod(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		s.writeInvalid(w, r, &unreadable{http.StatusMethodNotAllowed,
			&venueapi.ParamError{Param: "method", Rule: "must be one of " + allow, Value: r.Method}})
	})
}

// timedOut reports whether err is a deadline passing (ours or the transport's).
func timedOut(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// staleable reports whether err is the venue failing or the budget spent,
// when a cached answer is better than none.
func staleable(err error) bool {
	var un *venue.UnavailableError
	var rej *venue.RejectedError
	var rl *venue.RateLimitedError
	return errors.As(err, &un) || (errors.As(err, &rej) && rej.Code == venueapi.CodeBusy) || errors.As(err, &rl) ||
		(errors.Is(err, context.DeadlineExceeded))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the answer failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func (s *server) handleContracts() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Header().Set("Content-Type", "application/json")
		w.Write(s.contracts) // the chart page carries the same answer (firstcontracts.go)
	})
}

// handleEmbedConfig tells embeds which parent origins they may talk to.
func (s *server) handleEmbedConfig() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		origins := s.cfg.FrameAncestors
		if origins == nil {
			origins = []string{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"origins": origins})
	})
}
