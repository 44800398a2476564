package bundle

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

func brotliOf(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, brotli.BestCompression)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// getWith is h's answer to a GET of path with headers, an empty one left out.
func getWith(h http.Handler, path string, headers map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decoded is body decoded from encoding ("" for none).
func decoded(t *testing.T, encoding string, body []byte) string {
	t.Helper()
	var r io.Reader = bytes.NewReader(body)
	switch encoding {
	case "br":
		r = brotli.NewReader(r)
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatalf("gzip body: %v", err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s body: %v", encoding, err)
	}
	return string(b)
}

func TestWebFilesComeInTheEncodingTheBrowserPrefers(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, accept, method string
		want                       string // Content-Encoding
		contentType                string
	}{
		{"Chromium's header: brotli", "/web/app.wasm", "gzip, deflate, br, zstd", "GET", "br", "application/wasm"},
		{"brotli alone", "/web/app.wasm", "br", "GET", "br", "application/wasm"},
		{"gzip alone", "/web/app.wasm", "gzip", "GET", "gzip", "application/wasm"},
		{"brotli refused by weight", "/web/app.wasm", "gzip, br;q=0", "GET", "gzip", "application/wasm"},
		{"gzip weighed above brotli", "/web/app.wasm", "br;q=0.5, gzip;q=0.8", "GET", "gzip", "application/wasm"},
		{"identity only", "/web/app.wasm", "identity", "GET", "", "application/wasm"},
		{"any coding", "/web/app.wasm", "*", "GET", "br", "application/wasm"},
		{"any coding but brotli", "/web/app.wasm", "*, br;q=0", "GET", "gzip", "application/wasm"},
		{"everything refused but identity", "/web/app.wasm", "*;q=0", "GET", "", "application/wasm"},
		{"a weight that does not parse", "/web/app.wasm", "br;q=high", "GET", "", "application/wasm"},
		{"upper case", "/web/echarts.min.js", "BR", "GET", "br", "application/javascript"},
		{"no header", "/web/echarts.min.js", "", "GET", "", "application/javascript"},
		{"a file the build does not compress", "/web/embed.css", "br, gzip", "GET", "", "text/css; charset=utf-8"},
		{"the first-paint script, compressed at start", "/web/chart-boot.js", "gzip, deflate, br, zstd", "GET", "br", "application/javascript"},
		{"the first script, compressed at start", "/web/app-start.js", "gzip", "GET", "gzip", "application/javascript"},
		{"the compile worker's script, to a browser taking neither", "/web/app-compile.js", "", "GET", "", "application/javascript"},
		{"the vector icon, compressed at start", "/web/icon.svg", "br", "GET", "br", "image/svg+xml"},
		{"HEAD of a script compressed at start", "/web/chart-boot.js", "br", "HEAD", "br", "application/javascript"},
		{"HEAD of app.wasm in brotli", "/web/app.wasm", "br", "HEAD", "br", "application/wasm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("HTTP %d", res.StatusCode)
			}
			if got := res.Header.Get("Content-Encoding"); got != tt.want {
				t.Fatalf("Content-Encoding %q, want %q", got, tt.want)
			}
			if got := res.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := res.Header.Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", got)
			}
			body := rec.Body.Bytes()
			length, err := strconv.Atoi(res.Header.Get("Content-Length"))
			if err != nil {
				t.Fatalf("Content-Length %q", res.Header.Get("Content-Length"))
			}
			if tt.method == "HEAD" {
				if len(body) != 0 || length == 0 {
					t.Fatalf("HEAD: %d bytes of body, Content-Length %d", len(body), length)
				}
				return
			}
			if length != len(body) {
				t.Errorf("Content-Length %d for %d bytes", length, len(body))
			}
			if got, want := decoded(t, tt.want, body), tt.path[len("/web/"):]; got != want {
				t.Errorf("body %q, want %q", got, want)
			}
		})
	}
}

