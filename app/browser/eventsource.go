package browser

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// EventSource is the browser's EventSource: a stream of Server-Sent Events
// from the server, which the browser reconnects by itself, telling the
// server the id of the last event it got (Last-Event-ID).
type EventSource struct {
	v     app.Value
	funcs []app.Func
	off   app.Value // stops the errors told through our app.js; nil: none
}

// EventHandlers are told what an EventSource receives. Each runs on the
// browser's event loop: hand work to the app with ctx.Dispatch.
type EventHandlers struct {
	Open    func()                       // the server answered: events may follow
	Message func(id, data string)        // an event without a name
	Named   map[string]func(data string) // events by name ("event: state")
	// Error is told of a failure: closed when the browser gave up (the
	// server refused the stream), else the browser is reconnecting.
	Error func(closed bool)
	// Shown, with Error, is told that the page came back from the
	// browser's back-forward cache: its stream was closed while the page
	// was kept there, and another is to be opened. Without it, Error is
	// told of a stream the browser gave up on.
	Shown func()
}

// EventSourceSupported reports whether the browser has EventSource.
func EventSourceSupported() bool {
	return app.IsClient && app.Window().Get("EventSource").Truthy()
}

// OpenEventSource opens a stream of url; nil where the browser has no
// EventSource. Close it when done.
func OpenEventSource(url string, h EventHandlers) *EventSource {
	if !EventSourceSupported() {
		return nil
	}
	s := &EventSource{v: app.Window().Get("EventSource").New(url)}
	// kept is a function of Go's for the browser to call with an event, a
	// state or nothing (undefined); Close releases it.
	kept := func(f func(arg app.Value)) app.Func {
		fn := app.FuncOf(func(_ app.Value, args []app.Value) any {
			arg := app.Undefined()
			if len(args) > 0 {
				arg = args[0]
			}
			f(arg)
			return nil
		})
		s.funcs = append(s.funcs, fn)
		return fn
	}
	listen := func(name string, f func(e app.Value)) {
		s.v.Call("addEventListener", name, kept(f))
	}
	if h.Open != nil {
		listen("open", func(app.Value) { h.Open() })
	}
	if h.Message != nil {
		listen("message", func(e app.Value) { h.Message(e.Get("lastEventId").String(), e.Get("data").String()) })
	}
	for name, f := range h.Named {
		listen(name, func(e app.Value) { f(e.Get("data").String()) })
	}
	if h.Error != nil {
		closed := app.Window().Get("EventSource").Get("CLOSED").Int()
		// Our app.js tells of an error a task later, so that the error of a
		// stream cut as the page is left does not run Error while the next
		// page commits. It also closes the stream of a page put in the
		// back-forward cache, and tells Shown when the page is shown again.
		// go-app's own has no such helper.
		if app.Window().Get("riskchartWatchStream").Truthy() {
			shown := h.Shown
			if shown == nil {
				shown = func() { h.Error(true) }
			}
			s.off = app.Window().Call("riskchartWatchStream", s.v,
				kept(func(state app.Value) { h.Error(state.Int() == closed) }), kept(func(app.Value) { shown() }))
		} else {
			listen("error", func(app.Value) { h.Error(s.v.Get("readyState").Int() == closed) })
		}
	}
	return s
}

// Close ends the stream; its handlers are told nothing more.
func (s *EventSource) Close() {
	if s == nil || s.v == nil {
		return
	}
	s.v.Call("close")
	if s.off != nil {
		s.off.Invoke() // before its function is released: an error told later would call it
	}
	for _, f := range s.funcs {
		f.Release()
	}
	s.funcs, s.v, s.off = nil, nil, nil
}
