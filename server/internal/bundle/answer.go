package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"

	"github.com/riskchart/riskchart/venueapi"
	webjs "github.com/riskchart/riskchart/web"
)

// The chart page's head reads its preloaded KLine answer with a script
// written inline right after the preload (web/chart-answer.js): as a file
// after the stylesheets, it ran only once they and the file had come from
// the service worker's cache, and on a next visit the answer was then at
// times read only after the page's first layout and paint, a frame late
// (docs/performance.md, "The answer read from the head").

// answerPreload is how the head's <link> that preloads the KLine answer
// starts its href.
const answerPreload = ` href="` + venueapi.PathKLine + `?`

// withAnswerRead is page with web/chart-answer.js inline right after the
// <link> that preloads the KLine answer; page as it is when it holds none
// (only the chart page preloads it). go-app writes a link's attributes in no
// fixed order.
func withAnswerRead(page []byte) []byte {
	end := bytes.Index(page, []byte("</head>"))
	if end < 0 {
		return page
	}
	i := bytes.Index(page[:end], []byte(answerPreload))
	if i < 0 {
		return page
	}
	start := bytes.LastIndex(page[:i], []byte("<link"))
	closing := bytes.IndexByte(page[i:end], '>')
	if start < 0 || closing < 0 || bytes.IndexByte(page[start:i], '>') >= 0 || !bytes.Contains(page[start:i+closing], []byte(`rel="preload"`)) {
		return page
	}
	at := i + closing + 1
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
