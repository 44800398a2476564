package bundle

import (
	"bytes"

	"github.com/riskchart/riskchart/app/boot"
	"github.com/riskchart/riskchart/venueapi"
)

// The chart page's first paint sketches the candles on a canvas
// (web/chart-boot.js) without waiting for ECharts, on a view without a look
// and on one whose look is marked sketched (boot.Look.Sketched: a chart
// style or a percent scale): the head of such a page runs ECharts as an
// async script, which does not hold the parser while it comes. Why:
// docs/performance.md, "The candles sketched before ECharts".

// echartsPath is ECharts' file, which every page's head runs (Handler.Scripts).
const echartsPath = "/web/echarts.min.js"

// echartsScript is ECharts' element as go-app writes it into a page's head.
const echartsScript = `<script src="` + echartsPath + `"></script>`

// echartsAsync runs ECharts once it has come, fetched at the priority of a
// script in the head (an async script's is low).
const echartsAsync = `<script async src="` + echartsPath + `" fetchpriority="high"></script>`

// withSketch is page with its head's ECharts script made async when page
// is a chart page or a chart embed (it preloads its KLine answer) of a view
// the first paint sketches: one that carries no look (app/boot.Look), or
// whose look's element is marked sketched (boot.SketchAttr). Page as it is
// otherwise: studies and a log scale are drawn with ECharts alone.
func withSketch(page []byte) []byte {
	head := bytes.Index(page, []byte("</head>"))
	if head < 0 {
		return page
	}
	look := []byte(` id="` + boot.LookID + `"`)
	if at := bytes.Index(page[head:], look); at >= 0 && !bytes.HasPrefix(page[head+at+len(look):], []byte(" "+boot.SketchMark+">")) {
		return page
	}
	if _, _, ok := preloadLink(page[:head], venueapi.PathKLine+"?"); !ok {
		return page
	}
	at := bytes.Index(page[:head], []byte(echartsScript))
	if at < 0 {
		return page
	}
	out := make([]byte, 0, len(page)-len(echartsScript)+len(echartsAsync))
	out = append(out, page[:at]...)
	out = append(out, echartsAsync...)
	return append(out, page[at+len(echartsScript):]...)
}
