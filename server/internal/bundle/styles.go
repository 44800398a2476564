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
// with go-app's styles followed by these.
var webStyles = []string{"/web/style.css", "/web/embed.css", "/web/risk.css"}

// readStyles is webStyles read from web and joined, each under a comment
// naming it. Every page links one stylesheet, /app.css, go-app's styles and
// then these, in the order a page linking each would apply them: a page
// asks for one file where it asked for four, and a next visit reads one from
// the service worker's cache (docs/startup.md, "One stylesheet").
func readStyles(web string) ([]byte, error) {
	var css bytes.Buffer
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
