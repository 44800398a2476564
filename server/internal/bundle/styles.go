package bundle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// webStyles are the app's stylesheets of web/, in cascade order. Pages do
// not link them: they link go-app's /app.css, which this package answers
// with go-app's styles followed by these (see joinStyles).
var webStyles = []string{"/web/style.css", "/web/embed.css", "/web/risk.css"}

// joinStyles is the one stylesheet every page links, /app.css: go-app's
// own (its loader's) and then webStyles, read from web, in the order a
// page linking each would apply them. A browser opens at most six
// connections to a host over HTTP/1.1, and a cold page asks for its
// stylesheets, its scripts and its KLine answer at once: four stylesheets
// held connections that ECharts and the chart's first paint waited for
// (docs/performance.md, "One stylesheet").
func joinStyles(goapp []byte, web string) ([]byte, error) {
	var css bytes.Buffer
	css.Write(goapp)
	for _, f := range webStyles {
		b, err := os.ReadFile(filepath.Join(web, strings.TrimPrefix(f, "/web/")))
		if err != nil {
			return nil, fmt.Errorf("reading the stylesheet %s (run make build): %w", f, err)
		}
		fmt.Fprintf(&css, "\n/* %s */\n", f)
		css.Write(b)
	}
	return css.Bytes(), nil
}
