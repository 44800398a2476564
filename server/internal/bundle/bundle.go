// Package bundle serves the go-app front end: the page shell go-app
// prerenders, go-app's app.js led by web/loader-patch.js, the service worker
// of web/app-worker.js, web/ (app.wasm precompressed, the ECharts script,
// styles), and the wasm_exec.js glue of the Go toolchain that built app.wasm.
package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/app/boot"
	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/app/pages"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	webjs "github.com/riskchart/riskchart/web"
)

// Config says where the built front end is.
type Config struct {
	// Root holds web/ (with the built app.wasm) and wasm_exec.js.
	Root string
	// ShellSalt is anything else the app shell kept by browsers depends on,
	// such as the frame-ancestors of its Content-Security-Policy: a change
	// makes a new version, so that browsers replace the shell they keep.
	ShellSalt string
	// PublicURL is where browsers reach the server (RISKCHART_PUBLIC_URL):
	// each page names its own address and the app's icon under it, in
	// og:url and og:image. Nil: pages carry neither tag.
	PublicURL *url.URL
	// Registry is where the pages' answers are counted and the kept pages'
	// size is measured (pageMetrics), served at /metrics. Nil: not exported.
	Registry prometheus.Registerer
}

// New returns the handler of the front end. It fails when the front end
// has not been built (make build), naming the missing file.
func New(cfg Config) (http.Handler, error) {
	web := filepath.Join(cfg.Root, "web")
	wasmExec, err := os.ReadFile(filepath.Join(cfg.Root, "wasm_exec.js"))
	if err != nil {
		return nil, fmt.Errorf("reading the wasm_exec.js glue (run make build): %w", err)
	}
	pages.Routes()
	worker, err := workerTemplate(webjs.AppWorkerJS, workerConfig{Pages: pages.Paths(), Live: livePrefixes, Themes: components.Themes(),
		Navigation: firstdata.NavigationHeader, Shell: firstdata.ShellHeader, Version: VersionHeader})
	if err != nil {
		return nil, err
	}
	h := &app.Handler{
		Name:            "Riskchart",
		ShortName:       "Riskchart",
		Title:           "Riskchart",
		Description:     "Candlestick charts, risk-limit tiers and position limits of a USDT-margined derivatives venue.",
		Lang:            "en",
		BackgroundColor: "#0b1220",
		ThemeColor:      "#0b1220",
		// No {progress}: app.wasm comes compiled from a worker (web/app-start.js),
		// and the page is in view meanwhile (web/style.css makes go-app's
		// loader a note in a corner): the note says the controls are coming.
		LoadingLabel: "Starting Riskchart…",
		Author:       "Riskchart", // go-app writes an author meta in every page: without this, an empty one
		Domain:       ogDomain,    // rewritten in each page: see ogDomain
		Icon:         app.Icon{Default: "/web/icon-192.png", Large: "/web/icon-512.png", Maskable: "/web/icon-maskable-512.png", SVG: "/web/icon.svg"},
		// No Styles: go-app links its own /app.css in every page, and this
		// package answers it with webStyles too (readStyles).
		// In this order: app.wasm's compile starts first, in a worker of its own
		// (app-start.js). The chart page reads its answer before both, inline
		// (answer.go).
		Scripts: []string{"/web/app-start.js", echartsPath}, // sketch.go turns ECharts' async on the pages that sketch
		// The chart's first paint, loaded by the page itself, and the worker that compiles app.wasm.
		CacheableResources:    []string{boot.Script, "/web/app-compile.js"},
		ServiceWorkerTemplate: worker,
	}
	h.Image = h.Icon.Large // og:image, the preview social networks show
	precached := append(slices.Concat(h.Scripts, h.CacheableResources), h.Icon.Default, h.Icon.Large, h.Icon.Maskable, h.Icon.SVG)
	styles, err := readStyles(web)
	if err != nil {
		return nil, err
	}
	small, err := smallFiles(web) // read once: served, and hashed into the version
	if err != nil {
		return nil, err
	}
	// The worker, the loader patch, the inline script, the pages' og:url and
	// the stylesheet (/app.css) are part of the shell too.
	base := ogBase(cfg.PublicURL)
	salt := cfg.ShellSalt + "\x00" + base + "\x00" + worker + "\x00" + webjs.LoaderPatchJS + "\x00" + webjs.ChartAnswerJS + "\x00" + string(styles)
	version, wasmSize, err := versionOf(web, precached, small, wasmExec, salt)
	if err != nil {
		return nil, err
	}
	h.Version = version
	// app.wasm is served compressed (brotli or gzip): the progress bar needs the raw size.
	h.WasmContentLength = strconv.FormatInt(wasmSize, 10)
	goapp, err := goappJS(h)
	if err != nil {
		return nil, err
	}
	appJS, err := patchAppJS(goapp, webjs.LoaderPatchJS)
	if err != nil {
		return nil, err
	}
	goappCSS, err := rendered(h, "/app.css")
	if err != nil {
		return nil, err
	}
	if err := checkPage(h, base); err != nil {
		return nil, err
	}
	pagePaths := map[string]bool{}
	for _, p := range pages.Paths() {
		pagePaths[p] = true
	}
	hd := &handler{app: h, web: web, fileTags: newFileTags(), pages: pagePaths, ogBase: base, pageCoders: newPageCoders(), keptPages: newPageCache(keptPagesBytes)}
	if hd.answers, err = pageMetrics(cfg.Registry, hd.keptPages); err != nil {
		return nil, err
	}
	modTime := time.Now()
	if hd.wasmExec, err = newAssembled("wasm_exec.js", "application/javascript", wasmExec, modTime); err != nil {
		return nil, err
	}
	if hd.appJS, err = newAssembled("app.js", "application/javascript", []byte(appJS), modTime); err != nil {
		return nil, err
	}
	if hd.styles, err = newAssembled("app.css", "text/css; charset=utf-8", slices.Concat(goappCSS, styles), modTime); err != nil {
		return nil, err
	}
	hd.small = small
	return hd, nil
}

