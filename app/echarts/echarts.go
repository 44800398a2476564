// Package echarts wraps the Apache ECharts instance behind a Go type, so that
// the rest of the UI never touches JavaScript values. Options cross the bridge
// as JSON text: go-app's ValueOf cannot convert Go slices or structs.
package echarts

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Chart is one ECharts instance drawn in a DOM element.
type Chart struct {
	v    app.Value
	json app.Value
}

// Init draws a new chart in el with the named theme ("" or "dark"). It
// returns nil when ECharts is not loaded (the page's script failed).
func Init(el app.Value, theme string) *Chart {
	ec := app.Window().Get("echarts")
	if !ec.Truthy() || !el.Truthy() {
		return nil
	}
	var th any
	if theme != "" {
		th = theme
	}
	return &Chart{v: ec.Call("init", el, th), json: app.Window().Get("JSON")}
}

// SetOption merges (or, with notMerge, replaces) the option given as JSON.
func (c *Chart) SetOption(optionJSON []byte, notMerge bool) {
	c.v.Call("setOption", c.json.Call("parse", string(optionJSON)), map[string]any{"notMerge": notMerge, "lazyUpdate": false})
}

// Resize fits the chart to its element's current size.
func (c *Chart) Resize() { c.v.Call("resize") }

// Dispose frees the chart; c must not be used afterwards.
func (c *Chart) Dispose() { c.v.Call("dispose") }
