package ui

import (
	"context"
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// httpAnswer is what the browser's fetch returned.
type httpAnswer struct {
	status int
	header func(string) string
	body   string
}

// fetchText calls the browser's fetch (not Go's net/http, which would link
// an HTTP stack into app.wasm that the browser already has), and waits for
// the whole body or ctx's end, which aborts the request.
func fetchText(ctx context.Context, method, url, jsonBody string, header map[string]string) (httpAnswer, error) {
	if !app.IsClient {
		return httpAnswer{}, errors.New("fetching " + url + ": only the browser fetches")
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
		a   httpAnswer
		err error
	}
	done := make(chan result, 1)
	var onText, onResponse, onError app.Func
	release := func() { onText.Release(); onResponse.Release(); onError.Release() }
	var res app.Value
	onText = app.FuncOf(func(_ app.Value, args []app.Value) any {
		headers := res.Get("headers")
		done <- result{a: httpAnswer{status: res.Get("status").Int(), body: args[0].String(),
			header: func(k string) string {
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
			return httpAnswer{}, &networkError{r.err}
		}
		return r.a, nil
	case <-ctx.Done():
		abort.Call("abort")
		<-done // the promise settles (rejected) once aborted
		release()
		return httpAnswer{}, ctx.Err()
	}
}

// networkError is a request that got no answer at all: the browser is
// offline or the server is down.
type networkError struct{ err error }

func (e *networkError) Error() string { return "no answer from the server (" + e.err.Error() + ")" }
func (e *networkError) Unwrap() error { return e.err }
