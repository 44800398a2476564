// Package web holds the JavaScript the server builds into what it serves
// rather than serving as a file of web/: the service worker's template, the
// patch of go-app's loader and the chart page's inline head script.
package web

import (
	_ "embed"
	"path"
)

// AppWorkerJS is the service worker's template (app-worker.js): go-app
// fills in {{.Version}} and {{.ResourcesToCache}}, the server
// {{.WorkerConfig}}, a JSON object {"pages": [...], "live": [...]}.
//
//go:embed app-worker.js
var AppWorkerJS string

// LoaderPatchJS (loader-patch.js) goes first in go-app's app.js, in the same
// script: it replaces go-app's fetchWithProgress and goappInitServiceWorker.
//
//go:embed loader-patch.js
var LoaderPatchJS string

// ChartAnswerJS (chart-answer.js) is written inline into the head of the
// chart page and of a chart embed, right after the <link> that preloads the
// KLine answer, and allowed by its hash in the Content-Security-Policy
// (server/internal/bundle). It runs as the parser reaches it, before the
// stylesheets and the other scripts have loaded, while the main thread is
// idle, so the answer's response and body arrive in small tasks of their own
// and the answer is text by the time web/chart-boot.js runs; chart-boot.js
// then draws at the end of its own task, before the page's first frame. Read
// from a script file after the stylesheets, those tasks could come after the
// first layout and paint, and the candles a frame later
// (docs/startup.md, "The answer read from the head"). Every chart page
// and chart embed carries it, so its comments are here rather than in it.
//
// It leaves window.riskchartAnswer, what chart-boot.js reads: the request's
// href and the promise of the answer's text. The server answers a refused
// query as the venue does, HTTP 200 with the error in the envelope
// ("status": "error"): that is text like any answer, and its readers tell
// it from candles by the envelope. Another status is a failure of the
// transport, the server or its budget, and rejects the promise: chart-boot.js
// then draws nothing and the app, which asks again, reports it.
//
// Once the first paint has drawn (chart-boot.js's riskchart:first-paint),
// when the page names where its tiers are read from (a <meta> the server
// writes into a chart page without them, which the service worker's shell
// is too: server/internal/bundle), it starts reading them, and leaves
// window.riskchartTiers: the request's href, the promise of the answer's
// HTTP status and text, and that answer itself once it is in. The app's
// risk panel takes an answer that is in when it starts (api.TakePageTiers)
// and shows it in its first render, as it does tiers the server wrote into
// the page; one still under way it awaits in place of its first fetch
// (api.FetchTiers). Awaited, an answer reached the panel only after the
// app's own draw of the chart, 100-250 ms after the app was running, on a
// visit the service worker answers. The read is an XMLHttpRequest: fetch's
// response, then its text, each took a task of the main thread that came
// only after the page's loading tasks and Go's first run, so its answer was
// in when the network had it 10 ms after the first paint, and in the page
// 200 ms later, after the app's draw; the request's own tasks come as the
// network answers, and the answer is in before Go starts. Not before the
// first paint: read from the start, beside the first paint's requests, they
// slowed it (docs/startup.md, "The tiers read by the page").
//
//go:embed chart-answer.js
var ChartAnswerJS string

// Assembled reports whether name, a path inside web/, is source the server
// builds into other answers (this package, the three scripts above): it is
// never served as a file of its own.
func Assembled(name string) bool {
	switch name {
	case "app-worker.js", "loader-patch.js", "chart-answer.js":
		return true
	}
	return path.Ext(name) == ".go"
}
