// Package components holds Riskchart's go-app components: the K-line chart,
// the period and contract pickers, the risk panel and the tier table,
// limits table, filter and calculator it composes, the embed tool and the
// installed-app status. Each owns its state, takes its data through fields
// and tells its parent through callbacks and ctx actions.
package components
