package echarts

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
)

// Axes are the page's own rules for the chart's axis labels, which go-echarts
// cannot write into an option (its functions come out as text): ECharts
// calls them back as it lays out the axes, a few dozen times per draw.
type Axes struct {
	Price     func(v float64) string // the price axis' labels
	Pointer   func(v float64) string // the crosshair's price tag; nil: as Price
	Volume    func(v float64) string // the volume axis' labels
	TimeShown func(i int) bool       // whether the time axis names candle i
	// PriceStep is the least interval between the price axis' labels
	// (chartopt.PriceStep), linear (ECharts' minInterval) or log
	// (chartopt.LogTicks); 0: any.
	PriceStep float64
}

// SetAxes gives the axes the label rules of a; call it after SetFrame, which
// drops them. Only round times are labelled (ECharts 6 hides the edges'
// candles off the interval), and a label at either edge is aligned inside
// the grid, so none is cut off. The rules are handed to ECharts with the
// next Draw, Redraw or series redraw, in the same setOption: handed alone
// they cost a whole render, 90 ms of a cold start (docs/startup.md, "What
// changed, one at a time").
func (c *Chart) SetAxes(a Axes) {
	if a.PriceStep != c.priceStep {
		c.priceStep = a.PriceStep
		c.logLabels.lo, c.logLabels.hi, c.logLabels.perE = 0, 0, 0 // chosen at the old step
	}
	c.staleAxisFuncs = append(c.staleAxisFuncs, c.axisFuncs...)
	c.axisFuncs = nil
	number := func(f func(float64) string) app.Func {
		fn := app.FuncOf(func(this app.Value, args []app.Value) any {
			if len(args) == 0 {
				return ""
			}
			v := args[0]
			if v.Type() == app.TypeObject { // an axis pointer's label: {value, …}
				v = v.Get("value")
			}
			if v.Type() != app.TypeNumber {
				return ""
			}
			return f(v.Float())
		})
		c.axisFuncs = append(c.axisFuncs, fn)
		return fn
	}
	price := number(a.Price)
	pointer := price
	if a.Pointer != nil {
		pointer = number(a.Pointer)
	}
	shown := app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 || args[0].Type() != app.TypeNumber {
			return false
		}
		i := args[0].Int()
		return a.TimeShown(i) && !c.nearEdge(i)
	})
	c.axisFuncs = append(c.axisFuncs, shown)
	volume := number(a.Volume)
	priceAxis := map[string]any{"axisLabel": map[string]any{"formatter": price}, "axisPointer": map[string]any{"label": map[string]any{"formatter": pointer}}}
	if a.PriceStep > 0 {
		priceAxis["minInterval"] = a.PriceStep
	}
	xAxes := make([]any, c.xAxes) // the lowest grid's names the times
	for i := range xAxes {
		xAxes[i] = map[string]any{}
	}
	xAxes[len(xAxes)-1] = map[string]any{"axisLabel": map[string]any{
		"interval": shown, "hideOverlap": true, "alignMinLabel": "left", "alignMaxLabel": "right"}}
	c.axes = map[string]any{
		"xAxis": xAxes,
		"yAxis": []any{
			priceAxis,
			map[string]any{"axisLabel": map[string]any{"show": true, "formatter": volume},
				"axisPointer": map[string]any{"label": map[string]any{"formatter": volume}}},
		},
	}
}

// setOption hands ECharts opt, a draw's option, with the axes' label rules
// set since the last one (SetAxes), then releases the rules they replace.
func (c *Chart) setOption(opt map[string]any, settings ...any) {
	if c.axes != nil {
		xAxes := c.axes["xAxis"].([]any)
		if drawn, ok := opt["xAxis"].([]any); ok {
			for i := range min(len(xAxes), len(drawn)) {
				for k, v := range drawn[i].(map[string]any) {
					xAxes[i].(map[string]any)[k] = v
				}
			}
		}
		opt["xAxis"], opt["yAxis"] = xAxes, c.axes["yAxis"]
		c.axes = nil
	}
	c.v.Call("setOption", append([]any{opt}, settings...)...)
	for _, f := range c.staleAxisFuncs {
		f.Release()
	}
	c.staleAxisFuncs = nil
}

// nearEdge reports whether a time label centred on candle i would be cut at
// the chart's left or right edge: the first and last candles' own labels are
// aligned to the edge instead (alignMinLabel, alignMaxLabel).
func (c *Chart) nearEdge(i int) bool {
	n := c.end - c.start + 1
	w := c.v.Call("getWidth").Float()
	if n <= 1 || w <= 0 {
		return false
	}
	edge := int(float64(n)*chartopt.TimeLabelHalf/w) + 1
	return (i > c.start && i-c.start < edge) || (i < c.end && c.end-i < edge)
}

// PriceStep is the price axis' least interval the chart was last given
// (Axes.PriceStep).
func (c *Chart) PriceStep() float64 { return c.priceStep }
