package browser

import (
	"context"
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Answer is what the browser's fetch returned.
type Answer struct {
	Status int
	Header func(string) string // a response header; "" when absent
	Body   string
}

// Fetch calls the browser's fetch (not Go's net/http, which would link
// an HTTP stack into app.wasm that the browser already has), and waits for
// the whole body or ctx's end, which aborts the request.
func Fetch(ctx context.Context, method, url, jsonBody string, header map[string]string) (Answer, error) {
	if !app.IsClient {
		return Answer{}, errors.New("fetching " + url + ": only the browser fetches")
	}
	abort := app.Window().Get("AbortController").New()
	init := map[string]any{"method": method, "signal": abort.Get("signal"), "credentials": "same-origin"}
	headers := map[string]any{}
	for k, v := range header {
		headers[k] = v
	}
	if jsonBody != "" {
		init["body"] = jsonBody
		headers["Content-Type"] = "application/json"
	}
	init["headers"] = headers
	done := make(chan settlement, 1)
	var onText, onResponse, onError app.Func
	release := func() { onText.Release(); onResponse.Release(); onError.Release() }
	var res app.Value
	onText = app.FuncOf(func(_ app.Value, args []app.Value) any {
		headers := res.Get("headers")
		done <- settlement{a: Answer{Status: res.Get("status").Int(), Body: args[0].String(),
			Header: func(k string) string {
				v := headers.Call("get", k)
				if v.IsNull() {
					return ""
				}
				return v.String()
			}}}
		return nil
	})
	onError = app.FuncOf(func(_ app.Value, args []app.Value) any {
		done <- settlement{err: rejection(args)}
		return nil
	})
	onResponse = app.FuncOf(func(_ app.Value, args []app.Value) any {
		res = args[0]
		res.Call("text").Call("then", onText).Call("catch", onError)
		return nil
	})
	app.Window().Call("fetch", url, init).Call("then", onResponse).Call("catch", onError)
	return settled(ctx, done, release, func() { abort.Call("abort") })
}

// settlement is how a promise of an answer settled.
type settlement struct {
	a   Answer
	err error
}

// settled waits for done, where a promise's handlers send how it settled,
// or for ctx's end, which calls cancel (nil: none can be made). release
// frees the handlers once the promise has settled, in its own time after
// ctx's end. A rejection is a NetworkError.
func settled(ctx context.Context, done <-chan settlement, release, cancel func()) (Answer, error) {
	select {
	case r := <-done:
		release()
		if r.err != nil {
			return Answer{}, &NetworkError{r.err}
		}
		return r.a, nil
	case <-ctx.Done():
		if cancel != nil {
			cancel() // an aborted fetch settles, rejected, at once
		}
		go func() { <-done; release() }()
		return Answer{}, ctx.Err()
	}
}

// rejection is the error a promise was rejected with, from its handler's
// arguments.
func rejection(args []app.Value) error {
	msg := "network error"
	if len(args) > 0 && args[0].Truthy() {
		msg = args[0].Call("toString").String()
	}
	return errors.New(msg)
}

// NetworkError is a request that got no answer at all: the browser is
// offline or the server is down.
type NetworkError struct{ err error }

// Error says that the server did not answer, and what the browser said.
func (e *NetworkError) Error() string { return "no answer from the server (" + e.err.Error() + ")" }

// Unwrap returns the browser's own error.
func (e *NetworkError) Unwrap() error { return e.err }
