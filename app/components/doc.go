// Package components holds Riskchart's go-app components: the K-line chart,
// the period and contract pickers, the risk panel and the tier table,
// limits table, filter and calculator it composes, the embed tool and the
// installed-app status. Each owns its state, takes its data through fields
// and tells its parent through callbacks and ctx actions.
//
// A Render builds its parts (fields, rows, headers, one chip) in methods or
// functions of their own, and loops sit in small functions. V8 tiers a
// WebAssembly function up by the distance of each jump back to its loop,
// and Go's code jumps back to its function's loop at every branch: one call
// of a large Render was enough to start an optimising compile that held a
// core for a tenth of a second or more on a cold start
// (docs/startup.md#what-tiers-gos-code-up). server/cmd/wasmsize's -over
// keeps the app's functions under 12 kB.
package components
