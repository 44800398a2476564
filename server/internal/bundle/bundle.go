// Package bundle serves the go-app front end: the page shell go-app
// prerenders, web/ (app.wasm precompressed, the ECharts script, styles), and
// the wasm_exec.js glue of the Go toolchain that built app.wasm.
package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/ui"
)

// Config says where the built front end is.
type Config struct {
	// Root holds web/ (with the built app.wasm) and wasm_exec.js.
	Root string
	// ShellSalt is anything else the app shell kept by browsers depends on,
	// such as the frame-ancestors of its Content-Security-Policy: a change
	// makes a new version, so that browsers replace the shell they keep.
	ShellSalt string
}

// New returns the handler of the front end. It fails when the front end
// has not been built (make build), naming the missing file.
func New(cfg Config) (http.Handler, error) {
	web := filepath.Join(cfg.Root, "web")
	wasmExec, err := os.ReadFile(filepath.Join(cfg.Root, "wasm_exec.js"))
	if err != nil {
		return nil, fmt.Errorf("reading the wasm_exec.js glue (run make build): %w", err)
	}
	ui.Routes()
	h := &app.Handler{
		Name:            "Riskchart",
		ShortName:       "Riskchart",
		Title:           "Riskchart",
		Description:     "Candlestick charts, risk-limit tiers and position limits of a USDT-margined derivatives venue.",
		Lang:            "en",
		BackgroundColor: "#0b1220",
		ThemeColor:      "#0b1220",
		// No {progress}: app.js fetches app.wasm directly (see streamingAppJS),
		// and the page is in view meanwhile (web/style.css makes go-app's
		// loader a note in a corner): the note says the controls are coming.
		LoadingLabel:          "Starting Riskchart…",
		Icon:                  app.Icon{Default: "/web/icon-192.png", Large: "/web/icon-512.png", Maskable: "/web/icon-maskable-512.png", SVG: "/web/icon.svg"},
		Styles:                []string{"/web/style.css", "/web/embed.css", "/web/risk.css"},
		Scripts:               []string{"/web/chart-answer.js", "/web/echarts.min.js"}, // in this order: see chart-answer.js
		CacheableResources:    []string{"/web/chart-boot.js"},                          // the chart's first paint, loaded by the page itself
		ServiceWorkerTemplate: serviceWorker,
	}
	precached := append(slices.Concat(h.Styles, h.Scripts, h.CacheableResources), h.Icon.Default, h.Icon.Large, h.Icon.Maskable, h.Icon.SVG)
	version, wasmSize, err := versionOf(web, precached, wasmExec, cfg.ShellSalt)
	if err != nil {
		return nil, err
	}
	h.Version = version
	// app.wasm is served gzip-compressed: the progress bar needs the raw size.
	h.WasmContentLength = strconv.FormatInt(wasmSize, 10)
	return &handler{app: h, web: web, wasmExec: wasmExec, modTime: time.Now(), appJS: streamingAppJS(h)}, nil
}

// streamingAppJS is go-app's app.js with three changes, nil when go-app's
// script has changed shape:
//   - app.wasm is fetched directly. go-app wraps the download in a new
//     Response to report progress, which hides its URL from the browser: the
//     compiled module is then never cached, and every visit compiles
//     app.wasm again;
//   - its download and compilation wait for the chart's first paint
//     (web/chart-boot.js, which runs before this script) to draw or give
//     up, for at most 1.5 s: on a two-core machine, the first paint's
//     ratio to a plain page's went from 1.68-2.10 to 1.60-1.85 over the
//     bench runs of 23 November (the compilation alone had been held back
//     before); on a real network the paint also has the bandwidth to itself;
//   - the service worker registers once the app has drawn its chart, or 3 s
//     after this script ran: on a first visit its install downloads and
//     stores every file of the app.
//
// On a two-core machine, compiling and installing alongside the first paint
// made it three times slower than a plain page's (traced in Chromium 156).
func streamingAppJS(h *app.Handler) []byte {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app.js", nil))
	js := rec.Body.String()
	const wrapped, register = `fetchWithProgress("/web/app.wasm", showProgress)`, "\ngoappInitServiceWorker();\n"
	if rec.Code != http.StatusOK || !strings.Contains(js, wrapped) || strings.Count(js, register) != 1 {
		return nil
	}
	js = strings.Replace(js, wrapped, `riskchartAfterFirstPaint(() => fetch("/web/app.wasm"))`, 1)
	js = strings.Replace(js, register, "\nriskchartAfterAppDrawn(goappInitServiceWorker);\n", 1)
	return []byte(loadOrder + js)
}

