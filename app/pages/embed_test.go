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

// TestAChartEmbedIsCompactByItsHeightAndItsPanes: the compact layout is
// taken under 400 px, and under 100 px more per oscillator pane the view's
// studies draw (chartopt.CompactBelow); a height not known yet is not compact.
func TestAChartEmbedIsCompactByItsHeightAndItsPanes(t *testing.T) {
	tests := []struct {
		height     int
		indicators string
		want       bool
	}{
		{0, "", false},
		{240, "", true},
		{399, "", true},
		{400, "", false},
		{450, "ma:7,ma:25,boll,vol_ma", false},
		{450, "rsi", true},
		{500, "rsi", false},
		{450, "macd,rsi", true},
		{599, "ma:7,macd,rsi", true},
		{600, "macd,rsi", false},
		{1080, "macd,rsi", false},
	}
	for _, tt := range tests {
		e := &EmbedPage{}
		e.fitSize(320, tt.height)
		e.v.Look.Indicators = tt.indicators
		if got := e.compact(); got != tt.want {
			t.Errorf("a chart embed %d px high with %q: compact %v, want %v", tt.height, tt.indicators, got, tt.want)
		}
	}
}
