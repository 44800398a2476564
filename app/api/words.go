package api

import (
	"context"
	"errors"

	"github.com/riskchart/riskchart/venueapi"
)

// Words is what a page says of err, in a trader's words: the one place
// that maps the client's errors to messages. The technical text
// (err.Error()) is for the browser's console alone (Logged).
func Words(err error) string {
	switch {
	case err == nil:
		return ""
	case Unanswered(err):
		return "No connection to the server. The page tries again when the connection is back."
	case errors.Is(err, context.DeadlineExceeded):
		return "The server took too long to answer. Try again shortly."
	case errors.Is(err, ErrUnknownContract):
		return "The venue does not list this contract."
	case errors.Is(err, ErrNoAccess):
		return "No access: this server shows this data only with a viewer token or a signed embed link."
	}
	if param, ok := errors.AsType[*venueapi.ParamError](err); ok {
		return "This request is not one the venue takes: " + param.Error() + "."
	}
	if answer, ok := errors.AsType[*AnswerError](err); ok {
		return answerWords(answer)
	}
	return "Something went wrong. Try again shortly."
}

func answerWords(e *AnswerError) string {
	switch {
	case e.Code == venueapi.CodeRateLimited || e.Status == statusTooManyRequests:
		return "Too many requests from here. Wait a few seconds."
	case e.Code == venueapi.CodeBusy || e.Status >= 500 && !e.Unreadable:
		return "The venue did not answer. Try again shortly."
	case e.Unreadable && e.Status >= 500:
		return "The server is not answering. Try again shortly."
	case e.Unreadable:
		return "The server's answer could not be read. Try again shortly."
	case e.Code == venueapi.CodeInvalidInput && e.Msg != "":
		return "The venue refused the request: " + e.Msg + "."
	}
	return "The venue refused the request. Try again shortly."
}
