package bundle

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/firstdata"
)

// The cache keeps the pages sent most recently within its bound: a page
// sent again (get) counts as recent, a page put twice counts once, and a
// page larger than the bound is not kept.
func TestThePagesKeptAreTheOnesSentLast(t *testing.T) {
	page := bytes.Repeat([]byte("x"), 100)
	size := (&sentPage{etag: "a", body: page}).size() // every key here is one byte long
	for _, tt := range []struct {
		name  string
		steps []string // "put k", "get k", or "big k": a page larger than the bound
		kept  []string
	}{
		{"two fit, the third pushes out the first", []string{"put a", "put b", "put c"}, []string{"b", "c"}},
		{"a page sent again stays", []string{"put a", "put b", "get a", "put c"}, []string{"a", "c"}},
		{"a page put twice counts once", []string{"put a", "put a", "put b"}, []string{"a", "b"}},
		{"a page larger than the bound is not kept", []string{"put a", "big b"}, []string{"a"}},
		{"a miss changes nothing", []string{"put a", "put b", "get z", "put c"}, []string{"b", "c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newPageCache(2*size + size/2)
			for _, s := range tt.steps {
				op, key, _ := strings.Cut(s, " ")
				switch op {
				case "put":
					c.put(&sentPage{etag: key, body: page})
				case "big":
					c.put(&sentPage{etag: key, body: bytes.Repeat(page, 3)})
				case "get":
					c.get(key)
				}
			}
			var kept []string
			for _, k := range []string{"a", "b", "c", "z"} {
				if _, ok := c.get(k); ok {
					kept = append(kept, k)
				}
			}
			if !slices.Equal(kept, tt.kept) || c.order.Len() != len(tt.kept) || c.bytes != len(tt.kept)*size {
				t.Errorf("kept %v (%d pages, %d bytes), want %v (%d bytes)", kept, c.order.Len(), c.bytes, tt.kept, len(tt.kept)*size)
			}
		})
	}
}

// A page sent whole is kept as it was sent, in each coding, and sent again
// from there, to any browser: the same bytes and headers, without a render
// (counted in allocations: a tenth of one's at most). A page that holds
// the viewer's tiers is rendered for each request and never kept.
func TestAPageSentAgainIsTheOneKept(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	kept := h.(*handler).keptPages
	contracts, tiers := twoContracts(), benchTiers()
	serve := func(url, accept string, tiers firstdata.TiersLookup) *httptest.ResponseRecorder {
		rec := getWith(withFirstData(h, contracts, tiers), url, map[string]string{"Accept-Encoding": accept})
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: HTTP %d, want 200", url, rec.Code)
		}
		return rec
	}
	headers := []string{"Content-Type", "Content-Encoding", "Content-Length", "Cache-Control", "ETag", "Vary"}
	for _, accept := range []string{"gzip, deflate, br, zstd", "gzip", "identity"} {
		t.Run("Accept-Encoding "+accept, func(t *testing.T) {
			first := serve(chartView, accept, nil)
			before := kept.order.Len()
			again := serve(chartView, accept, nil)
			if !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) {
				t.Errorf("sent again, %d bytes unlike the %d sent first", again.Body.Len(), first.Body.Len())
			}
			for _, k := range headers {
				if a, b := again.Header().Values(k), first.Header().Values(k); !slices.Equal(a, b) {
					t.Errorf("sent again, %s %q; first %q", k, a, b)
				}
			}
			if kept.order.Len() != before {
				t.Errorf("sent again, %d pages kept, %d before", kept.order.Len(), before)
			}
			render := freshPages(t, chartView, func(url string) *httptest.ResponseRecorder { return serve(url, accept, nil) })
			rendering := testing.AllocsPerRun(5, func() { render() })
			sentAgain := testing.AllocsPerRun(5, func() { serve(chartView, accept, nil) })
			if sentAgain > rendering/10 {
				t.Errorf("sent again, the page made %.0f allocations, a render %.0f: it was rendered", sentAgain, rendering)
			}
			before = kept.order.Len()
			withTiers := testing.AllocsPerRun(5, func() {
				if rec := serve(chartView, accept, tiers); rec.Header().Get("ETag") != "" {
					t.Fatalf("with the viewer's tiers, ETag %q", rec.Header().Get("ETag"))
				}
			})
			if withTiers < rendering/2 || kept.order.Len() != before {
				t.Errorf("with the viewer's tiers, %.0f allocations (a render: %.0f) and %d pages kept (%d before): want each rendered, none kept", withTiers, rendering, kept.order.Len(), before)
			}
		})
	}
}

