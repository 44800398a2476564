package components

import (
	"errors"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/boot"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// errNoFirstPaint: the first paint holds no answer for the view.
var errNoFirstPaint = errors.New("no first-paint answer")

// firstPaintKLine decodes the answer that the page's first-paint script
// (web/chart-boot.js) fetched for q's contract and period, once, so that the
// app does not ask the server again for what it has just sent. Those candles
// are on show already, so reading them, and the render that follows, wait
// for a task of their own: Go's first run in the page ends before them, and
// with it go-app's loader and the wait for the controls (100-200 ms of a cold
// start: docs/startup.md, "What changed, one at a time").
func firstPaintKLine(q venueapi.KLineQuery) (api.KLine, error) {
	body, ok := browser.TakeFirstPaintAnswer(q.ContractCode, q.Period)
	if !ok {
		return api.KLine{}, errNoFirstPaint
	}
	browser.Yield()
	return api.ReadKLine(q, 200, body)
}

// firstPaintConfig is what the first-paint script is handed: the chart's
// default view, sizes and frames, and the rules by which ViewFromURL reads
// the view from the URL.
func firstPaintConfig() (boot.Config, error) {
	def := DefaultView()
	return boot.NewConfig(boot.Page{Contract: def.Contract, Period: def.Period, UTC: zoneUTC, Themes: themes, Size: LatestSize, Shown: shownFirst})
}

// firstPaintJSON is the configuration as the page holds it. Nothing of the
// request is in it, so the server builds its frames once, not per prerender.
var firstPaintJSON = sync.OnceValues(func() ([]byte, error) {
	c, err := firstPaintConfig()
	if err != nil {
		return nil, err
	}
	return c.JSON()
})

// renderFirstPaint writes, on the server, the first-paint script, its
// configuration, and the look of the view (boot.Look) when it names
// studies, a price scale or a chart style: the first paint lays the candles
// out and draws them as the app's first draw does, with the studies' panes
// under them, on the scale, in the style, so that the app's draw moves and
// changes nothing (docs/performance.md, "What the first paint promises").
func (k *KLineChart) renderFirstPaint() app.UI {
	conf, err := firstPaintJSON()
	if err != nil {
		return nil
	}
	var look app.UI
	if k.Look != (Look{}) {
		lines := k.studyLines() // makes the view's set of studies
		if l, err := boot.NewLook(boot.View{Scale: k.Look.Scale, Kind: k.Look.Kind, Specs: k.studySet.Specs(), Studies: lines}); err == nil {
			if b, err := l.JSON(); err == nil {
				var marks []string
				if l.Sketched() {
					marks = append(marks, boot.SketchMark)
				}
				look = jsonScript(boot.LookID, b, marks...)
			}
		}
	}
	return app.Div().Class("chart-boot").Body(
		jsonScript(boot.ConfigID, conf),
		look,
		// Not deferred: it runs as soon as #chart is parsed, before app.js.
		app.Script().Src(boot.Script),
	)
}

// jsonScript is a script element of type application/json with id, the
// attributes attrs as written, and the JSON b, which json.Marshal has
// escaped: it cannot end the element.
func jsonScript(id string, b []byte, attrs ...string) app.UI {
	more := ""
	for _, a := range attrs {
		more += " " + a
	}
	return app.Raw(`<script type="application/json" id="` + id + `"` + more + `>` + string(b) + `</script>`)
}
