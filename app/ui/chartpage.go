package ui

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/echarts"
	"github.com/riskchart/riskchart/venueapi"
)

// ChartPage is the page at "/": a candlestick chart with its volume pane.
type ChartPage struct {
	app.Compo

	contract string
	period   venueapi.Period
	status   string // what the chart area says while there is nothing to draw
	chart    *echarts.Chart
}

// OnMount loads the candles and draws them; it runs only in the browser.
func (p *ChartPage) OnMount(ctx app.Context) {
	p.contract, p.period = "BTC-USDT", venueapi.Period1Min
	p.status = "Loading " + p.contract + "…"
	ctx.Async(func() {
		env, err := fetchKLine(ctx, venueapi.KLineQuery{ContractCode: p.contract, Period: p.period, Size: 300})
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.status = err.Error()
				return
			}
			p.draw(env.Data)
		})
	})
}

// OnDismount frees the ECharts instance.
func (p *ChartPage) OnDismount() {
	if p.chart != nil {
		p.chart.Dispose()
		p.chart = nil
	}
}

// OnResize fits the chart to the new window size.
func (p *ChartPage) OnResize(ctx app.Context) {
	if p.chart != nil {
		p.chart.Resize()
	}
}

func (p *ChartPage) draw(candles []venueapi.Candle) {
	if len(candles) == 0 {
		p.status = "No candles for " + p.contract + "."
		return
	}
	if p.chart == nil {
		frame, err := chartopt.Frame(chartopt.DefaultStyle(false))
		if err != nil {
			p.status = err.Error()
			return
		}
		p.chart = echarts.Init(app.Window().GetElementByID("chart"), "")
		if p.chart == nil {
			p.status = "The chart library did not load."
			return
		}
		p.chart.SetOption(frame, true)
	}
	p.chart.SetOption(chartopt.Data(candles, p.period, time.UTC), false)
	p.status = ""
}

// Render draws the page frame; ECharts draws into #chart.
func (p *ChartPage) Render() app.UI {
	return app.Div().Class("page").Body(
		app.Header().Class("bar").Body(
			app.H1().Class("brand").Text("Riskchart"),
			app.Span().Class("contract").Text(p.contract+" · "+string(p.period)),
		),
		app.Main().Class("chart-area").Body(
			app.Div().ID("chart").Class("chart").Aria("label", "Candlestick chart").Attr("role", "img"),
			app.If(p.status != "", func() app.UI {
				return app.P().Class("chart-status").Attr("role", "status").Text(p.status)
			}),
		),
	)
}
