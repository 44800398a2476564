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

// ChartAnswerJS (chart-answer.js) is written inline into the chart page's
// head, right after the <link> that preloads the KLine answer, and allowed
// by its hash in the Content-Security-Policy: it starts reading that answer
// before the stylesheets and the other scripts load.
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
