package sandbox

import (
	"net/http"
	"net/url"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// signed verifies a private request's signature (DECISIONS.md, Signing),
// counts it against its key's quota, and sets the ratelimit-* headers.
// Each failure has its own message.
func (s *Sandbox) signed(path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: the query string is malformed")
			return
		}
		for _, p := range []string{venueapi.ParamAccessKeyID, venueapi.ParamSignatureMethod, venueapi.ParamSignatureVersion, venueapi.ParamTimestamp, venueapi.ParamSignature} {
			switch len(params[p]) {
			case 0:
				s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: missing parameter "+p)
				return
			case 1:
			default:
				s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: parameter "+p+" is given more than once")
				return
			}
		}
		access := params.Get(venueapi.ParamAccessKeyID)
		now := s.now()
		// Counted on arrival, valid or not (DECISIONS.md, Limits).
		ok, remaining, reset := s.private.take("key:"+access, now)
		s.private.headers(w.Header(), remaining, reset)
		if !ok {
			w.Header().Set("Retry-After", "1")
			s.writeError(w, path, http.StatusTooManyRequests, venueapi.CodeRateLimited, "request rate over the limit")
			return
		}
		key, known := s.keys[access]
		switch {
		case !known || key.Disabled:
			s.writeError(w, path, http.StatusOK, venueapi.CodeForbidden, "unknown or disabled access key")
			return
		case !key.Read:
			s.writeError(w, path, http.StatusOK, venueapi.CodeForbidden, "the access key has no read permission")
			return
		}
		if params.Get(venueapi.ParamSignatureMethod) != venueapi.SignatureMethod || params.Get(venueapi.ParamSignatureVersion) != venueapi.SignatureVersion {
			s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: SignatureMethod must be HmacSHA256 and SignatureVersion 2")
			return
		}
		ts, err := time.Parse(venueapi.TimestampLayout, params.Get(venueapi.ParamTimestamp))
		if err != nil {
			s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: Timestamp must be YYYY-MM-DDThh:mm:ss in UTC")
			return
		}
		if d := now.Sub(ts); d > venueapi.TimestampWindow || d < -venueapi.TimestampWindow {
			s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: timestamp outside the 5-minute window")
			return
		}
		canonical := venueapi.Canonical(r.Method, venueapi.CanonicalHost("http", r.Host), r.URL.Path, params)
		if !venueapi.Verify([]byte(key.Secret), canonical, params.Get(venueapi.ParamSignature)) {
			s.writeError(w, path, http.StatusOK, venueapi.CodeBadSignature, "signature verification failed: the signature does not match")
			return
		}
		next.ServeHTTP(w, r)
	})
}