func TestARangeOfACompressedFileCountsInItsEncodedBytes(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	get := func(accept, rng, ifRange string) *httptest.ResponseRecorder {
		return getWith(h, "/web/app.wasm", map[string]string{"Accept-Encoding": accept, "Range": rng, "If-Range": ifRange})
	}
	full := map[string]*httptest.ResponseRecorder{"br": get("br", "", ""), "gzip": get("gzip", "", "")}
	if full["br"].Header().Get("ETag") == full["gzip"].Header().Get("ETag") {
		t.Fatalf("brotli and gzip share the ETag %s: a cache could mix their bytes", full["br"].Header().Get("ETag"))
	}
	for enc, whole := range full {
		part := get(enc, "bytes=2-5", "")
		if part.Code != http.StatusPartialContent || part.Header().Get("Content-Encoding") != enc {
			t.Fatalf("%s: HTTP %d, Content-Encoding %q, want 206 in %s", enc, part.Code, part.Header().Get("Content-Encoding"), enc)
		}
		if want := whole.Body.Bytes()[2:6]; !bytes.Equal(part.Body.Bytes(), want) {
			t.Errorf("%s: range %x, want %x", enc, part.Body.Bytes(), want)
		}
		if got := part.Header().Get("Content-Range"); got != "bytes 2-5/"+strconv.Itoa(whole.Body.Len()) {
			t.Errorf("%s: Content-Range %q", enc, got)
		}
		if got := part.Header().Get("Content-Length"); got != "4" {
			t.Errorf("%s: Content-Length %q of a 4-byte range", enc, got)
		}
	}
	// A range asked of the gzip representation, sent to a browser now taking brotli: the whole file.
	if rec := get("br", "bytes=2-5", full["gzip"].Header().Get("ETag")); rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), full["br"].Body.Bytes()) {
		t.Errorf("If-Range of another encoding: HTTP %d, %d bytes; want 200 and the whole brotli file", rec.Code, rec.Body.Len())
	}
	if rec := get("br", "bytes=999999-", ""); rec.Code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("a range past the end: HTTP %d, want 416", rec.Code)
	}
}

