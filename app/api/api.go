// Package api is the front end's typed client of the Riskchart server: the
// KLine, tier, position-limit, contract and embed paths, decoded exactly,
// with the server's refusals and silences as errors a page can tell apart.
package api

import (
	"errors"
	"fmt"
	"time"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/embedscope"
	"github.com/riskchart/riskchart/venueapi"
)

// ErrUnknownContract is the venue saying it does not list a contract.
var ErrUnknownContract = errors.New("the venue does not list this contract")

// ErrNoAccess is the server refusing private data: it has no venue key, or
// this viewer has no token, or this embed no valid link.
var ErrNoAccess = errors.New("no access to private data on this server")

// accessError is a refusal with the server's own words; it is ErrNoAccess.
type accessError struct{ reason string }

func (e *accessError) Error() string        { return ErrNoAccess.Error() + ": " + e.reason }
func (e *accessError) Is(target error) bool { return target == ErrNoAccess }

// Unanswered reports whether err is a request that got no answer at all:
// the browser is offline or the server is down.
func Unanswered(err error) bool {
	_, ok := errors.AsType[*browser.NetworkError](err)
	return ok
}

// The HTTP methods and statuses the client names, written out: importing
// net/http would link crypto/tls and HTTP/2 into app.wasm
// (docs/startup.md#what-appwasm-links).
const (
	methodGet, methodPost = "GET", "POST"

	statusUnauthorized    = 401
	statusForbidden       = 403
	statusTooManyRequests = 429
)

// refusal says whether an answer refuses private data. The server answers a
// refusal as the venue does, HTTP 200 with code 403 in the envelope (no
// viewer token, no valid embed link, no venue key, or a key the venue turned
// down), so the envelope decides; a 401 or 403 from a proxy in front of it
// is a refusal too.
func refusal(status, code int, msg string) error {
	if status == statusUnauthorized || status == statusForbidden || code == venueapi.CodeForbidden {
		if msg == "" {
			msg = fmt.Sprintf("HTTP %d", status)
		}
		return &accessError{msg}
	}
	return nil
}

// envelopeError is what an answer to doing, given with its HTTP status,
// failed by: nil when its envelope is readable and ok; the unknown contract
// when the envelope says so; else the envelope's message and code.
func envelopeError(doing string, status int, readable, ok bool, code int, msg string) error {
	switch {
	case !readable:
		return &AnswerError{Doing: doing, Status: status, Unreadable: true}
	case ok:
		return nil
	case code == venueapi.CodeNoSuchContract:
		return fmt.Errorf("%s: %w", doing, ErrUnknownContract)
	}
	return &AnswerError{Doing: doing, Status: status, Code: code, Msg: msg}
}

// AnswerError is an answer that is not the data asked for: unreadable, or
// an error envelope with its code and message. Words turns it into what a
// trader reads.
type AnswerError struct {
	Doing      string // what was being done
	Status     int    // the HTTP status
	Unreadable bool   // the body is no envelope of ours
	Code       int    // the envelope's code
	Msg        string // the envelope's message
	// RetryAfter is the wait the server's Retry-After asked for, on a 429
	// or 503 answer; 0 when it named none (RetryAfter).
	RetryAfter time.Duration
}

func (e *AnswerError) Error() string {
	if e.Unreadable {
		return fmt.Sprintf("%s: the server answered HTTP %d with something unreadable", e.Doing, e.Status)
	}
	return fmt.Sprintf("%s: %s (code %d)", e.Doing, e.Msg, e.Code)
}

// Headers is what a panel sends with its private calls: an embedded panel
// sends its signed embed link, by which alone the server judges it.
func Headers(embedded bool, token string) map[string]string {
	if !embedded {
		return nil
	}
	return map[string]string{venueapi.EmbedHeader: token}
}

// Withheld is the refusal the server would answer an embedded panel's call
// for panel of contract when its link (token) surely does not grant it, so
// that the panel asks nothing it would be refused; nil outside an embed, or
// when the link may grant it and the server decides. A link's scope is
// signed and cannot change (app/embedscope).
func Withheld(embedded bool, token, panel, contract string) error {
	if !embedded || !embedscope.Withholds(token, panel, contract) {
		return nil
	}
	return &accessError{reason: "this embed's link does not grant the " + panel + " of " + contract}
}
