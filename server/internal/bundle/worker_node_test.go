package bundle

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/firstdata"
)

// workerHarness runs the service worker the server serves (web/app-worker.js,
// filled in) in Node, against a real server, with Cache Storage kept in
// memory, as a browser without static routes runs it. Its steps, read from
// its arguments: "install"; "deploy=<build>", which the test's server reads
// as the build to answer with from then on; "navigate=<path>", a navigation
// the worker answers. It prints what it saw as JSON.
const workerHarness = `
const fs = require("fs");
const vm = require("vm");
const [workerFile, base, ...steps] = process.argv.slice(2);

const abs = (r) => new URL(typeof r === "string" ? r : r.url, base).href;
const wfetch = (r, init) => fetch(typeof r === "string" ? abs(r) : r, init);

class Cache {
  constructor() { this.m = new Map(); }
  async put(r, res) {
    const body = Buffer.from(await res.arrayBuffer());
    this.m.set(abs(r), { status: res.status, statusText: res.statusText, headers: [...res.headers], body });
  }
  async match(r) {
    const e = this.m.get(abs(r));
    return e && new Response(e.body, { status: e.status, statusText: e.statusText, headers: e.headers });
  }
  async addAll(urls) { // as the Cache API's: every answer OK, then all are put
    const answers = await Promise.all(urls.map(async (u) => {
      const res = await wfetch(u);
      if (!res.ok) throw new TypeError("addAll: " + u + " answered HTTP " + res.status);
      return [u, res];
    }));
    for (const [u, res] of answers) await this.put(u, res);
  }
}
const store = new Map();
const caches = {
  async open(n) { if (!store.has(n)) store.set(n, new Cache()); return store.get(n); },
  async keys() { return [...store.keys()]; },
  async delete(n) { return store.delete(n); },
  async match(r, o = {}) {
    for (const [n, c] of store) {
      if (o.cacheName && o.cacheName !== n) continue;
      const hit = await c.match(r);
      if (hit) return hit;
    }
  },
};
const listeners = {};
const self = {
  location: new URL("/app-worker.js", base),
  addEventListener: (t, f) => (listeners[t] = listeners[t] || []).push(f),
  skipWaiting: async () => {},
  registration: { update: async () => {} },
};
vm.runInContext(fs.readFileSync(workerFile, "utf8"), vm.createContext({ self, caches, fetch: wfetch, Request, Response, Headers, URL, console, setTimeout, clearTimeout }));

const dispatch = async (type, event) => {
  const waits = [];
  event.waitUntil = (p) => waits.push(p);
  for (const f of listeners[type] || []) f(event);
  await Promise.all(waits);
};

(async () => {
  const out = [];
  for (const step of steps) {
    const at = step.indexOf("=");
    const [what, arg] = at < 0 ? [step, ""] : [step.slice(0, at), step.slice(at + 1)];
    if (what === "install") {
      try {
        await dispatch("install", {});
        await dispatch("activate", {});
        const kept = {};
        for (const [n, c] of store) for (const [u, e] of c.m) kept[n + " " + new URL(u).pathname] = e.body.toString();
        out.push({ step, installed: true, kept });
      } catch (err) {
        out.push({ step, installed: false, error: String(err) });
      }
    } else if (what === "deploy") {
      await fetch(new URL("/deploy?build=" + arg, base));
      out.push({ step });
    } else if (what === "navigate") {
      let answered;
      const request = { url: abs(arg), method: "GET", mode: "navigate", headers: new Headers(), cache: "default", referrer: "", referrerPolicy: "" };
      await dispatch("fetch", { request, respondWith: (p) => (answered = p) });
      const res = await answered;
      out.push({ step, status: res.status, body: await res.text() });
    }
  }
  console.log(JSON.stringify(out));
})();
`

// harnessStep is one step's report (workerHarness).
type harnessStep struct {
	Step      string            `json:"step"`
	Installed bool              `json:"installed"`
	Error     string            `json:"error"`
	Kept      map[string]string `json:"kept"` // "<cache> <path>" -> body
	Status    int               `json:"status"`
	Body      string            `json:"body"`
}

// deployment is a test server for the worker: two builds of the front end,
// and which one answers which path (a rolling deployment: some requests
// reach a replica of the other build). It records the headers of each
// request.
type deployment struct {
	builds map[string]http.Handler

	mu      sync.Mutex
	current string                   // the build that answers
	other   map[string]bool          // paths the other build answers
	asked   map[string][]http.Header // path and query -> each request's headers
}

func (d *deployment) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/deploy" {
		d.mu.Lock()
		d.current, d.other = r.URL.Query().Get("build"), nil
		d.mu.Unlock()
		return
	}
	d.mu.Lock()
	build := d.current
	if d.other[r.URL.Path] {
		build = map[string]string{"1": "2", "2": "1"}[build]
	}
	d.asked[r.URL.RequestURI()] = append(d.asked[r.URL.RequestURI()], r.Header.Clone())
	d.mu.Unlock()
	d.builds[build].ServeHTTP(w, r)
}