// TestASiblingOlderThanItsFileIsNotSent: app.wasm rebuilt alone, or its
// compression cut short, leaves the siblings of the build before, which
// would answer another module under app.wasm's name. The file is sent as it
// is, or in a coding whose sibling is as new.
func TestASiblingOlderThanItsFileIsNotSent(t *testing.T) {
	root := builtRoot(t)
	web := filepath.Join(root, "web")
	if err := os.WriteFile(filepath.Join(web, "app.wasm"), []byte("a newer app.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for ext, at := range map[string]time.Time{"": now, ".br": now.Add(-time.Hour), ".gz": now} {
		if err := os.Chtimes(filepath.Join(web, "app.wasm"+ext), at, at); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ accept, coding, body string }{
		{"br", "", "a newer app.wasm"},   // the brotli sibling is the old build's
		{"gzip, br", "gzip", "app.wasm"}, // the gzip sibling is as new (builtRoot's content)
		{"identity", "", "a newer app.wasm"},
	} {
		rec := getWith(h, "/web/app.wasm", map[string]string{"Accept-Encoding": tc.accept})
		got := rec.Header().Get("Content-Encoding")
		if rec.Code != http.StatusOK || got != tc.coding || decoded(t, got, rec.Body.Bytes()) != tc.body {
			t.Errorf("Accept-Encoding %q: HTTP %d, coding %q, body %q; want %q, %q", tc.accept, rec.Code, got, decoded(t, got, rec.Body.Bytes()), tc.coding, tc.body)
		}
	}
}

// TestEveryFieldLineOfAcceptEncodingAndIfNoneMatchCounts: a client or a
// proxy may send a list field's items on several field lines (RFC 9110,
// 5.3), and each line counts as if the lines were one, comma-separated: for
// a page, a file put together at start, a web/ file compressed at start and
// one the build compressed.
func TestEveryFieldLineOfAcceptEncodingAndIfNoneMatchCounts(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	h = withFirstData(h, twoContracts(), nil)
	get := func(path string, header http.Header) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header = header
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, path := range []string{chartView, "/app.css", "/web/chart-boot.js", "/web/app.wasm"} {
		t.Run(path, func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				lines  []string // Accept-Encoding
				coding string
			}{
				{"brotli on the second line", []string{"identity", "br"}, "br"},
				{"gzip on the second line", []string{"identity", "gzip"}, "gzip"},
				{"brotli refused on the second line", []string{"br, gzip", "br;q=0"}, "gzip"},
			} {
				if got := get(path, http.Header{"Accept-Encoding": tc.lines}); got.Code != http.StatusOK || got.Header().Get("Content-Encoding") != tc.coding {
					t.Errorf("%s, Accept-Encoding %q: HTTP %d, Content-Encoding %q; want 200, %q", tc.name, tc.lines, got.Code, got.Header().Get("Content-Encoding"), tc.coding)
				}
			}
			br := http.Header{"Accept-Encoding": {"br"}}
			sent := get(path, br)
			tag := sent.Header().Get("ETag")
			if sent.Code != http.StatusOK || tag == "" {
				t.Fatalf("in brotli: HTTP %d, ETag %q", sent.Code, tag)
			}
			for _, tc := range []struct {
				name   string
				lines  []string // If-None-Match
				status int
			}{
				{"its tag on the second line", []string{`"other"`, tag}, http.StatusNotModified},
				{"its tag in a list on the second line", []string{`"a", "b"`, `"c", ` + tag}, http.StatusNotModified},
				{"its tag on neither line", []string{`"a"`, `"b"`}, http.StatusOK},
			} {
				if got := get(path, http.Header{"Accept-Encoding": {"br"}, "If-None-Match": tc.lines}); got.Code != tc.status {
					t.Errorf("%s, If-None-Match %q: HTTP %d, want %d", tc.name, tc.lines, got.Code, tc.status)
				}
			}
			if strings.HasPrefix(tag, "W/") {
				return // If-Match compares strongly: a page's weak tag never matches
			}
			for _, tc := range []struct {
				name   string
				lines  []string // If-Match
				status int
			}{
				{"its tag on the second line", []string{`"other"`, tag}, http.StatusOK},
				{"its tag on neither line", []string{`"a"`, `"b"`}, http.StatusPreconditionFailed},
			} {
				if got := get(path, http.Header{"Accept-Encoding": {"br"}, "If-Match": tc.lines}); got.Code != tc.status {
					t.Errorf("%s, If-Match %q: HTTP %d, want %d", tc.name, tc.lines, got.Code, tc.status)
				}
			}
		})
	}
	// The files http.ServeFile answers (the embed demo, web/'s stylesheet)
	// have no tag: "*" is the only item of a list that matches them, and it
	// counts on any line.
	for _, path := range []string{"/embed/demo", "/web/embed.css"} {
		for _, tc := range []struct {
			field  string
			lines  []string
			status int
		}{
			{"If-None-Match", []string{`"a"`, "*"}, http.StatusNotModified},
			{"If-None-Match", []string{`"a"`, `"b"`}, http.StatusOK},
			{"If-Match", []string{`"a"`, "*"}, http.StatusOK},
			{"If-Match", []string{`"a"`, `"b"`}, http.StatusPreconditionFailed},
		} {
			if got := get(path, http.Header{tc.field: tc.lines}); got.Code != tc.status {
				t.Errorf("%s, %s %q: HTTP %d, want %d", path, tc.field, tc.lines, got.Code, tc.status)
			}
		}
	}
}