// checkPage renders the first page as New's handler will, so that a go-app
// whose page metadata rewriteOG no longer finds fails at start-up, not in
// every page.
func checkPage(h *app.Handler, base string) error {
	page, err := rendered(h, "/")
	if err != nil {
		return err
	}
	page, err = rewriteOG(page, base)
	if err != nil {
		return fmt.Errorf("rewriting the page metadata: %w: go-app has changed, review bundle's ogDomain", err)
	}
	if bytes.Contains(page, []byte(ogDomain)) {
		return errors.New("rewriting the page metadata: go-app writes its Domain outside the page head: go-app has changed, review bundle's ogDomain")
	}
	return nil
}

// patchAppJS puts patch (web/loader-patch.js) first in go-app's app.js,
// in the same script. The patch replaces go-app's functions by assigning to
// their names at the top of the script: it fails when go-app's script no
// longer declares one of them once, at the top level, and calls it, or when
// it declares a function of the patch's (go-app's would then win).
func patchAppJS(goapp, patch string) (string, error) {
	replaced := patchAssigns.FindAllStringSubmatch(patch, -1)
	if len(replaced) == 0 {
		return "", errors.New("the loader patch (web/loader-patch.js) replaces none of go-app's functions")
	}
	declared := map[string]int{} // go-app's top-level functions, by name
	for _, m := range funcDecls.FindAllStringSubmatch(goapp, -1) {
		declared[m[1]]++
	}
	for _, m := range replaced {
		name := m[1]
		calls := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\(`)
		if declared[name] != 1 || len(calls.FindAllStringIndex(goapp, -1)) < 2 {
			return "", fmt.Errorf("go-app's app.js no longer declares and calls %s, which web/loader-patch.js replaces: go-app has changed, review the patch", name)
		}
	}
	if strings.Contains(patch, "WebAssembly.instantiateStreaming =") && !strings.Contains(goapp, "= WebAssembly.instantiateStreaming;") {
		return "", errors.New("go-app's app.js no longer reads WebAssembly.instantiateStreaming as it instantiates app.wasm, which web/loader-patch.js wraps: go-app has changed, review the patch")
	}
	for _, m := range funcDecls.FindAllStringSubmatch(patch, -1) {
		if declared[m[1]] > 0 {
			return "", fmt.Errorf("go-app's app.js declares %s, as web/loader-patch.js does: go-app has changed, review the patch", m[1])
		}
	}
	return patch + "\n" + goapp, nil
}

var (
	// patchAssigns finds the top-level assignments of the loader patch: the
	// names of go-app's functions it replaces.
	patchAssigns = regexp.MustCompile(`(?m)^([A-Za-z_$][\w$]*) = `)
	// funcDecls finds the top-level functions a script declares.
	funcDecls = regexp.MustCompile(`(?m)^(?:async )?function ([A-Za-z_$][\w$]*)\(`)
)

// goappJS is the app.js that go-app's handler h generates.
func goappJS(h *app.Handler) (string, error) {
	b, err := rendered(h, "/app.js")
	return string(b), err
}

// rendered is go-app's handler h's answer to a GET of target, which must
// be HTTP 200.
func rendered(h *app.Handler, target string) ([]byte, error) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("go-app's handler answered HTTP %d for %s", rec.Code, target)
	}
	return rec.Body.Bytes(), nil
}

// workerConfig is what the service worker (web/app-worker.js) is told.
type workerConfig struct {
	// Pages are the paths of the app's pages, answered with the app shell.
	Pages []string `json:"pages"`
	// Live are the path prefixes of live data, never answered from the cache.
	Live []string `json:"live"`
	// Themes are the values of ?theme= the app reads: a page answered from
	// its shell gets the one its URL names, as the server's page would
	// (theme.go).
	Themes []string `json:"themes"`
	// Navigation is the header the worker marks a page's navigation with
	// when it sends it on to the network (firstdata.NavigationHeader).
	Navigation string `json:"navigation"`
	// Shell is the header the worker marks its requests for the shells it
	// keeps with (firstdata.ShellHeader).
	Shell string `json:"shell"`
	// Version is the header naming the build of every answer of the front
	// end (VersionHeader): the worker keeps and shows only its own build's.
	Version string `json:"version"`
}

// VersionHeader names the build (go-app's version) of every answer of the
// front end, 304s included, so that the service worker can tell an answer
// of another build, from a replica of another release during a rolling
// deployment or from the network after a deployment, from one of its own.
const VersionHeader = "Riskchart-Version"

// livePrefixes are the venue's paths and the server's API.
var livePrefixes = []string{"/sapi/", "/api/"}

// workerTemplate fills the worker's configuration into its template, leaving
// go-app's own placeholders to go-app.
func workerTemplate(tmpl string, c workerConfig) (string, error) {
	const hole = "{{.WorkerConfig}}"
	for _, want := range []string{hole, "{{.Version}}", "{{.ResourcesToCache}}"} {
		if strings.Count(tmpl, want) != 1 {
			return "", fmt.Errorf("the service worker (web/app-worker.js) holds %s %d times, want once", want, strings.Count(tmpl, want))
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return strings.Replace(tmpl, hole, string(b), 1), nil
}

type handler struct {
	app *app.Handler
	web string
	// The files put together at start, each kept in every encoding.
	wasmExec *assembled            // the glue of the toolchain that built app.wasm
	appJS    *assembled            // go-app's loader, patched (patchAppJS)
	styles   *assembled            // /app.css: go-app's styles, then readStyles
	small    map[string]*assembled // web/'s own scripts and icon, by name (smallFiles)
	fileTags *fileTags             // the ETags of the build's precompressed files (servePrecompressed)
	pages    map[string]bool       // the app's page paths, whose metadata is rewritten
	ogBase   string                // see ogBase
	// pageCoders compress the pages; keptPages keeps those with an ETag as
	// sent; answers counts how each page was answered (pageMetrics).
	pageCoders *pageCoders
	keptPages  *pageCache
	answers    pageAnswers
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = withListsJoined(r) // once, for every reader below
	w.Header().Set(VersionHeader, h.app.Version)
	proxied, isProxied := proxiedByGoApp(r.URL.Path, h.app.Version)
	switch {
	case r.URL.Path == "/wasm_exec.js":
		h.wasmExec.ServeHTTP(w, r)
	case r.URL.Path == "/app.js":
		h.appJS.ServeHTTP(w, r)
	case r.URL.Path == "/app.css":
		h.styles.ServeHTTP(w, r)
	case strings.HasPrefix(r.URL.Path, "/web/"):
		h.serveWeb(w, r, r.URL.Path[len("/web/"):])
	case isProxied:
		// go-app would fetch web/'s copy from http://<the request's Host>
		// and keep it for everyone: served from web/ here, or 404.
		h.serveWeb(w, r, proxied)
	case r.URL.Path == "/embed/demo":
		// The demo embeds Riskchart as a customer's page would: plain HTML.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFile(w, r, filepath.Join(h.web, "embed-demo.html"))
	case h.pages[r.URL.Path]:
		h.servePage(w, r)
	default:
		h.app.ServeHTTP(w, r)
	}
}

// proxiedByGoApp reports whether go-app's handler answers p with the file
// of web/ it fetches over HTTP from the request's own Host, and keeps, with
// that answer's Content-Type and Content-Encoding, for every later request:
// a request naming another host (a loopback name on another port, or any
// name with RISKCHART_ALLOWED_HOSTS=*) would have this origin serve that
// host's answer. The handler serves them from web/ itself; name is the
// file's. go-app reads p without a leading "/<version>" as the same path.
func proxiedByGoApp(p, version string) (name string, ok bool) {
	if rest, cut := strings.CutPrefix(p, "/"+version); cut && strings.HasPrefix(rest, "/") {
		p = rest
	}
	switch p {
	case "/robots.txt", "/sitemap.xml", "/ads.txt":
		return p[1:], true
	}
	return "", false
}

// serveWeb serves web/'s file name: one of smallFiles as compressed at
// start, another its .br or .gz sibling when the browser takes brotli or
// gzip (see servePrecompressed).
func (h *handler) serveWeb(w http.ResponseWriter, r *http.Request, name string) {
	name = path.Clean(name)
	if name == "." || strings.HasPrefix(name, "..") || webjs.Assembled(name) {
		http.NotFound(w, r)
		return
	}
	if a, ok := h.small[name]; ok {
		a.ServeHTTP(w, r)
		return
	}
	file := filepath.Join(h.web, filepath.FromSlash(name))
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Add("Vary", "Accept-Encoding")
	if ct := contentType(name); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	if servePrecompressed(w, r, file, name, h.fileTags) || serveRaw(w, r, file, name, h.fileTags) {
		return
	}
	if st, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) || err == nil && st.IsDir() {
		http.NotFound(w, r) // a folder is not a page: its files are not listed
		return
	}
	http.ServeFile(w, r, file) // says what else is wrong with it: unreadable
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
// glue, every other file of web/ it precaches (files, as /web/ paths; those
// in held as read there, the others read here) and salt, so that a change
// of any of them (and only that) makes browsers and the worker fetch the
// shell again. It returns app.wasm's size too.
func versionOf(web string, files []string, held map[string]*assembled, wasmExec []byte, salt string) (string, int64, error) {
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
		if a, ok := held[name]; ok {
			part(f, a.bodies[""])
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
