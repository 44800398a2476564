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
// A measure at another width, or with other studies, says nothing. The
// first paint's compact layout (it measured the frame before it drew)
// stands at its size and studies: the app drew the full layout over it,
// then found it too low and went back, two jumps in a 600 × 400 embed.
func TestAChartEmbedIsCompactWhenItsFullLayoutLeavesTheCandlesTooLittle(t *testing.T) {
	narrow := fullLayout{frameSize{w: 600, h: 400}, 105}
	studied := fullLayout{frameSize{w: 320, h: 600, studies: "macd,rsi"}, 90}
	firstPaint := frameSize{w: 600, h: 400}
	tests := []struct {
		name       string
		w, h       int
		indicators string
		full       fullLayout
		first      frameSize
		want       bool
	}{
		{"the first paint's compact layout", 600, 400, "", fullLayout{}, firstPaint, true},
		{"the first paint's, higher", 600, 420, "", fullLayout{}, firstPaint, false},
		{"the first paint's, other studies", 600, 400, "ma:7", fullLayout{}, firstPaint, false},
		{"the first paint's, narrower", 580, 400, "", fullLayout{}, firstPaint, false},
		{"measured too low", 600, 400, "", narrow, frameSize{}, true},
		{"higher, still too low", 600, 430, "", narrow, frameSize{}, true},      // 105 + 30 × 0.68 = 125.4
		{"high enough", 600, 450, "", narrow, frameSize{}, false},               // 139
		{"measured at another width", 800, 400, "", narrow, frameSize{}, false}, // the height rule alone
		{"measured with other studies", 600, 400, "ma:7", narrow, frameSize{}, false},
		{"not measured", 600, 400, "", fullLayout{}, frameSize{}, false},
		{"under the height rule", 600, 380, "", fullLayout{frameSize{w: 600, h: 380}, 200}, frameSize{}, true},
		{"panes measured too low", 320, 600, "macd,rsi", studied, frameSize{}, true},
		{"panes, higher, still too low", 320, 680, "macd,rsi", studied, frameSize{}, true}, // 90 + 80 × 0.48 = 128.4
		{"panes, high enough", 320, 700, "macd,rsi", studied, frameSize{}, false},          // 138
	}
	for _, tt := range tests {
		e := &EmbedPage{full: tt.full, first: tt.first}
		e.fitSize(tt.w, tt.h)
		e.v.Look.Indicators = tt.indicators
		if got := e.compact(); got != tt.want {
			t.Errorf("%s: a %d × %d embed with %q: compact %v, want %v", tt.name, tt.w, tt.h, tt.indicators, got, tt.want)
		}
	}
}
