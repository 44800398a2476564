package bundle

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var stylesheetLinkRE = regexp.MustCompile(`<link\b[^>]*\brel="stylesheet"[^>]*>`)

// TestEveryPageLinksOneStylesheet: each page asks for one stylesheet, so
// that a cold page's six connections go to ECharts and the first paint's
// script (docs/startup.md, "One stylesheet").
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

// TestTheStylesheetHoldsGoAppsThenOurs: /app.css is go-app's loader
// styles and then web/'s stylesheets, in cascade order.
func TestTheStylesheetHoldsGoAppsThenOurs(t *testing.T) {
	root := builtRoot(t)
	parts := []string{".goapp-app-info", ".from-style{}", ".from-embed{}", ".from-risk{}"}
	for i, f := range []string{"style.css", "embed.css", "risk.css"} {
		if err := os.WriteFile(filepath.Join(root, "web", f), []byte(parts[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	status, css := served(t, Config{Root: root}, "/app.css")
	if status != http.StatusOK {
		t.Fatalf("HTTP %d", status)
	}
	at := -1
	for _, part := range parts {
		i := strings.Index(css, part)
		if i <= at {
			t.Fatalf("%s is not after what comes before it (at %d, the one before at %d)", part, i, at)
		}
		at = i
	}
}

func TestNewNamesAMissingStylesheet(t *testing.T) {
	root := builtRoot(t)
	os.Remove(filepath.Join(root, "web", "risk.css"))
	if _, err := New(Config{Root: root}); err == nil || !strings.Contains(err.Error(), "/web/risk.css") {
		t.Fatalf("error %v, want one naming /web/risk.css", err)
	}
}
