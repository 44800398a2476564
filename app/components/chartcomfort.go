package components

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// comfortButtons are the chart's fullscreen and snapshot buttons; always
// there, prerendered too, so that the chart's box does not move when the
// app takes over the first paint.
func (k *KLineChart) comfortButtons() app.UI {
	return app.Span().Class("chart-comfort").Body(
		app.Button().ID("chart-fullscreen").Class("button").Title("Show the chart on the whole screen (Esc leaves)").Text("Fullscreen").
			OnClick(func(ctx app.Context, e app.Event) {
				// The chart's section, legend and marks with it; the browser's Esc leaves.
				if box := app.Window().Get("document").Call("querySelector", ".kchart"); box.Truthy() && box.Get("requestFullscreen").Truthy() {
					box.Call("requestFullscreen")
				}
			}),
		app.Button().ID("chart-snapshot").Class("button").Title("Save the chart as a PNG image").Text("PNG").
			OnClick(func(ctx app.Context, e app.Event) { k.snapshot() }),
	)
}

// snapshot downloads the chart as a PNG named after the contract, period and time.
func (k *KLineChart) snapshot() {
	if k.chart == nil || len(k.candles) == 0 {
		return
	}
	doc := app.Window().Get("document")
	a := doc.Call("createElement", "a")
	a.Set("href", k.chart.DataURL(chartopt.Background(k.Dark)))
	a.Set("download", strings.Join([]string{"riskchart", k.Contract, string(k.Period), time.Now().UTC().Format("20060102-150405")}, "-")+".png")
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
}

// towardsHorizon goes on after Home: shows the oldest candles loaded and
// loads the chunk before them, until the venue has none older (about two
// years back); any other key or a reload stops it.
func (k *KLineChart) towardsHorizon(ctx app.Context) {
	if !k.toHorizon || k.horizon || k.chart == nil {
		k.toHorizon = false
		return
	}
	start, end := k.chart.View()
	k.chart.Zoom(0, end-start)
	k.loadOlder(ctx)
}
