package bundle

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var stylesheetLinkRE = regexp.MustCompile(`<link\b[^>]*\brel="stylesheet"[^>]*>`)

// TestEveryPageLinksOneStylesheet: each page asks for one stylesheet, so
// that a cold page's six connections go to ECharts and the first paint's
// script (docs/performance.md, "One stylesheet").
func TestEveryPageLinksOneStylesheet(t *testing.T) {
	root := builtRoot(t)
	for _, path := range []string{"/", "/tiers", "/limits", "/embed/chart", "/embed/tiers", "/embed/limits"} {
		t.Run(path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, path)
			if status != http.StatusOK {
				t.Fatalf("HTTP %d", status)
			}
			links := stylesheetLinkRE.FindAllString(body, -1)
			if len(links) != 1 || !strings.Contains(links[0], `href="/app.css"`) {
				t.Fatalf("stylesheet links %q, want one, of /app.css", links)
			}
		})
	}
}

// TestTheStylesheetHoldsGoAppsThenOursInEveryEncoding: /app.css is go-app's
// loader styles and then web/'s stylesheets in cascade order, the same once
// decoded whichever encoding the browser takes, each encoding with an ETag
// of its own.
func TestTheStylesheetHoldsGoAppsThenOursInEveryEncoding(t *testing.T) {
	root := builtRoot(t)
	parts := []string{".goapp-app-info", ".from-style{}", ".from-embed{}", ".from-risk{}"}
	for i, f := range []string{"style.css", "embed.css", "risk.css"} {
		if err := os.WriteFile(filepath.Join(root, "web", f), []byte(parts[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	get := func(t *testing.T, accept, ifNoneMatch string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/app.css", nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	tests := []struct{ accept, want string }{
		{"gzip, deflate, br, zstd", "br"},
		{"gzip", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"gzip;q=1, br;q=0.5", "gzip"},
		{"", ""},
		{"identity", ""},
	}
	var raw string
	etags := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.accept, func(t *testing.T) {
			rec := get(t, tt.accept, "")
			if rec.Code != http.StatusOK {
				t.Fatalf("HTTP %d", rec.Code)
			}
			hd := rec.Header()
			if got := hd.Get("Content-Encoding"); got != tt.want {
				t.Fatalf("Content-Encoding %q, want %q", got, tt.want)
			}
			if ct := hd.Get("Content-Type"); ct != "text/css; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.Contains(hd.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary %q lacks Accept-Encoding", hd.Get("Vary"))
			}
			if n, err := strconv.Atoi(hd.Get("Content-Length")); err != nil || n != rec.Body.Len() {
				t.Errorf("Content-Length %q, body %d bytes", hd.Get("Content-Length"), rec.Body.Len())
			}
			css := decoded(t, tt.want, rec.Body.Bytes())
			at := -1
			for _, part := range parts {
				i := strings.Index(css, part)
				if i <= at {
					t.Fatalf("%s is not after what comes before it (at %d, the one before at %d)", part, i, at)
				}
				at = i
			}
			if raw == "" {
				raw = css
			} else if css != raw {
				t.Fatalf("decoded body differs from the first encoding's: %d bytes against %d", len(css), len(raw))
			}
			etag := hd.Get("ETag")
			if other, ok := etags[etag]; ok && other != tt.want {
				t.Fatalf("ETag %s serves both %q and %q", etag, other, tt.want)
			}
			etags[etag] = tt.want
			if again := get(t, tt.accept, etag); again.Code != http.StatusNotModified {
				t.Errorf("a GET with its ETag: HTTP %d, want 304", again.Code)
			}
		})
	}
}

func TestNewNamesAMissingStylesheet(t *testing.T) {
	root := builtRoot(t)
	os.Remove(filepath.Join(root, "web", "risk.css"))
	if _, err := New(Config{Root: root}); err == nil || !strings.Contains(err.Error(), "/web/risk.css") {
		t.Fatalf("error %v, want one naming /web/risk.css", err)
	}
}
