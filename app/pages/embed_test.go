package pages

import "testing"

func TestValidLocaleTakesLanguageTagsOnly(t *testing.T) {
	tests := []struct {
		tag  string
		want bool
	}{
		{"de", true}, {"pt-BR", true}, {"zh-Hant-TW", true}, {"es-419", true}, {"sr-Latn-RS-x1", true},
		{"", false}, {"d", false}, {"deut", false}, {"de-", false}, {"-de", false}, {"de_DE", false},
		{"a1", false}, {"de-B", false}, {"de-abcdefghi", false}, {"en-US-x-y-z", false},
		{`de"><script>`, false}, {"de BR", false},
	}
	for _, tt := range tests {
		if got := validLocale(tt.tag); got != tt.want {
			t.Errorf("validLocale(%q) = %v, want %v", tt.tag, got, tt.want)
		}
	}
}
