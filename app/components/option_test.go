package components

import (
	"regexp"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// A prerendered select must mark only its chosen option: selected="false"
// selects an option as much as selected does.
func TestOptionIsMarkedSelectedOnlyWhenChosen(t *testing.T) {
	html := app.HTMLString(app.Select().Body(option("a", "A", false), option("b", "B", true), option("c", "C", false)))
	var marked []string
	for _, tag := range regexp.MustCompile(`<option[^>]*>`).FindAllString(html, -1) {
		if strings.Contains(tag, "selected") {
			marked = append(marked, tag)
		}
	}
	if len(marked) != 1 || !strings.Contains(marked[0], `value="b"`) {
		t.Errorf("options marked selected: %q, want the one of value b alone", marked)
	}
}
