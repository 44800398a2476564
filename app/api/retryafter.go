package api

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// statusServiceUnavailable is the other status whose Retry-After the client
// reads: a server shutting down, or a proxy in front of it, may say when to
// come back (docs/decisions.md#gateway-error-statuses).
const statusServiceUnavailable = 503

// maxRetryAfter bounds the wait a Retry-After may ask for: a header from a
// misconfigured proxy does not stop a page for hours.
const maxRetryAfter = 10 * time.Minute

// RetryAfter is how long the server asked the client to wait before asking
// again, from the Retry-After of its 429 or 503 answer that failed err; 0
// when it named no wait.
func RetryAfter(err error) time.Duration {
	if e, ok := errors.AsType[*AnswerError](err); ok {
		return e.RetryAfter
	}
	return 0
}

// withRetryAfter sets, on err, the wait the Retry-After header (read by
// header, which may be nil) of a 429 or 503 answer asks for, read at now.
func withRetryAfter(err error, status int, header func(string) string, now time.Time) error {
	if header == nil || status != statusTooManyRequests && status != statusServiceUnavailable {
		return err
	}
	if e, ok := errors.AsType[*AnswerError](err); ok {
		e.RetryAfter, _ = ParseRetryAfter(header("Retry-After"), now)
	}
	return err
}

// ParseRetryAfter reads a Retry-After header at now: whole seconds, or an
// HTTP date in the form senders write (RFC 9110 §5.6.7, IMF-fixdate), as a
// wait bounded by maxRetryAfter; a date past is no wait. ok is false when v
// is empty or neither; the two obsolete date forms are not read, and the
// backoff alone then decides.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseUint(v, 10, 64); err == nil {
		return time.Duration(min(s, uint64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if t, ok := parseHTTPDate(v); ok {
		return min(max(t.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// parseHTTPDate reads an IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT", by
// hand: time.Parse would link Go's whole layout parser into app.wasm.
func parseHTTPDate(v string) (time.Time, bool) {
	const months = "JanFebMarAprMayJunJulAugSepOctNovDec"
	if len(v) != len("Sun, 06 Nov 1994 08:49:37 GMT") || v[3:5] != ", " || v[7] != ' ' || v[11] != ' ' ||
		v[16] != ' ' || v[19] != ':' || v[22] != ':' || v[25:] != " GMT" {
		return time.Time{}, false
	}
	num := func(s string) int {
		n := 0
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	day, year, hour, minute, second := num(v[5:7]), num(v[12:16]), num(v[17:19]), num(v[20:22]), num(v[23:25])
	m := strings.Index(months, v[8:11])
	if m < 0 || m%3 != 0 || day < 1 || year < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(m/3+1), day, hour, minute, second, 0, time.UTC)
	if t.Day() != day { // 30 Feb and the like
		return time.Time{}, false
	}
	return t, true
}
