package venue

import (
	"fmt"
	"time"
)

// The errors below are what a caller tells apart with errors.As. Their
// messages are fit to show a person: they never hold the secret, the
// signature or the signed query string.

// InvalidRequestError is a request that breaks a rule of the interface. It
// was caught before anything was sent; Err is a *venueapi.ParamError.
type InvalidRequestError struct{ Err error }

// Error names the parameter and the rule it breaks.
func (e *InvalidRequestError) Error() string { return e.Err.Error() }

// Unwrap returns the *venueapi.ParamError.
func (e *InvalidRequestError) Unwrap() error { return e.Err }

// RejectedError is the venue refusing a request for a business reason (its
// code and message, from either envelope), e.g. 1030 invalid input.
type RejectedError struct {
	Code       int
	Message    string
	HTTPStatus int
}

// Error gives the venue's message and code.
func (e *RejectedError) Error() string {
	return fmt.Sprintf("the venue rejected the request: %s (code %d)", e.Message, e.Code)
}

// AuthError is a refused key or signature (codes 403 and 1253), or a signed
// call made without a key, which sends nothing. Err is a *CircuitOpenError
// when the venue refused the key just before and the call was not sent;
// Code and Message are then what the venue said.
type AuthError struct {
	Code    int
	Message string
	Err     error
}

// Error gives the venue's message and code.
func (e *AuthError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("the venue refused the server's key: %s (code %d)", e.Message, e.Code)
}

// Unwrap returns the *CircuitOpenError of a call not sent, or nil.
func (e *AuthError) Unwrap() error { return e.Err }

// RateLimitedError is a call over a quota: ours (Venue false: nothing was
// sent, the turn would come after the context's deadline) or the venue's
// (Venue true: code 1032 or HTTP 429). RetryAfter says when to try again.
type RateLimitedError struct {
	RetryAfter time.Duration
	Venue      bool
}

// Error says whose quota and when to retry, in whole milliseconds: a wait
// under one reads 1ms, not 0s.
func (e *RateLimitedError) Error() string {
	who := "the client's quota"
	if e.Venue {
		who = "the venue's rate limit"
	}
	after := e.RetryAfter.Round(time.Millisecond)
	if after == 0 && e.RetryAfter > 0 {
		after = time.Millisecond
	}
	return fmt.Sprintf("over %s: retry in %s", who, after)
}

// NotFoundError is a well-formed contract the venue does not list (1013).
type NotFoundError struct {
	Code    int
	Message string
}

// Error gives the venue's message and code.
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

// Error says what failed, never where to (the URL holds the signature).
func (e *UnavailableError) Error() string {
	if e.HTTPStatus != 0 {
		return fmt.Sprintf("venue unavailable (%s, HTTP %d): %v", e.Op, e.HTTPStatus, e.Err)
	}
	return fmt.Sprintf("venue unavailable (%s): %v", e.Op, e.Err)
}

// Unwrap returns the cause, e.g. context.DeadlineExceeded.
func (e *UnavailableError) Unwrap() error { return e.Err }
