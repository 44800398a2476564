package bundle

import (
	"net/http"
	"strings"
	"testing"
)

// TestTheSketchedViewsRunEChartsAsyncAndTheRestInTurn checks each page's
// head: a chart page or chart embed of a view without a look, or in a chart
// style or on a percent scale, runs ECharts as an async script, so that
// chart-boot.js may sketch before it has come; every other page, and a view
// with studies or on a log scale, runs it in turn, holding the parser.
// Written against the pages as go-app renders them, so that a change in how
// go-app writes the script element fails here, not silently in the browser.
func TestTheSketchedViewsRunEChartsAsyncAndTheRestInTurn(t *testing.T) {
	root := builtRoot(t)
	for _, tc := range []struct {
		path     string
		sketched bool
	}{
		{"/", true},
		{"/?contract_code=ETH-USDT&period=5min&theme=dark&tz=utc", true},
		{"/embed/chart?contract_code=SOL-USDT&period=1day", true},
		{"/?indicators=ma:20", false},
		{"/?scale=log", false},
		{"/?style=line", true},
		{"/?style=ohlc&scale=percent&theme=dark", true},
		{"/embed/chart?contract_code=ETH-USDT&style=area", true},
		{"/?style=area&scale=log", false},
		{"/?style=line&indicators=rsi", false},
		{"/embed/chart?indicators=ma:20", false},
		{"/tiers", false},
		{"/limits", false},
		{"/embed/tiers", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, tc.path)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			head, _, _ := strings.Cut(body, "</head>")
			async, inTurn := strings.Count(head, echartsAsync), strings.Count(body, echartsScript)
			if tc.sketched && (async != 1 || inTurn != 0) {
				t.Errorf("%d async and %d in-turn scripts of ECharts, want the async one alone", async, inTurn)
			}
			if !tc.sketched && (async != 0 || inTurn != 1) {
				t.Errorf("%d async and %d in-turn scripts of ECharts, want the in-turn one alone", async, inTurn)
			}
		})
	}
}

func TestWithSketchLeavesOtherPagesAsTheyAre(t *testing.T) {
	const answer = `<link rel="preload" as="fetch" href="/sapi/v1/market/history/kline?contract_code=X">`
	for _, page := range []string{
		`<html><head>` + echartsScript + `</head><body></body></html>`, // no answer preloaded
		`<html><head>` + answer + `</head><body></body></html>`,        // no ECharts to preload
		`<html><head>` + answer + echartsScript + `</head><body><script type="application/json" id="chart-look">{}</script></body></html>`,
		`<html><head>` + answer + echartsScript + `</head><body><script type="application/json" id="chart-look" data-sketched>{}</script></body></html>`, // another attribute
		`<html><head>` + answer + `</head><body>` + echartsScript + `</body></html>`,                                                                     // not in the head
		answer + echartsScript, // no end of the head
	} {
		if got := string(withSketch([]byte(page))); got != page {
			t.Errorf("withSketch(%q) = %q, want it unchanged", page, got)
		}
	}
	for _, body := range []string{"", `<script type="application/json" id="chart-look" data-sketch="true">{}</script>`} {
		page := `<html><head>` + answer + "\n" + echartsScript + "\n</head><body>" + body + "</body></html>"
		want := `<html><head>` + answer + "\n" + echartsAsync + "\n</head><body>" + body + "</body></html>"
		if got := string(withSketch([]byte(page))); got != want {
			t.Errorf("withSketch = %q, want %q", got, want)
		}
	}
}
