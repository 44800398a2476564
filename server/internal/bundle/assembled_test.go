package bundle

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestTheAssembledFilesComeInTheEncodingTheBrowserPrefers: the files the
// server puts together at start are the same once decoded whichever
// encoding the browser takes, each encoding with an ETag of its own.
func TestTheAssembledFilesComeInTheEncodingTheBrowserPrefers(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path, accept, ifNoneMatch string) *httptest.ResponseRecorder {
		return getWith(h, path, map[string]string{"Accept-Encoding": accept, "If-None-Match": ifNoneMatch})
	}
	files := []struct{ path, contentType, holds string }{
		{"/app.css", "text/css; charset=utf-8", ".goapp-app-info"},
		{"/app.js", "application/javascript", "riskchartWatchStream"}, // the loader patch
		{"/wasm_exec.js", "application/javascript", "// glue"},        // builtRoot's
	}
	accepts := []struct{ accept, want string }{
		{"gzip, deflate, br, zstd", "br"},
		{"gzip", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"gzip;q=1, br;q=0.5", "gzip"},
		{"", ""},
		{"identity", ""},
	}
	for _, f := range files {
		var raw string
		etags := map[string]string{}
		for _, a := range accepts {
			t.Run(f.path+" "+a.accept, func(t *testing.T) {
				rec := get(f.path, a.accept, "")
				if rec.Code != http.StatusOK {
					t.Fatalf("HTTP %d", rec.Code)
				}
				hd := rec.Header()
				if got := hd.Get("Content-Encoding"); got != a.want {
					t.Fatalf("Content-Encoding %q, want %q", got, a.want)
				}
				if ct := hd.Get("Content-Type"); ct != f.contentType {
					t.Errorf("Content-Type %q, want %q", ct, f.contentType)
				}
				if !strings.Contains(hd.Get("Vary"), "Accept-Encoding") {
					t.Errorf("Vary %q lacks Accept-Encoding", hd.Get("Vary"))
				}
				if n, err := strconv.Atoi(hd.Get("Content-Length")); err != nil || n != rec.Body.Len() {
					t.Errorf("Content-Length %q, body %d bytes", hd.Get("Content-Length"), rec.Body.Len())
				}
				body := decoded(t, a.want, rec.Body.Bytes())
				if !strings.Contains(body, f.holds) {
					t.Fatalf("the body lacks %q", f.holds)
				}
				if raw == "" {
					raw = body
				} else if body != raw {
					t.Fatalf("decoded body differs from the first encoding's: %d bytes against %d", len(body), len(raw))
				}
				etag := hd.Get("ETag")
				if other, ok := etags[etag]; ok && other != a.want {
					t.Fatalf("ETag %s serves both %q and %q", etag, other, a.want)
				}
				etags[etag] = a.want
				if again := get(f.path, a.accept, etag); again.Code != http.StatusNotModified {
					t.Errorf("a GET with its ETag: HTTP %d, want 304", again.Code)
				}
			})
		}
	}
}
