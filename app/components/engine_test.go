//go:build !js

package components

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The components' tests draw them in go-app's test engine, natively (its
// engine wants a document, which node lacks): what they check is what the
// server prerenders and the browser then updates.

// render mounts c in a test engine, runs what mounting dispatched, and
// returns the engine (to load c's next fields) and the HTML c draws.
func render(t *testing.T, c app.Composer) (app.TestEngine, string) {
	t.Helper()
	e := app.NewTestEngine()
	if err := e.Load(c); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	return e, app.HTMLString(c)
}

// says checks that html holds every text of want and none of not, and
// logs html when it does not.
func says(t *testing.T, html string, want, not []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(html, s) {
			t.Errorf("no %q", s)
		}
	}
	for _, s := range not {
		if strings.Contains(html, s) {
			t.Errorf("has %q", s)
		}
	}
	if t.Failed() {
		t.Log(html)
	}
}

// tagWith is the opening tag in html that holds marker (an attribute, say),
// for checks that do not depend on the order go-app writes attributes in.
func tagWith(t *testing.T, html, marker string) string {
	t.Helper()
	i := strings.Index(html, marker)
	if i < 0 {
		t.Fatalf("no %s in\n%s", marker, html)
	}
	start := strings.LastIndex(html[:i+1], "<")
	end := i + strings.Index(html[i:], ">")
	return html[start : end+1]
}

// has reports whether tag carries attribute attr (`name="value"`, or a bare
// name for a boolean one).
func has(tag, attr string) bool {
	return strings.Contains(strings.TrimSuffix(tag, ">")+" ", " "+attr+" ")
}
