package etag

import (
	"strings"
	"testing"
)

// FuzzMatches: a list reads alike on one field line or split over several,
// and a list naming the tag, strong or weak, matches it.
func FuzzMatches(f *testing.F) {
	f.Add(`"x", W/"abc"`, `"abc"`)
	f.Add(`*`, `W/"abc-br"`)
	f.Fuzz(func(t *testing.T, field, tag string) {
		m := Matches([]string{field}, tag)
		if got := Matches(strings.SplitAfter(field, ","), tag); got != m {
			t.Fatalf("%q, %s: %v on one line, %v split after each comma", field, tag, m, got)
		}
		if !strings.Contains(tag, ",") && strings.TrimSpace(tag) == tag && tag != "" {
			if !Matches([]string{field + ", " + tag}, tag) || !Matches([]string{"W/" + strings.TrimPrefix(tag, "W/"), field}, tag) {
				t.Fatalf("%q with %s added does not match it", field, tag)
			}
		}
	})
}