// twoBuilds are two builds of the front end: the second has its own
// app.wasm and glue, and each names its public URL, v1.example or
// v2.example, in its pages.
func twoBuilds(t *testing.T) *deployment {
	t.Helper()
	d := &deployment{builds: map[string]http.Handler{}, asked: map[string][]http.Header{}}
	for _, b := range []string{"1", "2"} {
		root := builtRoot(t)
		os.WriteFile(filepath.Join(root, "web", "app.wasm"), []byte("app.wasm v"+b), 0o644)
		os.WriteFile(filepath.Join(root, "wasm_exec.js"), []byte("// glue v"+b), 0o644)
		for _, ext := range []string{".gz", ".br"} {
			os.Remove(filepath.Join(root, "web", "app.wasm"+ext)) // served as written
		}
		h, err := New(Config{Root: root, PublicURL: mustURL(t, "https://v"+b+".example")})
		if err != nil {
			t.Fatal(err)
		}
		d.builds[b] = h
	}
	return d
}

// runWorker serves the worker of build (of d) and runs steps on it.
func runWorker(t *testing.T, d *deployment, build string, steps ...string) []harnessStep {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		// make installs Node.js with Debian's npm, for echarts: under CI a
		// missing node is a failure, never a pass.
		if os.Getenv("CI") == "true" {
			t.Fatal("no node to run the service worker in (make installs Debian's npm, and node with it); CI=true makes this a failure")
		}
		t.Skip("no node to run the service worker in: run make test, which installs Debian's npm and node with it")
	}
	rec := httptest.NewRecorder()
	d.builds[build].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app-worker.js", nil))
	dir := t.TempDir()
	worker, harness := filepath.Join(dir, "app-worker.js"), filepath.Join(dir, "harness.js")
	os.WriteFile(worker, rec.Body.Bytes(), 0o644)
	os.WriteFile(harness, []byte(workerHarness), 0o644)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	out, err := exec.Command(node, append([]string{harness, worker, srv.URL}, steps...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var report []harnessStep
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the harness printed %s: %v", out, err)
	}
	return report
}

// TestAnInstallKeepsOneBuildOrNothing: a worker installing while a rolling
// deployment runs (docs/deploy.md, "Several replicas with Redis": no sticky
// sessions) may have some of its requests answered by a replica of the
// other build. What it keeps until the next release is then app.wasm of
// one build beside the glue, app.js and pages of the other: it must not
// install on such a mix, and installs when every replica is of its build.
func TestAnInstallKeepsOneBuildOrNothing(t *testing.T) {
	d := twoBuilds(t)
	d.current, d.other = "2", map[string]bool{"/web/app.wasm": true} // the old replica answers app.wasm
	got := runWorker(t, d, "2", "install")[0]
	if got.Installed {
		if wasm, glue := got.Kept["app-"+versionOfBuild(t, d, "2")+" /web/app.wasm"], got.Kept["app-"+versionOfBuild(t, d, "2")+" /wasm_exec.js"]; wasm != "app.wasm v2" || glue != "// glue v2" {
			t.Errorf("the worker of build 2 installed keeping app.wasm %q beside the glue %q: one build's module with the other's files", wasm, glue)
		}
	}
	d.other = nil
	if got := runWorker(t, d, "2", "install")[0]; !got.Installed || got.Kept["app-"+versionOfBuild(t, d, "2")+" /web/app.wasm"] != "app.wasm v2" {
		t.Errorf("every replica of its build: installed %v (%s), kept app.wasm %q", got.Installed, got.Error, got.Kept["app-"+versionOfBuild(t, d, "2")+" /web/app.wasm"])
	}
}

// TestAViewOfAnotherBuildIsNotShownOverThisBuildsFiles: a worker answers a
// URL naming a view from the network, while the page's scripts, styles and
// app.wasm come from its own cache. After a deployment, the network's page
// is the new build's: shown over the old build's files, it would run the
// old app.wasm, app.js and chart-boot.js on the new page until the reload.
// Its path's shell, of the worker's own build, answers instead; a view of
// the worker's own build still comes from the network.
func TestAViewOfAnotherBuildIsNotShownOverThisBuildsFiles(t *testing.T) {
	d := twoBuilds(t)
	d.current = "1"
	report := runWorker(t, d, "1", "install", "navigate=/?contract_code=ETH-USDT", "deploy=2",
		"navigate=/?contract_code=ETH-USDT", "navigate=/embed/tiers?contract_code=ETH-USDT&theme=dark")
	if !report[0].Installed {
		t.Fatalf("the worker of build 1 did not install on build 1: %s", report[0].Error)
	}
	if same, asked := report[1], d.asked["/?contract_code=ETH-USDT"]; !strings.Contains(same.Body, "https://v1.example") || len(asked) == 0 || asked[0].Get("Riskchart-Navigation") == "" {
		t.Errorf("a view on the worker's own build: HTTP %d, the network asked %d times: %.200q", same.Status, len(asked), same.Body)
	}
	for _, got := range report[3:] {
		if !strings.Contains(got.Body, "https://v1.example") {
			build := "neither build"
			if strings.Contains(got.Body, "https://v2.example") {
				build = "build 2"
			}
			t.Errorf("%s, the network on build 2: the worker of build 1 answered HTTP %d, a page of %s", got.Step, got.Status, build)
		}
	}
}

