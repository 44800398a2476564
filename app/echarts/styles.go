package echarts

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// renderItem is the drawing function of style s's custom price series
// (chartopt.Style.Drawing): the page's ECharts build exports them
// (server/cmd/echartsbuild/styles.js).
//
// In these styles ECharts draws the newest candle too, and a live update
// hands it the series again (ShowLast): the live layer's shapes are a
// candle's, and a line's newest segment or an OHLC bar's ticks drawn apart
// from ECharts' copy would leave its stale drawing beside them.
func renderItem(s chartopt.Style) app.Value {
	d, _ := s.Drawing()
	return app.Window().Get("echarts").Call(d.Fn, d.Args...)
}