// Each page answered is counted once, under how it was answered, and the
// kept pages' size is what the cache holds: riskchart_pages_total and
// riskchart_pages_kept_bytes on /metrics (docs/deploy.md#metrics).
func TestPagesAreCountedByHowTheyWereAnswered(t *testing.T) {
	reg := prometheus.NewRegistry()
	h, err := New(Config{Root: builtRoot(t), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	contracts, tiers := twoContracts(), benchTiers()
	etag := "" // the brotli page's, from the first step
	for _, step := range []struct {
		name   string
		url    string
		accept string
		tiers  firstdata.TiersLookup
		reval  bool // sent with If-None-Match: the brotli page's ETag
		answer string
	}{
		{"first asked for", chartView, "br", nil, false, "rendered"},
		{"asked for again", chartView, "br", nil, false, "kept"},
		{"in another coding", chartView, "gzip", nil, false, "rendered"},
		{"in that coding again", chartView, "gzip", nil, false, "kept"},
		{"revalidated", chartView, "br", nil, true, "revalidated"},
		{"with the viewer's tiers", chartView, "br", tiers, false, "viewer"},
		{"with the viewer's tiers again", chartView, "br", tiers, false, "viewer"},
		{"another view", "/?contract_code=BTC-USDT&period=1hour", "br", nil, false, "rendered"},
		{"the first view once more", chartView, "br", nil, false, "kept"},
	} {
		before, _ := pageCounts(t, reg)
		headers := map[string]string{"Accept-Encoding": step.accept}
		if step.reval {
			headers["If-None-Match"] = etag
		}
		rec := getWith(withFirstData(h, contracts, step.tiers), step.url, headers)
		if want := map[bool]int{false: http.StatusOK, true: http.StatusNotModified}[step.reval]; rec.Code != want {
			t.Fatalf("%s: HTTP %d, want %d", step.name, rec.Code, want)
		}
		if etag == "" {
			etag = rec.Header().Get("ETag")
		}
		after, held := pageCounts(t, reg)
		for _, a := range []string{"revalidated", "kept", "rendered", "viewer"} {
			want := before[a]
			if a == step.answer {
				want++
			}
			if after[a] != want {
				t.Errorf("%s: riskchart_pages_total{answer=%q} went from %v to %v, want %v", step.name, a, before[a], after[a], want)
			}
		}
		if want := float64(h.(*handler).keptPages.held()); held != want || held == 0 {
			t.Errorf("%s: riskchart_pages_kept_bytes %v, the cache holds %v", step.name, held, want)
		}
	}
	if _, err := New(Config{Root: builtRoot(t), Registry: reg}); err == nil {
		t.Error("a second front end registered its pages' metrics in the same registry without an error")
	}
}

// pageCounts reads riskchart_pages_total by answer, and
// riskchart_pages_kept_bytes, from reg.
func pageCounts(t *testing.T, reg *prometheus.Registry) (answers map[string]float64, keptBytes float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	answers = map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "riskchart_pages_total":
				for _, l := range m.GetLabel() {
					if l.GetName() == "answer" {
						answers[l.GetValue()] = m.GetCounter().GetValue()
					}
				}
			case "riskchart_pages_kept_bytes":
				keptBytes = m.GetGauge().GetValue()
			}
		}
	}
	return answers, keptBytes
}

