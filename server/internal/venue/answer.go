package venue

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// status is what an answer says of its outcome, in either envelope: code and
// message (endpoint 1), or status, err_code and err_msg (endpoints 2 and 3).
type status struct {
	Code    *venueapi.WireInt `json:"code"`
	Message string            `json:"message"`
	Status  *string           `json:"status"`
	ErrCode venueapi.WireInt  `json:"err_code"`
	ErrMsg  string            `json:"err_msg"`
}

// envelope reports whether the answer is one of the venue's envelopes.
func (s status) envelope() bool { return s.Code != nil || s.Status != nil }

// outcome is the venue's code and message: CodeOK for a success.
func (s status) outcome() (code int, msg string) {
	switch {
	case s.Code != nil && int(*s.Code) != venueapi.CodeOK:
		return int(*s.Code), s.Message
	case s.Status != nil && *s.Status != venueapi.StatusOK:
		return int(s.ErrCode), s.ErrMsg
	}
	return venueapi.CodeOK, ""
}

// answer is an answer of any endpoint: its status in either envelope, and
// the records of a success.
type answer[T any] struct {
	status
	Ch   string           `json:"ch"`
	Ts   venueapi.WireInt `json:"ts"`
	Data []T              `json:"data"`
}

// errNoData is a success envelope without its required data.
var errNoData = errors.New("the answer has no data")

// decodeAnswer decodes raw with encoding/json. When it fails (a record is
// broken, say), the status is still read, so that an error envelope is
// reported as what it says.
func decodeAnswer[T any](raw []byte) (answer[T], error) {
	var a answer[T]
	if err := json.Unmarshal(raw, &a); err != nil {
		var st status
		if json.Unmarshal(raw, &st) == nil {
			a.status = st
		}
		return a, err
	}
	return a, nil
}

// decodeKLine decodes a KLine answer in one pass when venueapi.FastKLine
// can (the common shape; it agrees with encoding/json), else as
// decodeAnswer does.
func decodeKLine(raw []byte) (answer[venueapi.Candle], error) {
	if a, ok := venueapi.FastKLine(raw); ok {
		st := status{Code: a.Code, Message: a.Message, Status: a.Status, ErrCode: a.ErrCode, ErrMsg: a.ErrMsg}
		return answer[venueapi.Candle]{status: st, Ch: a.Ch, Ts: a.Ts, Data: a.Data}, nil
	}
	return decodeAnswer[venueapi.Candle](raw)
}

// decodeWithData is decodeAnswer for an endpoint whose success always
// carries data: one without it is broken.
func decodeWithData[T any](raw []byte) (answer[T], error) {
	a, err := decodeAnswer[T](raw)
	if err == nil && a.Data == nil {
		err = errNoData
	}
	return a, err
}

// classify turns one exchange (HTTP status, headers, what the body said and
// whether its records decoded) into the error a caller can tell apart; nil
// for a success. The venue answers business errors with HTTP 200, so both
// the status and the body count (docs/decisions.md, HTTP status of errors).
func classify(op string, httpStatus int, h http.Header, st status, decodeErr error) error {
	if !st.envelope() {
		switch {
		case httpStatus == http.StatusTooManyRequests:
			return &RateLimitedError{RetryAfter: retryAfterOf(h), Venue: true}
		case httpStatus != http.StatusOK:
			return &UnavailableError{Op: op, HTTPStatus: httpStatus, Err: errors.New("the answer is an HTTP error, not the venue's envelope")}
		}
		return &UnavailableError{Op: op, HTTPStatus: httpStatus, Err: errors.New("the answer is not the venue's envelope")}
	}
	code, msg := st.outcome()
	switch {
	case code == venueapi.CodeOK && httpStatus == http.StatusOK:
		if decodeErr != nil {
			return &UnavailableError{Op: op, HTTPStatus: httpStatus, Err: &brokenAnswerError{decodeErr}}
		}
		return nil
	case code == venueapi.CodeRateLimited || httpStatus == http.StatusTooManyRequests:
		return &RateLimitedError{RetryAfter: retryAfterOf(h), Venue: true}
	case httpStatus >= 500:
		return &UnavailableError{Op: op, HTTPStatus: httpStatus, Err: fmt.Errorf("%s (code %d)", msg, code)}
	case code == venueapi.CodeForbidden || code == venueapi.CodeBadSignature:
		return &AuthError{Code: code, Message: msg}
	case code == venueapi.CodeNoSuchContract:
		return &NotFoundError{Code: code, Message: msg}
	case code == venueapi.CodeOK:
		return &UnavailableError{Op: op, HTTPStatus: httpStatus, Err: errors.New("a success envelope with an HTTP error status")}
	}
	return &RejectedError{Code: code, Message: msg, HTTPStatus: httpStatus}
}

// maxRetryAfter bounds what the venue may ask us to wait: a longer value is
// more likely a broken header than a plan.
const maxRetryAfter = time.Hour

// brokenAnswerError is a success envelope whose records are broken: asking
// again would get the same answer, so it is not retried.
type brokenAnswerError struct{ err error }

func (e *brokenAnswerError) Error() string { return "decoding the answer: " + e.err.Error() }
func (e *brokenAnswerError) Unwrap() error { return e.err }

// retryAfterOf reads when to retry: ratelimit-reset (ms), else Retry-After
// (seconds or an HTTP date), else one second.
func retryAfterOf(h http.Header) time.Duration {
	if d, ok := resetOf(h); ok {
		return d
	}
	if d, ok := retryAfterHeader(h); ok {
		return d
	}
	return time.Second
}

// retryAfterHeader reads Retry-After (seconds or an HTTP date), bounded by
// maxRetryAfter; ok is false when it is missing or unreadable. A busy venue's
// 503 may carry it as a 429 does, and no retry goes before it
// (docs/decisions.md#retries).
func retryAfterHeader(h http.Header) (time.Duration, bool) {
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(t), 0), maxRetryAfter), true
	}
	return 0, false
}

// spentFor reports how long the venue says nothing more will be accepted:
// ratelimit-remaining 0 until ratelimit-reset. ok is false otherwise.
func spentFor(h http.Header) (d time.Duration, ok bool) {
	if h.Get("ratelimit-remaining") != "0" {
		return 0, false
	}
	if d, ok := resetOf(h); ok && d > 0 {
		return d, true
	}
	return 0, false
}

// resetOf reads ratelimit-reset, the milliseconds until the venue's window
// resets, bounded by maxRetryAfter. ok is false when it is missing or not a
// whole number of at least 0.
func resetOf(h http.Header) (d time.Duration, ok bool) {
	ms, err := strconv.ParseInt(h.Get("ratelimit-reset"), 10, 64)
	if err != nil || ms < 0 {
		return 0, false
	}
	return time.Duration(min(ms, maxRetryAfter.Milliseconds())) * time.Millisecond, true
}
