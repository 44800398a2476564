// Package web holds the JavaScript the server builds into what it serves
// rather than serving as a file of web/: the service worker's template and
// the patch of go-app's loader.
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

// Assembled reports whether name, a path inside web/, is source the server
// builds into other answers (this package, the two scripts above): it is
// never served as a file of its own.
func Assembled(name string) bool {
	return path.Ext(name) == ".go" || name == "app-worker.js" || name == "loader-patch.js"
}