// A page's ETag names the deployment it is of: after a deploy, a browser
// revalidating the page it holds gets the new one (naming the new app.wasm
// and styles), not a 304 that keeps the old.
func TestAPageOfAnotherDeploymentIsNotRevalidated(t *testing.T) {
	const view = "/?contract_code=ETH-USDT&period=5min"
	serve := func(root string, ifNoneMatch string) *httptest.ResponseRecorder {
		h, err := New(Config{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		return getWith(h, view, map[string]string{"If-None-Match": ifNoneMatch})
	}
	old, next := builtRoot(t), builtRoot(t)
	if err := os.WriteFile(filepath.Join(next, "web", "app.wasm"), []byte("app.wasm v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	held := serve(old, "")
	tag := held.Header().Get("ETag")
	if held.Code != http.StatusOK || tag == "" {
		t.Fatalf("the old deployment's page: HTTP %d, ETag %q", held.Code, tag)
	}
	if again := serve(old, tag); again.Code != http.StatusNotModified {
		t.Fatalf("the same deployment revalidated: HTTP %d, want 304", again.Code)
	}
	if got := serve(next, tag); got.Code != http.StatusOK || got.Header().Get("ETag") == tag {
		t.Fatalf("the next deployment revalidated with the old page's tag: HTTP %d, ETag %s; want 200 under another tag", got.Code, got.Header().Get("ETag"))
	}
}

// Only a page that must be rendered is charged to its client's rate
// (firstdata.Render): a page kept, a revalidation and a file cost nothing,
// and a render past the rate is answered 429 with Retry-After, naming the
// setting, and is not kept.
func TestOnlyARenderIsChargedToTheClientsRate(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	left, charged := 2, 0
	admit := func() (bool, time.Duration) {
		charged++
		if left == 0 {
			return false, 1500 * time.Millisecond
		}
		left--
		return true, 0
	}
	contracts, tiers := twoContracts(), benchTiers()
	etag := ""
	for _, step := range []struct {
		name    string
		url     string
		tiers   firstdata.TiersLookup
		reval   bool
		status  int
		charged int
	}{
		{"a view first asked for", chartView, nil, false, http.StatusOK, 1},
		{"the same view again", chartView, nil, false, http.StatusOK, 1},
		{"revalidated", chartView, nil, true, http.StatusNotModified, 1},
		{"a file", "/wasm_exec.js", nil, false, http.StatusOK, 1},
		{"another view", "/?contract_code=BTC-USDT&period=1hour", nil, false, http.StatusOK, 2},
		{"a made-up view past the rate", "/?contract_code=BTC-USDT&period=4hour&x=1", nil, false, http.StatusTooManyRequests, 3},
		{"a view kept, past the rate", chartView, nil, false, http.StatusOK, 3},
		{"the viewer's tiers, rendered each time, past the rate", chartView, tiers, false, http.StatusTooManyRequests, 4},
	} {
		headers := map[string]string{"Accept-Encoding": "br"}
		if step.reval {
			headers["If-None-Match"] = etag
		}
		withRate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			withFirstData(h, contracts, step.tiers).ServeHTTP(w, r.WithContext(firstdata.WithRender(r.Context(), admit)))
		})
		rec := getWith(withRate, step.url, headers)
		if etag == "" {
			etag = rec.Header().Get("ETag")
		}
		if rec.Code != step.status || charged != step.charged {
			t.Fatalf("%s: HTTP %d with %d renders charged, want %d with %d", step.name, rec.Code, charged, step.status, step.charged)
		}
		if rec.Code == http.StatusTooManyRequests {
			if got := rec.Header().Get("Retry-After"); got != "2" || rec.Header().Get("Cache-Control") != "no-store" || !strings.Contains(rec.Body.String(), "RISKCHART_CLIENT_RATE") {
				t.Errorf("%s: Retry-After %q, Cache-Control %q, body %q: want 2 (1.5 s rounded up), no-store, the setting named", step.name, got, rec.Header().Get("Cache-Control"), rec.Body.String())
			}
		}
	}
}
