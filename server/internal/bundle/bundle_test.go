package bundle

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/pages"
)

// builtRoot writes a minimal built front end into a temporary root: every
// file the handler precaches, with content of their names.
func builtRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	web := filepath.Join(root, "web")
	if err := os.MkdirAll(web, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("wasm_exec.js", "// glue")
	if err := os.MkdirAll(filepath.Join(web, "bench"), 0o755); err != nil { // a folder, as the bench's pages are
		t.Fatal(err)
	}
	write(filepath.Join("web", "bench", "plain.html"), "plain.html")
	for _, f := range []string{"app.wasm", "style.css", "embed.css", "risk.css", "echarts.min.js", "app-start.js", "app-compile.js", "chart-boot.js", "icon-192.png", "icon-512.png", "icon-maskable-512.png", "icon.svg", "embed-demo.html", "app-worker.js", "loader-patch.js", "web.go"} {
		write(filepath.Join("web", f), f)
	}
	for _, f := range []string{"app.wasm", "echarts.min.js"} { // the build compresses these two
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(f))
		zw.Close()
		write(filepath.Join("web", f+".gz"), gz.String())
		write(filepath.Join("web", f+".br"), brotliOf(t, f))
	}
	return root
}

var versionRE = regexp.MustCompile(`const version = "([0-9a-f]+)";`)

