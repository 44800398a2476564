package etag

import "testing"

func TestIfNoneMatchIsReadAsHTTPSays(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		tag   string
		want  bool
	}{
		{[]string{`"abc"`}, `"abc"`, true}, {[]string{`W/"abc"`}, `"abc"`, true}, {[]string{`"abc"`}, `W/"abc"`, true}, {[]string{`W/"abc"`}, `W/"abc"`, true},
		{[]string{`"x", "abc"`}, `"abc"`, true}, {[]string{`"x",W/"abc"`}, `"abc"`, true}, {[]string{`*`}, `"abc"`, true},
		{nil, `"abc"`, false}, {[]string{``}, `"abc"`, false}, {[]string{`"abcd"`}, `"abc"`, false}, {[]string{`abc`}, `"abc"`, false},
		{[]string{`"x","y"`}, `"abc"`, false}, {[]string{`"abc-br"`}, `W/"abc-gzip"`, false},
		// A list split over field lines reads as one (RFC 9110, 5.3).
		{[]string{`"x"`, `"abc"`}, `"abc"`, true}, {[]string{`"x", "y"`, `"z", W/"abc"`}, `"abc"`, true},
		{[]string{`"x"`, `*`}, `"abc"`, true}, {[]string{``, `"abc"`}, `"abc"`, true},
		{[]string{`"x"`, `"y"`}, `"abc"`, false}, {[]string{`"ab`, `c"`}, `"abc"`, false},
	} {
		if got := Matches(tc.lines, tc.tag); got != tc.want {
			t.Errorf("If-None-Match %q against %s: %v, want %v", tc.lines, tc.tag, got, tc.want)
		}
	}
}

// A revalidation is read on every request: a single line costs nothing.
func TestMatchesDoesNotAllocate(t *testing.T) {
	lines := []string{`"x", W/"abc"`}
	if n := testing.AllocsPerRun(100, func() { Matches(lines, `"abc"`) }); n != 0 {
		t.Errorf("%.0f allocations, want none", n)
	}
}