// TestTheWorkersShellRequestsSayTheyAreKept: the server writes the
// viewer's tiers and the contract list into a page being shown, and takes a
// request without Sec-Fetch-Dest (a browser without Fetch Metadata, or a
// proxy that drops it) for one. The worker's requests for the shells it
// keeps until the next release must say what they are.
func TestTheWorkersShellRequestsSayTheyAreKept(t *testing.T) {
	d := twoBuilds(t)
	d.current = "1"
	rec := httptest.NewRecorder()
	d.builds["1"].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app-worker.js", nil))
	m := workerConfigRE.FindStringSubmatch(rec.Body.String())
	var c map[string]any
	if m == nil || json.Unmarshal([]byte(m[1]), &c) != nil {
		t.Fatal("the worker has no config")
	}
	header, _ := c["shell"].(string)
	if header == "" {
		t.Fatalf("the worker's config %s names no header for the requests of its shells", m[1])
	}
	if got := runWorker(t, d, "1", "install")[0]; !got.Installed {
		t.Fatalf("not installed: %s", got.Error)
	}
	for _, p := range []string{"/", "/tiers", "/embed/tiers"} {
		if len(d.asked[p]) == 0 {
			t.Fatalf("the install did not ask for %s", p)
		}
		for _, h := range d.asked[p] {
			if h.Get(header) == "" {
				t.Errorf("the install asked for %s without %s: the server may take it for a page being shown", p, header)
			}
		}
	}
}

// versionOfBuild is the version build of d's worker names.
func versionOfBuild(t *testing.T, d *deployment, build string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	d.builds[build].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app-worker.js", nil))
	m := versionRE.FindStringSubmatch(rec.Body.String())
	if m == nil {
		t.Fatal("the worker names no version")
	}
	return m[1]
}

// TestEveryAnswerOfTheFrontEndNamesItsBuild: the worker tells the answers
// of its own build from those of another by VersionHeader, on a file, a
// page and a revalidation's 304 alike (the browser's cache takes a 304's
// headers for the copy it keeps).
func TestEveryAnswerOfTheFrontEndNamesItsBuild(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app-worker.js", nil))
	version := versionRE.FindStringSubmatch(rec.Body.String())[1]
	for _, p := range []string{"/", "/tiers?contract_code=ETH-USDT", "/embed/limits", "/app.js", "/app.css", "/wasm_exec.js", "/web/app.wasm", "/web/app-start.js", "/web/icon-192.png", "/manifest.webmanifest", "/app-worker.js"} {
		for _, revalidated := range []bool{false, true} {
			req := httptest.NewRequest(http.MethodGet, p, nil)
			req.Header.Set("Accept-Encoding", "br")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if revalidated {
				if tag := rec.Header().Get("ETag"); tag != "" {
					req.Header.Set("If-None-Match", tag)
				} else {
					req.Header.Set("If-Modified-Since", rec.Header().Get("Last-Modified"))
				}
				rec = httptest.NewRecorder()
				h.ServeHTTP(rec, req)
			}
			if revalidated && rec.Code != http.StatusNotModified {
				t.Errorf("GET %s revalidated: HTTP %d, want 304", p, rec.Code)
			}
			if got := rec.Header().Get(VersionHeader); got != version {
				t.Errorf("GET %s (revalidated: %v): HTTP %d, %s %q, want %q", p, revalidated, rec.Code, VersionHeader, got, version)
			}
		}
	}
}

// TestAViewRefusedForTheClientsRateIsAnsweredFromItsShell: a page the
// server must render is refused with 429 when its client's rate is spent
// (firstdata.Render, docs/deploy.md#behind-a-reverse-proxy). The worker
// keeps that path's shell, of its own build, which costs the server nothing
// and runs the app; the 429's note, a page with no app, is no better an
// answer than a 5xx's.
func TestAViewRefusedForTheClientsRateIsAnsweredFromItsShell(t *testing.T) {
	d := twoBuilds(t)
	d.current = "1"
	build := d.builds["1"]
	d.builds["1"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		shell := r.Header.Get(firstdata.ShellHeader) != "" // the install's shells: admitted; any other render: the rate spent
		build.ServeHTTP(w, r.WithContext(firstdata.WithRender(r.Context(), func() (bool, time.Duration) { return shell, 30 * time.Second })))
	})
	report := runWorker(t, d, "1", "install", "navigate=/?contract_code=ETH-USDT", "navigate=/embed/tiers?contract_code=ETH-USDT&theme=dark")
	if !report[0].Installed {
		t.Fatalf("the worker did not install: %s", report[0].Error)
	}
	for _, got := range report[1:] {
		if got.Status != http.StatusOK || !strings.Contains(got.Body, "https://v1.example") {
			t.Errorf("%s, the client's rate spent: the worker answered HTTP %d: %.160q; want its path's shell", got.Step, got.Status, got.Body)
		}
	}
}
