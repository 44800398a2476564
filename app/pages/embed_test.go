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

// TestAChartEmbedIsCompactWhenItsFullLayoutLeavesTheCandlesTooLittle: once
// the chart has measured its full layout, an embed takes the compact one
// when, at its height, that layout would leave the candles less than
// chartopt.MinPricePane, whatever the height rule says: at 600 × 400 the
// period chips and the legend wrapped to four lines over 105 px of candles.
// A measure at another width, or with other studies, says nothing.
func TestAChartEmbedIsCompactWhenItsFullLayoutLeavesTheCandlesTooLittle(t *testing.T) {
	narrow := fullLayout{w: 600, h: 400, pane: 105}
	studied := fullLayout{w: 320, h: 600, studies: "macd,rsi", pane: 90}
	tests := []struct {
		name       string
		w, h       int
		indicators string
		full       fullLayout
		want       bool
	}{
		{"measured too low", 600, 400, "", narrow, true},
		{"higher, still too low", 600, 430, "", narrow, true},      // 105 + 30 × 0.68 = 125.4
		{"high enough", 600, 450, "", narrow, false},               // 139
		{"measured at another width", 800, 400, "", narrow, false}, // the height rule alone
		{"measured with other studies", 600, 400, "ma:7", narrow, false},
		{"not measured", 600, 400, "", fullLayout{}, false},
		{"under the height rule", 600, 380, "", fullLayout{w: 600, h: 380, pane: 200}, true},
		{"panes measured too low", 320, 600, "macd,rsi", studied, true},
		{"panes, higher, still too low", 320, 680, "macd,rsi", studied, true}, // 90 + 80 × 0.48 = 128.4
		{"panes, high enough", 320, 700, "macd,rsi", studied, false},          // 138
	}
	for _, tt := range tests {
		e := &EmbedPage{full: tt.full}
		e.fitSize(tt.w, tt.h)
		e.v.Look.Indicators = tt.indicators
		if got := e.compact(); got != tt.want {
			t.Errorf("%s: a %d × %d embed with %q: compact %v, want %v", tt.name, tt.w, tt.h, tt.indicators, got, tt.want)
		}
	}
}