// served answers a GET of path from a handler made with cfg.
func served(t *testing.T, cfg Config, path string) (status int, body string) {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func versionServed(t *testing.T, cfg Config) string {
	t.Helper()
	status, js := served(t, cfg, "/app-worker.js")
	m := versionRE.FindStringSubmatch(js)
	if status != http.StatusOK || m == nil {
		t.Fatalf("app-worker.js: HTTP %d, no version in %.200q", status, js)
	}
	return m[1]
}

func TestTheVersionChangesWithWhatTheWorkerKeepsAndOnlyThen(t *testing.T) {
	root := builtRoot(t)
	base := versionServed(t, Config{Root: root, ShellSalt: "https://a.example"})
	if again := versionServed(t, Config{Root: root, ShellSalt: "https://a.example"}); again != base {
		t.Fatalf("the same build has two versions: %s, %s", base, again)
	}
	tests := []struct {
		name   string
		change func(t *testing.T, root string) Config
	}{
		{"another frame-ancestors list", func(t *testing.T, root string) Config {
			return Config{Root: root, ShellSalt: "https://a.example https://b.example"}
		}},
		{"a new app.wasm", func(t *testing.T, root string) Config {
			os.WriteFile(filepath.Join(root, "web", "app.wasm"), []byte("app.wasm v2"), 0o644)
			return Config{Root: root, ShellSalt: "https://a.example"}
		}},
		{"a new embed.css", func(t *testing.T, root string) Config {
			os.WriteFile(filepath.Join(root, "web", "embed.css"), []byte("/* v2 */"), 0o644)
			return Config{Root: root, ShellSalt: "https://a.example"}
		}},
		{"a new icon", func(t *testing.T, root string) Config {
			os.WriteFile(filepath.Join(root, "web", "icon-maskable-512.png"), []byte("v2"), 0o644)
			return Config{Root: root, ShellSalt: "https://a.example"}
		}},
		{"new glue", func(t *testing.T, root string) Config {
			os.WriteFile(filepath.Join(root, "wasm_exec.js"), []byte("// glue v2"), 0o644)
			return Config{Root: root, ShellSalt: "https://a.example"}
		}},
		{"a public URL, which the pages name", func(t *testing.T, root string) Config {
			return Config{Root: root, ShellSalt: "https://a.example", PublicURL: mustURL(t, "https://charts.example.com")}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := builtRoot(t)
			if v := versionServed(t, tt.change(t, root)); v == base {
				t.Fatalf("version %s did not change", v)
			}
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var (
	metaRE = regexp.MustCompile(`<meta\b([^>]*)>`)
	attrRE = regexp.MustCompile(`([a-z:-]+)(?:="([^"]*)")?`)
)

// metas reads a page's <meta> elements by name or property, whatever order
// go-app writes their attributes in: each one's content, nil when it has no
// content attribute.
func metas(page string) map[string]*string {
	out := map[string]*string{}
	for _, m := range metaRE.FindAllStringSubmatch(page, -1) {
		attrs := map[string]*string{}
		for _, a := range attrRE.FindAllStringSubmatch(m[1], -1) {
			attrs[a[1]] = &a[2]
		}
		for _, k := range []string{"name", "property"} {
			if key := attrs[k]; key != nil {
				out[*key] = attrs["content"]
			}
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}

func TestPagesNameTheirAddressAndImageUnderThePublicURLOrNotAtAll(t *testing.T) {
	root := builtRoot(t)
	tests := []struct {
		name, public string // "": RISKCHART_PUBLIC_URL unset
		path         string
		url, image   string // og:url and og:image; "": the tag is absent
	}{
		{"no public URL, the chart", "", "/", "", ""},
		{"no public URL, the tiers", "", "/tiers", "", ""},
		{"no public URL, an embed", "", "/embed/chart", "", ""},
		{"https, the chart", "https://charts.example.com", "/", "https://charts.example.com/", "https://charts.example.com/web/icon-512.png"},
		{"https, the limits", "https://charts.example.com", "/limits", "https://charts.example.com/limits", "https://charts.example.com/web/icon-512.png"},
		{"http with a port", "http://127.0.0.1:8080", "/tiers", "http://127.0.0.1:8080/tiers", "http://127.0.0.1:8080/web/icon-512.png"},
		{"under a path, the chart", "https://example.com/riskchart", "/", "https://example.com/riskchart/", "https://example.com/riskchart/web/icon-512.png"},
		{"under a path, an embed", "https://example.com/riskchart", "/embed/tiers", "https://example.com/riskchart/embed/tiers", "https://example.com/riskchart/web/icon-512.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Root: root}
			if tt.public != "" {
				cfg.PublicURL = mustURL(t, tt.public)
			}
			h, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path+"?contract_code=ETH-USDT&token=not-in-og-url", nil))
			page := rec.Body.String()
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Length") != strconv.Itoa(len(page)) {
				t.Fatalf("HTTP %d, Content-Length %s for %d bytes", rec.Code, rec.Header().Get("Content-Length"), len(page))
			}
			m := metas(page)
			for prop, want := range map[string]string{"og:url": tt.url, "og:image": tt.image} {
				got, ok := m[prop]
				switch {
				case want == "" && ok:
					t.Errorf("%s is there, want no such tag", prop)
				case want != "" && (got == nil || *got != want):
					t.Errorf("%s is %v, want %q", prop, deref(got), want)
				}
			}
			if a, ok := m["author"]; ok && (a == nil || *a == "") {
				t.Error("an author meta without an author: want none or a real one")
			}
			if title, desc := m["og:title"], m["description"]; title == nil || *title == "" || desc == nil || *desc == "" {
				t.Errorf("the other metadata is lost: %q", page)
			}
			for _, never := range []string{`"https://"`, ogDomain, "not-in-og-url"} {
				if strings.Contains(page, never) {
					t.Errorf("the page holds %s", never)
				}
			}
		})
	}
}

func TestRewriteOGFailsWhenGoAppNoLongerWritesThePlaceholderInAMeta(t *testing.T) {
	const ok = "<html>\n  <head>\n    <meta property=\"og:url\" content=\"" + ogPrefix + "/tiers\">\n    <title>x</title>\n  </head><body>" + ogPrefix + "</body>"
	tests := []struct {
		name, page, base, want string // want "": an error
	}{
		{"a page as go-app writes it, under a public URL", ok, "https://c.example", "<html>\n  <head>\n    <meta property=\"og:url\" content=\"https://c.example/tiers\">\n    <title>x</title>\n  </head><body>" + ogPrefix + "</body>"},
		{"a page as go-app writes it, without one", ok, "", "<html>\n  <head>\n    <title>x</title>\n  </head><body>" + ogPrefix + "</body>"},
		{"no placeholder: go-app no longer uses its Domain", "<head><meta property=\"og:url\" content=\"https://\"></head>", "", ""},
		{"the placeholder outside a meta", "<head><link href=\"" + ogPrefix + "/x\"></head>", "", ""},
		{"no head", "<html>" + ogPrefix, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rewriteOG([]byte(tt.page), tt.base)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("no error; page %q", got)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestNewNamesAMissingFileTheWorkerWouldKeep(t *testing.T) {
	root := builtRoot(t)
	os.Remove(filepath.Join(root, "web", "icon-512.png"))
	if _, err := New(Config{Root: root}); err == nil || !strings.Contains(err.Error(), "/web/icon-512.png") {
		t.Fatalf("error %v, want one naming /web/icon-512.png", err)
	}
}

var workerConfigRE = regexp.MustCompile(`(?m)^const config = (.*);$`)

func TestTheWorkerPrecachesTheShellAndLeavesDataLive(t *testing.T) {
	_, js := served(t, Config{Root: builtRoot(t)}, "/app-worker.js")
	for _, want := range []string{`"/web/app.wasm"`, `"/app.js"`, `"/wasm_exec.js"`, `"/app.css"`, `"/web/icon-maskable-512.png"`, `"/"`,
		"const files = [...new Set([...resourcesToCache, ...config.pages])];", "isLive(url.pathname)", "config.pages.includes(url.pathname)",
		`{ condition: { urlPattern: prefix + "*" }, source: "network" }`} {
		if !strings.Contains(js, want) {
			t.Errorf("the worker lacks %s", want)
		}
	}
	if strings.Contains(js, "clients.claim") {
		t.Error("the worker claims the page that installs it: go-app would offer a pointless reload")
	}
	if strings.Contains(js, "{{") {
		t.Errorf("the worker holds a placeholder not filled in: %.80q", js[strings.Index(js, "{{"):])
	}
	m := workerConfigRE.FindStringSubmatch(js)
	if m == nil {
		t.Fatal("the worker has no config")
	}
	var c workerConfig
	if err := json.Unmarshal([]byte(m[1]), &c); err != nil {
		t.Fatalf("the worker's config %s: %v", m[1], err)
	}
	if !slices.Equal(c.Live, []string{"/sapi/", "/api/"}) {
		t.Errorf("live data under %q, want /sapi/ and /api/", c.Live)
	}
	if routes := pages.Paths(); len(routes) == 0 || !slices.Equal(c.Pages, routes) {
		t.Errorf("the worker's pages are %q, want the routes %q", c.Pages, routes)
	}
}

func TestTheWorkerTemplateHoldsEachPlaceholderOnce(t *testing.T) {
	for _, tmpl := range []string{
		"const v = {{.Version}}; const r = {{.ResourcesToCache}};",
		"const v = {{.Version}}; const r = {{.ResourcesToCache}}; const c = {{.WorkerConfig}}; // {{.WorkerConfig}}",
		"const r = {{.ResourcesToCache}}; const c = {{.WorkerConfig}};",
	} {
		if _, err := workerTemplate(tmpl, workerConfig{}); err == nil {
			t.Errorf("no error for %q", tmpl)
		}
	}
}

func TestAppJSTakesTheWorkersModuleAndWaitsForTheFirstPaint(t *testing.T) {
	_, js := served(t, Config{Root: builtRoot(t)}, "/app.js")
	for _, want := range []string{"fetchWithProgress = (url) => url;",
		"WebAssembly.instantiateStreaming = (url, imports) =>\n    riskchartCompile(url)",
		".then((r) => riskchartAfterFirstPaint(() => r), (err) => {",
		`goappInitWebAssembly = () =>
  typeof WebAssembly === "object" || !goappCanLoadWebAssembly() ? riskchartInitWebAssembly() : riskchartNoApp(`,
		"goappInitServiceWorker = () => riskchartAfterAppDrawn(riskchartRegisterWorker);",
		"function riskchartOnVisible(f)", `fetchWithProgress("/web/app.wasm", showProgress)`, "\ngoappInitServiceWorker();\n"} {
		if !strings.Contains(js, want) {
			t.Errorf("app.js lacks %s", want)
		}
	}
	// The patch replaces go-app's functions by assignment: it must run before go-app's first call.
	if patch, call := strings.Index(js, "goappInitServiceWorker = "), strings.Index(js, "\ngoappInitServiceWorker();\n"); patch > call {
		t.Error("the loader patch comes after go-app's first call")
	}
	if strings.HasPrefix(strings.TrimSpace(js), `"use strict"`) {
		t.Error("app.js starts in strict mode: go-app's code would run strict")
	}
}

func TestTheLoaderPatchFailsOnAnAppJSWithoutWhatItReplaces(t *testing.T) {
	const patch = "function riskchartDo() {}\nfetchWithProgress = (url) => fetch(url);\n"
	tests := []struct {
		name, goapp string
		ok          bool
	}{
		{"go-app's script as the patch knows it", "go();\nasync function fetchWithProgress(url, p) {}\nfunction go() { fetchWithProgress(u, p); }\n", true},
		{"the function renamed", "go();\nasync function fetchWithProgressOf(url, p) {}\nfunction go() { fetchWithProgressOf(u, p); }\n", false},
		{"the function no longer called", "async function fetchWithProgress(url, p) {}\n", false},
		{"the function declared inside another", "function go() {\n  function fetchWithProgress(url) {}\n  fetchWithProgress(u);\n}\n", false},
		{"a function of the patch's declared by go-app", "async function fetchWithProgress(url, p) {}\nfetchWithProgress(u);\nfunction riskchartDo() {}\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js, err := patchAppJS(tt.goapp, patch)
			if tt.ok && (err != nil || !strings.HasPrefix(js, patch)) {
				t.Fatalf("error %v; app.js %.80q", err, js)
			}
			if !tt.ok && err == nil {
				t.Fatalf("no error; app.js %q", js)
			}
		})
	}
	if _, err := patchAppJS("async function fetchWithProgress(url) {}\nfetchWithProgress(u);\n", "function riskchartDo() {}\n"); err == nil {
		t.Error("no error for a patch that replaces nothing")
	}
	// The patch wraps the instantiation go-app's loader reads at its call.
	const wraps = patch + "if (x) {\n  WebAssembly.instantiateStreaming = (s, i) => s;\n}\n"
	const loads = "go();\nasync function fetchWithProgress(url, p) {}\nfunction go() { let i = WebAssembly.instantiateStreaming; i(fetchWithProgress(u, p)); }\n"
	if _, err := patchAppJS(loads, wraps); err != nil {
		t.Errorf("go-app reading instantiateStreaming: %v", err)
	}
	if _, err := patchAppJS(strings.Replace(loads, "= WebAssembly.instantiateStreaming;", "= WebAssembly.instantiate;", 1), wraps); err == nil {
		t.Error("no error when go-app no longer reads instantiateStreaming")
	}
}

func TestWebFilesComeCompressedWhenTheBrowserTakesIt(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, encoding string
		status               int
		wantEncoding, body   string
	}{
		{"app.wasm to a browser taking gzip", "/web/app.wasm", "gzip", 200, "gzip", "app.wasm"},
		{"ECharts to a browser taking gzip", "/web/echarts.min.js", "gzip, deflate, zstd", 200, "gzip", "echarts.min.js"},
		{"app.wasm to one that does not", "/web/app.wasm", "", 200, "", "app.wasm"},
		{"a style sheet", "/web/embed.css", "gzip", 200, "", "embed.css"},
		{"the demo page", "/embed/demo", "", 200, "", "embed-demo.html"},
		{"a path out of web/", "/web/../wasm_exec.js", "", 404, "", ""},
		{"the worker's template, which is served only filled in", "/web/app-worker.js", "", 404, "", ""},
		{"the loader patch, which is served only inside app.js", "/web/loader-patch.js", "", 404, "", ""},
		{"the Go source that embeds them", "/web/web.go", "", 404, "", ""},
		{"a file that is not there", "/web/nothing.js", "", 404, "", ""},
		{"a folder, which is not listed", "/web/bench/", "", 404, "", ""},
		{"a folder without its slash, which is not sent to the listing", "/web/bench", "", 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path = tt.path
			if tt.encoding != "" {
				req.Header.Set("Accept-Encoding", tt.encoding)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("HTTP %d, want %d", rec.Code, tt.status)
			}
			if tt.status != 200 {
				return
			}
			if got := rec.Header().Get("Content-Encoding"); got != tt.wantEncoding {
				t.Fatalf("Content-Encoding %q, want %q", got, tt.wantEncoding)
			}
			var body io.Reader = rec.Body
			if tt.wantEncoding == "gzip" {
				if body, err = gzip.NewReader(rec.Body); err != nil {
					t.Fatal(err)
				}
			}
			if b, _ := io.ReadAll(body); string(b) != tt.body {
				t.Fatalf("body %q, want %q", b, tt.body)
			}
		})
	}
}

// TestEveryPageStartsCompilingAppWasmFirst: every page of the app starts
// app.wasm's download and compile in a worker with its first script, and none
// preloads app.wasm, whose body the page would then read on its main thread
// before the first paint (docs/startup.md, "What the preload cost"); the
// service worker keeps the worker's script with the app.
func TestEveryPageStartsCompilingAppWasmFirst(t *testing.T) {
	root := builtRoot(t)
	script := regexp.MustCompile(`<script[^>]*\ssrc="([^"]+)"[^>]*>`)
	for _, path := range []string{"/", "/?contract_code=ETH-USDT&period=5min", "/tiers", "/limits", "/embed/chart", "/embed/tiers"} {
		t.Run(path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, path)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			if strings.Contains(body, `href="/web/app.wasm`) {
				t.Error("the page preloads app.wasm")
			}
			head, _, _ := strings.Cut(body, "</head>")
			var blocking []string // the head's scripts that run in order, as the parser meets them
			for _, m := range script.FindAllStringSubmatch(head, -1) {
				if !strings.Contains(m[0], " defer") && !strings.Contains(m[0], " async") {
					blocking = append(blocking, m[1])
				}
			}
			if len(blocking) == 0 || blocking[0] != "/web/app-start.js" {
				t.Errorf("the head's first scripts are %q, want /web/app-start.js first", blocking)
			}
		})
	}
	status, worker := served(t, Config{Root: root}, "/app-worker.js")
	if status != http.StatusOK || !strings.Contains(worker, `"/web/app-compile.js"`) {
		t.Errorf("the service worker (HTTP %d) does not keep /web/app-compile.js", status)
	}
}