// loadOrder holds back what competes with the chart's first paint.
const loadOrder = `// riskchartOnce calls f once: on the window's event, or after ms, whichever
// comes first.
function riskchartOnce(event, ms, f) {
  let done = false;
  const run = () => {
    if (!done) {
      done = true;
      f();
    }
  };
  window.addEventListener(event, run, { once: true });
  setTimeout(run, ms);
}

function riskchartAfterFirstPaint(start) {
  const boot = window.riskchartBoot;
  if (!boot || boot.settled) {
    return start();
  }
  return new Promise((resolve) => riskchartOnce("riskchart:first-paint", 1500, () => resolve(start())));
}

// riskchartOnVisible calls f each time the page comes back into view. Go is
// not woken when the page is hidden: a page being left for another ran its
// Go scheduler for up to a tenth of a second during the next one's commit.
function riskchartOnVisible(f) {
  const listener = () => {
    if (document.visibilityState === "visible") {
      f();
    }
  };
  document.addEventListener("visibilitychange", listener);
  return listener;
}

function riskchartAfterAppDrawn(f) {
  riskchartOnce("riskchart:app-drawn", 3000, f);
}

`

type handler struct {
	app      *app.Handler
	web      string
	wasmExec []byte
	appJS    []byte
	modTime  time.Time
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/wasm_exec.js":
		w.Header().Set("Content-Type", "application/javascript")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "wasm_exec.js", h.modTime, bytes.NewReader(h.wasmExec))
	case r.URL.Path == "/app.js" && h.appJS != nil:
		w.Header().Set("Content-Type", "application/javascript")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "app.js", h.modTime, bytes.NewReader(h.appJS))
	case strings.HasPrefix(r.URL.Path, "/web/"):
		h.serveWeb(w, r)
	case r.URL.Path == "/embed/demo":
		// The demo embeds Riskchart as a customer's page would: plain HTML.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFile(w, r, filepath.Join(h.web, "embed-demo.html"))
	default:
		h.app.ServeHTTP(w, r)
	}
}

// serveWeb serves a file of web/, its .gz sibling when the browser takes gzip.
func (h *handler) serveWeb(w http.ResponseWriter, r *http.Request) {
	name := path.Clean(r.URL.Path[len("/web/"):])
	if name == "." || strings.HasPrefix(name, "..") {
		http.NotFound(w, r)
		return
	}
	file := filepath.Join(h.web, filepath.FromSlash(name))
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Add("Vary", "Accept-Encoding")
	if ct := contentType(name); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		if f, err := os.Open(file + ".gz"); err == nil {
			defer f.Close()
			if st, err := f.Stat(); err == nil {
				w.Header().Set("Content-Encoding", "gzip")
				http.ServeContent(w, r, name, st.ModTime(), f)
				return
			}
		}
	}
	http.ServeFile(w, r, file)
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".wasm":
		return "application/wasm"
	case ".js":
		return "application/javascript"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	}
	return ""
}

// versionOf names what the service worker keeps: a hash of app.wasm, the
// glue, every other file of web/ it precaches (files, as /web/ paths) and
// salt, so that a change of any of them (and only that) makes browsers and
// the worker fetch the shell again. It returns app.wasm's size too.
func versionOf(web string, files []string, wasmExec []byte, salt string) (string, int64, error) {
	wasm, err := os.ReadFile(filepath.Join(web, "app.wasm"))
	if err != nil {
		return "", 0, fmt.Errorf("reading the front end (run make build): %w", err)
	}
	sum := sha256.New()
	part := func(name string, b []byte) { // length-prefixed: no two inputs hash alike
		fmt.Fprintf(sum, "%s %d\n", name, len(b))
		sum.Write(b)
	}
	part("app.wasm", wasm)
	part("wasm_exec.js", wasmExec)
	part("salt", []byte(salt))
	for _, f := range files {
		name, ok := strings.CutPrefix(f, "/web/")
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(web, filepath.FromSlash(name)))
		if err != nil {
			return "", 0, fmt.Errorf("reading %s, which the service worker keeps (run make build): %w", f, err)
		}
		part(f, b)
	}
	return hex.EncodeToString(sum.Sum(nil))[:16], int64(len(wasm)), nil
}
