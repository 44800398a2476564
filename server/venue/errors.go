package venue

import (
	"fmt"
	"time"
)

// InvalidRequestError is a request that breaks a rule of the interface. It
// was caught before anything was sent; Err is a *venueapi.ParamError.
type InvalidRequestError struct{ Err error }

func (e *InvalidRequestError) Error() string { return e.Err.Error() }
func (e *InvalidRequestError) Unwrap() error { return e.Err }

// RejectedError is the venue refusing a request for a business reason (its
// code and message, from either envelope).
type RejectedError struct {
	Code       int
	Message    string
	HTTPStatus int
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("the venue rejected the request: %s (code %d)", e.Message, e.Code)
}

// AuthError is a refused signature or key (codes 403 and 1253), or a signed
// call made without a key.
type AuthError struct {
	Code    int
	Message string
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("the venue refused the server's key: %s (code %d)", e.Message, e.Code)
}

// RateLimitedError is a call that would exceed a quota: ours (Venue false,
// nothing was sent) or the venue's (code 1032, HTTP 429).
type RateLimitedError struct {
	RetryAfter time.Duration
	Venue      bool
}

func (e *RateLimitedError) Error() string {
	who := "the client's quota"
	if e.Venue {
		who = "the venue's rate limit"
	}
	return fmt.Sprintf("over %s: retry in %s", who, e.RetryAfter.Round(time.Millisecond))
}

// NotFoundError is a well-formed contract the venue does not list (1013).
type NotFoundError struct {
	Code    int
	Message string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no such contract: %s (code %d)", e.Message, e.Code)
}

// UnavailableError is the venue failing: a 5xx, a timeout, a broken
// connection, or a body that is not its envelope.
type UnavailableError struct {
	Op         string // what was being done, e.g. "GET /sapi/v1/market/history/kline"
	HTTPStatus int    // 0 when no answer came
	Err        error
}

func (e *UnavailableError) Error() string {
	if e.HTTPStatus != 0 {
		return fmt.Sprintf("venue unavailable (%s, HTTP %d): %v", e.Op, e.HTTPStatus, e.Err)
	}
	return fmt.Sprintf("venue unavailable (%s): %v", e.Op, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }
