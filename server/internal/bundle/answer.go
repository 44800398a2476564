package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"

	"github.com/riskchart/riskchart/venueapi"
	webjs "github.com/riskchart/riskchart/web"
)

// The chart page's head reads its preloaded KLine answer with a script
// written inline right after the preload: why, on web.ChartAnswerJS.

// withAnswerRead is page with web/chart-answer.js inline right after the
// <link> in its head that preloads the KLine answer; page as it is when it
// holds none (only the chart page preloads it).
func withAnswerRead(page []byte) []byte {
	head := bytes.Index(page, []byte("</head>"))
	if head < 0 {
		return page
	}
	_, at, ok := preloadLink(page[:head], venueapi.PathKLine+"?")
	if !ok {
		return page
	}
	out := make([]byte, 0, len(page)+len(webjs.ChartAnswerJS)+len("<script></script>"))
	out = append(out, page[:at]...)
	out = append(out, "<script>"...)
	out = append(out, webjs.ChartAnswerJS...)
	out = append(out, "</script>"...)
	return append(out, page[at:]...)
}

// ScriptSources are the Content-Security-Policy sources that allow the
// scripts the pages carry inline: the hash of web/chart-answer.js.
func ScriptSources() []string {
	sum := sha256.Sum256([]byte(webjs.ChartAnswerJS))
	return []string{"'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"}
}
