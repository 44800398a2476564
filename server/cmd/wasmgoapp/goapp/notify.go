//go:build ignore

// riskchart's build of app.wasm: server/cmd/wasmgoapp adds this file to
// pkg/app of its copy of go-app, without its first line, the build
// constraint that keeps it out of this module's builds.

package app

// notifyChildren tells the children of v of the component event, with the
// context as it came to v: each child sets its own (nodeManager.context)
// before it reads it, as go-app's NotifyComponentEvent did for v. A loop of
// its own, so that NotifyComponentEvent, run for every node of the page at
// the first navigation inside Go's first run, stays small: V8 charges a
// function's tier-up budget by its size at each of Go's jumps, and compiled
// it again with its optimising compiler beside that run (docs/startup.md,
// "What V8 compiles beside Go's first run").
//
//go:noinline
func (m nodeManager) notifyChildren(ctx Context, v HTML, event any) {
	for _, child := range v.body() {
		m.NotifyComponentEvent(ctx, child, event)
	}
}