// TestAFileOfAnotherBuildIsNotRevalidated: a browser (or the service
// worker's precache, through the browser's cache) revalidating the app.wasm
// or ECharts of one build with a replica of another gets the other's file,
// not a 304 that would keep the first build's bytes under the second's
// Riskchart-Version (docs/architecture.md#the-page-before-the-app: what
// the worker keeps and shows is of its own build). Builds that fix their files' times (reproducible
// images) give two builds' files the same time, and a small change the same
// compressed size.
func TestAFileOfAnotherBuildIsNotRevalidated(t *testing.T) {
	files := []string{"app.wasm", "echarts.min.js"}
	older, newer := buildAtOneTime(t, "build-1 ", files), buildAtOneTime(t, "build-2 ", files) // same sizes, same times
	for _, path := range []string{"/web/app.wasm", "/web/echarts.min.js"} {
		for _, coding := range []string{"br", "gzip"} {
			first := getWith(older, path, map[string]string{"Accept-Encoding": coding})
			tag := first.Header().Get("ETag")
			if first.Code != http.StatusOK || tag == "" {
				t.Fatalf("%s in %s from the older build: HTTP %d, ETag %q", path, coding, first.Code, tag)
			}
			again := getWith(newer, path, map[string]string{"Accept-Encoding": coding, "If-None-Match": tag})
			if again.Code != http.StatusOK {
				t.Errorf("%s in %s: the newer build answered the older's ETag %s with HTTP %d (ETag %s, %s %s), want 200 with its own file",
					path, coding, tag, again.Code, again.Header().Get("ETag"), VersionHeader, again.Header().Get(VersionHeader))
			}
		}
	}
}

// TestAFileSentUncompressedIsNotRevalidatedAcrossBuilds: the answer to a
// client that takes neither brotli nor gzip (a proxy that strips
// Accept-Encoding) is a representation like the others, with an ETag of its
// bytes (docs/deploy.md#behind-a-reverse-proxy: each with an ETag per encoding), so
// that a replica of another build with files of the same time does not
// answer its revalidation 304, as TestAFileOfAnotherBuildIsNotRevalidated
// checks for brotli and gzip.
func TestAFileSentUncompressedIsNotRevalidatedAcrossBuilds(t *testing.T) {
	files := []string{"app.wasm", "echarts.min.js", "embed.css"}
	older, newer := buildAtOneTime(t, "build-1 ", files), buildAtOneTime(t, "build-2 ", files) // same sizes, same times
	for _, path := range []string{"/web/app.wasm", "/web/echarts.min.js", "/web/embed.css"} {
		t.Run(path, func(t *testing.T) {
			first := getWith(older, path, nil)
			tag, modified := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
			if first.Code != http.StatusOK || tag == "" {
				t.Errorf("uncompressed from the older build: HTTP %d, ETag %q (Last-Modified %q), want an ETag of its bytes", first.Code, tag, modified)
			}
			// What a cache holding it sends: its validators.
			again := getWith(newer, path, map[string]string{"If-None-Match": tag, "If-Modified-Since": modified})
			if again.Code != http.StatusOK {
				t.Errorf("the newer build answered the older's validators (ETag %q, Last-Modified %q) with HTTP %d, want 200 with its own file",
					tag, modified, again.Code)
			}
		})
	}
}

// buildAtOneTime is the handler of a build whose files (each with the
// compressed siblings the build has of it) hold content and their own name,
// all of one time, as builds that fix their files' times have them: two
// such builds' files have the same times, and the same sizes for contents
// of one length.
func buildAtOneTime(t *testing.T, content string, files []string) http.Handler {
	t.Helper()
	fixed := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	root := builtRoot(t)
	web := filepath.Join(root, "web")
	for _, f := range files {
		for _, ext := range []string{"", ".br", ".gz"} {
			name := filepath.Join(web, f+ext)
			if _, err := os.Stat(name); err != nil {
				continue // embed.css: the build compresses it not
			}
			if err := os.WriteFile(name, []byte(content+f+ext), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, fixed, fixed); err != nil {
				t.Fatal(err)
			}
		}
	}
	h, err := New(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
