package components

import (
	"slices"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/studies"
)

// TestTheStudyMenuAddsNoStudyPastTheLimit: a seventeenth study would make a
// list studies.ParseSpecs refuses, and the chart would then draw none of the
// sixteen (nor would the URL it wrote on a reload); the menu says why it
// adds nothing instead.
func TestTheStudyMenuAddsNoStudyPastTheLimit(t *testing.T) {
	full := make([]studies.Spec, 0, studies.MaxSpecs)
	for n := 1; n <= studies.MaxSpecs; n++ {
		full = append(full, studies.Spec{Kind: studies.MA, Period: n})
	}
	ma100, rsi := studies.Spec{Kind: studies.MA, Period: 100}, studies.Spec{Kind: studies.RSI}
	for _, tc := range []struct {
		name    string
		list    []studies.Spec
		add     studies.Spec
		want    []studies.Spec
		refused string
	}{
		{"to an empty list", nil, rsi, []studies.Spec{rsi}, ""},
		{"the sixteenth", full[:15], full[15], full, ""},
		{"a seventeenth", full, ma100, nil, "At most 16 studies"},
		{"one already there, to a full list", full, full[3], append(slices.Concat(full[:3], full[4:]), full[3]), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, refused := withStudy(tc.list, tc.add)
			if !slices.Equal(got, tc.want) || (tc.refused == "") != (refused == "") || !strings.Contains(refused, tc.refused) {
				t.Fatalf("withStudy(%d studies, %v) = %v, %q; want %v, %q", len(tc.list), tc.add, got, refused, tc.want, tc.refused)
			}
			if refused == "" {
				if _, err := studies.ParseSpecs(studies.FormatSpecs(got)); err != nil {
					t.Errorf("the list the menu made is refused: %v", err)
				}
			}
		})
	}
}
