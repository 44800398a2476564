package acceptencoding

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// qvalueGrammar is RFC 9110's qvalue (12.4.2).
var qvalueGrammar = regexp.MustCompile(`^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$`)

// FuzzWeight: a weight is a qvalue's exact value or 0, whatever the field
// says; a list reads alike on one field line or split over several; a
// coding's letters' case does not count.
func FuzzWeight(f *testing.F) {
	for _, s := range []string{"gzip, br;q=0.5", "*;q=0.1, gzip;q=0", "x-gzip;q=1.000", "br;q=0.", "gzip;q=1.001", "GZIP;Q=0.25;level=9"} {
		f.Add(s, "gzip")
	}
	f.Fuzz(func(t *testing.T, field, coding string) {
		coding = strings.ToLower(coding)
		w := Weight([]string{field}, coding)
		if w < 0 || w > 1 {
			t.Fatalf("%q, %s: weight %v", field, coding, w)
		}
		if got := Weight(strings.SplitAfter(field, ","), coding); got != w {
			t.Fatalf("%q, %s: %v on one line, %v split after each comma", field, coding, w, got)
		}
		if got := Weight([]string{strings.ToUpper(field)}, coding); got != w && strings.ToUpper(field) != field && !strings.ContainsFunc(field, func(r rune) bool { return r > 0x7f }) {
			t.Fatalf("%q, %s: %v, upper-cased %v", field, coding, w, got)
		}
		v := strings.TrimSpace(field)
		want := 0.0
		if qvalueGrammar.MatchString(v) {
			want, _ = strconv.ParseFloat(v, 64)
		}
		if got := parseQvalue(v); got != want {
			t.Fatalf("qvalue %q read as %v, want %v", v, got, want)
		}
	})
}
