package sandbox

import (
	"net/http"
	"net/url"
	"time"

	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// signatureParams are the query parameters of a signed request.
var signatureParams = [...]string{sign.ParamAccessKeyID, sign.ParamSignatureMethod, sign.ParamSignatureVersion, sign.ParamTimestamp, sign.ParamSignature}

// authError is why a signed request is refused: 403 or 1253, and a message
// that says which check failed and never repeats a secret or a signature.
type authError struct {
	code int
	msg  string
}

func badSignature(why string) *authError {
	return &authError{code: venueapi.CodeBadSignature, msg: "signature verification failed: " + why}
}

// authenticate checks a signed request as docs/decisions.md, Signing says, in
// this order: every signature parameter present once; a known, enabled key
// with read permission (403); method and version; a Timestamp of exactly
// YYYY-MM-DDThh:mm:ss within 5 minutes of now; the signature over the
// canonical string rebuilt from the request as received, compared in
// constant time.
func (s *Sandbox) authenticate(r *http.Request, params url.Values, parseErr error, now time.Time) *authError {
	if parseErr != nil {
		return badSignature("the query string cannot be read: " + parseErr.Error())
	}
	for _, p := range signatureParams {
		switch vs := params[p]; {
		case len(vs) == 0 || vs[0] == "":
			return badSignature("missing parameter " + p)
		case len(vs) > 1:
			return badSignature("parameter " + p + " is given more than once")
		}
	}
	key, known := s.keys[params.Get(sign.ParamAccessKeyID)]
	switch {
	case !known || key.Disabled:
		return &authError{code: venueapi.CodeForbidden, msg: "unknown or disabled access key"}
	case !key.Read:
		return &authError{code: venueapi.CodeForbidden, msg: "the access key has no read permission"}
	}
	if params.Get(sign.ParamSignatureMethod) != sign.SignatureMethod {
		return badSignature("SignatureMethod must be " + sign.SignatureMethod)
	}
	if params.Get(sign.ParamSignatureVersion) != sign.SignatureVersion {
		return badSignature("SignatureVersion must be " + sign.SignatureVersion)
	}
	ts, err := sign.ParseTimestamp(params.Get(sign.ParamTimestamp))
	if err != nil {
		return badSignature(err.Error())
	}
	if d := now.Sub(ts); d > sign.TimestampWindow || d < -sign.TimestampWindow {
		return badSignature("timestamp outside the 5-minute window")
	}
	canonical := sign.Canonical(r.Method, sign.CanonicalHost("http", r.Host), r.URL.Path, params)
	if !sign.Verify([]byte(key.Secret), canonical, params.Get(sign.ParamSignature)) {
		return badSignature("the signature does not match the request")
	}
	return nil
}

// privateClient is who a private request counts against: the access key it
// names when the sandbox has that key, else its IP, so that unsigned floods
// and made-up keys count too (docs/decisions.md, "Request counting"), and the
// limiter holds a window per configured key and per IP, never one per string
// a client sends.
func (s *Sandbox) privateClient(r *http.Request, params url.Values) string {
	if ak := params[sign.ParamAccessKeyID]; len(ak) == 1 {
		if _, known := s.keys[ak[0]]; known {
			return "key:" + ak[0]
		}
	}
	return "ip:" + clientIP(r)
}
