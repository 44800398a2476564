package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/pages"
	"github.com/riskchart/riskchart/venueapi"
	webjs "github.com/riskchart/riskchart/web"
)

// The head of the chart page and of a chart embed reads its preloaded KLine
// answer with a script written inline right after the preload: why, on
// web.ChartAnswerJS.

// withAnswerRead is page with web/chart-answer.js inline right after the
// <link> in its head that preloads the KLine answer; page as it is when it
// holds none (only the chart page and a chart embed preload it).
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

// tiersReadMeta names the <meta> by which a chart page without its tiers
// tells its head script (web/chart-answer.js) where to read them from.
const tiersReadMeta = "riskchart-tiers"

// withTiersRead is a chart page that carries no tiers (withFirstTiers left
// it as it was: the server held none, or the service worker's shell) with a
// <meta> in its head naming the tier path's URL for its contract: its head
// script reads them once the first paint has drawn, and the app's risk
// panel takes that answer in place of its first fetch (web.ChartAnswerJS).
// shown is the page's ladder (pages.TiersOf). Page as it is for a page
// without the answer's read (not a chart page), an embed (its read would
// carry no embed link), or a contract without tiers.
func withTiersRead(page []byte, shown pages.TiersShown) []byte {
	head := bytes.Index(page, []byte("</head>"))
	if head < 0 || shown.Embedded {
		return page
	}
	if _, _, ok := preloadLink(page[:head], venueapi.PathKLine+"?"); !ok {
		return page
	}
	path, err := api.TiersPath(shown.Contract) // an error for a contract without tiers: not a swap
	if err != nil {
		return page
	}
	meta := `<meta name="` + tiersReadMeta + `" content="` + html.EscapeString(path) + `">` + "\n"
	at := bytes.LastIndexByte(page[:head], '\n') + 1 // on a line of its own, before </head>'s
	out := make([]byte, 0, len(page)+len(meta)+4)
	out = append(append(out, page[:at]...), "    "...)
	return append(append(out, meta...), page[at:]...)
}

// ScriptSources are the Content-Security-Policy sources that allow the
// scripts the pages carry inline: the hash of web/chart-answer.js.
func ScriptSources() []string {
	sum := sha256.Sum256([]byte(webjs.ChartAnswerJS))
	return []string{"'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"}
}
