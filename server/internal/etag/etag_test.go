package etag

import "testing"

func TestIfNoneMatchIsReadAsHTTPSays(t *testing.T) {
	for _, tc := range []struct {
		header, tag string
		want        bool
	}{
		{`"abc"`, `"abc"`, true}, {`W/"abc"`, `"abc"`, true}, {`"abc"`, `W/"abc"`, true}, {`W/"abc"`, `W/"abc"`, true},
		{`"x", "abc"`, `"abc"`, true}, {`"x",W/"abc"`, `"abc"`, true}, {`*`, `"abc"`, true},
		{``, `"abc"`, false}, {`"abcd"`, `"abc"`, false}, {`abc`, `"abc"`, false}, {`"x","y"`, `"abc"`, false},
		{`"abc-br"`, `W/"abc-gzip"`, false},
	} {
		if got := Matches(tc.header, tc.tag); got != tc.want {
			t.Errorf("If-None-Match %q against %s: %v, want %v", tc.header, tc.tag, got, tc.want)
		}
	}
}
