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
	type result struct {
		a   Answer
		err error
	}
	done := make(chan result, 1)
	var onText, onResponse, onError app.Func
	release := func() { onText.Release(); onResponse.Release(); onError.Release() }
	var res app.Value
	onText = app.FuncOf(func(_ app.Value, args []app.Value) any {
		headers := res.Get("headers")
		done <- result{a: Answer{Status: res.Get("status").Int(), Body: args[0].String(),
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
		msg := "network error"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		done <- result{err: errors.New(msg)}
		return nil
	})
	onResponse = app.FuncOf(func(_ app.Value, args []app.Value) any {
		res = args[0]
		res.Call("text").Call("then", onText).Call("catch", onError)
		return nil
	})
	app.Window().Call("fetch", url, init).Call("then", onResponse).Call("catch", onError)
	select {
	case r := <-done:
		release()
		if r.err != nil {
			return Answer{}, &NetworkError{r.err}
		}
		return r.a, nil
	case <-ctx.Done():
		abort.Call("abort")
		<-done // the promise settles (rejected) once aborted
		release()
		return Answer{}, ctx.Err()
	}
}

// NetworkError is a request that got no answer at all: the browser is
// offline or the server is down.
type NetworkError struct{ err error }

// Error says that the server did not answer, and what the browser said.
func (e *NetworkError) Error() string { return "no answer from the server (" + e.err.Error() + ")" }

// Unwrap returns the browser's own error.
func (e *NetworkError) Unwrap() error { return e.err }
