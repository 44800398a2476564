package sandbox

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"

	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// routes is the whole surface of the sandbox: the venue's three paths, each
// behind its rate limit and its faults, the private two behind signatures.
// Other paths are 404 and other methods 405, by the mux.
func (s *Sandbox) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET "+venueapi.PathKLine, s.public(venueapi.PathKLine, s.serveKLine))
	mux.Handle("GET "+venueapi.PathTiers, s.private(venueapi.PathTiers, s.serveTiers))
	// Endpoint 2 is declared a POST; its sample is a GET (docs/decisions.md,
	// Position-limit payload).
	mux.Handle("POST "+venueapi.PathPositionLimit, s.private(venueapi.PathPositionLimit, s.serveLimits))
	mux.Handle("GET "+venueapi.PathPositionLimit, s.private(venueapi.PathPositionLimit, s.serveLimits))
	return mux
}

// public guards endpoint 3: 800 requests a second per client IP.
func (s *Sandbox) public(path string, serve http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := s.publicLimit.take("ip:"+clientIP(r), s.now()); !v.ok {
			s.tooMany(w, path, v)
			return
		}
		if s.injectFault(w, r, path) {
			return
		}
		serve(w, r)
	})
}

// private guards endpoints 1 and 2: counted on arrival against the access
// key (or the IP, see privateClient), the ratelimit-* headers on every
// answer, then the signature. serve gets the query's business parameters,
// the signature's taken out.
func (s *Sandbox) private(path string, serve func(http.ResponseWriter, *http.Request, url.Values)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, parseErr := venueapi.ParseQuery(r.URL.RawQuery) // names the pair and the rule it breaks
		now := s.now()
		v := s.privateLimit.take(s.privateClient(r, params), now)
		s.privateLimit.setHeaders(w.Header(), v)
		if !v.ok {
			s.tooMany(w, path, v)
			return
		}
		if s.injectFault(w, r, path) {
			return
		}
		if err := s.authenticate(r, params, parseErr, now); err != nil {
			s.log.Info("refused a signed request", "path", path, "access_key", logged(params.Get(sign.ParamAccessKeyID)), "code", err.code, "why", err.msg)
			s.writeError(w, path, http.StatusOK, err.code, err.msg)
			return
		}
		for _, p := range signatureParams {
			delete(params, p)
		}
		serve(w, r, params)
	})
}

// logged is what the log keeps of a value a client chose: a query may be
// a megabyte long, a log line should not be.
func logged(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// tooMany answers 429 with code 1032.
func (s *Sandbox) tooMany(w http.ResponseWriter, path string, v verdict) {
	w.Header().Set("Retry-After", v.retryAfter())
	s.writeError(w, path, http.StatusTooManyRequests, venueapi.CodeRateLimited, "request rate over the limit")
}

// clientIP is the remote address's host: the sandbox sits behind no proxy.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// writeError answers the venue's error body for path: the code envelope of
// endpoint 1, the status envelope of 2 and 3 (docs/decisions.md, Error bodies).
func (s *Sandbox) writeError(w http.ResponseWriter, path string, status, code int, msg string) {
	s.log.Debug("answered an error", "path", path, "status", status, "code", code, "msg", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(venueapi.ErrorBody(path, code, msg, s.now().UnixMilli()))
}

// writeParamError answers a broken rule: 1013 for a well-formed contract
// code or pair that is not listed, else 1030 naming the parameter and the rule.
func (s *Sandbox) writeParamError(w http.ResponseWriter, path string, err error) {
	code := venueapi.CodeInvalidInput
	if errors.As(err, new(errNotListed)) {
		code = venueapi.CodeNoSuchContract
	}
	s.writeError(w, path, http.StatusOK, code, err.Error())
}

// writeJSON answers v, a success envelope of path.
func (s *Sandbox) writeJSON(w http.ResponseWriter, path string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encoding an answer", "path", path, "err", err)
		s.writeError(w, path, http.StatusInternalServerError, venueapi.CodeBusy, "venue busy")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
