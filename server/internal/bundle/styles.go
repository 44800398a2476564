package bundle

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// webStyles are the app's stylesheets of web/, in cascade order. Pages do
// not link them: they link go-app's /app.css, which this package answers
// with go-app's styles followed by these (see stylesheet).
var webStyles = []string{"/web/style.css", "/web/embed.css", "/web/risk.css"}

// stylesheet is the one stylesheet every page links, /app.css: go-app's
// own (its loader's) and then webStyles, in the order a page linking each
// would apply them. A browser opens at most six connections to a host over
// HTTP/1.1, and a cold page asks for its stylesheets, its scripts and its
// KLine answer at once: four stylesheets held connections that ECharts and
// the chart's first paint waited for (docs/performance.md, "One
// stylesheet"). It is kept encoded as the build encodes web/'s files, so a
// phone downloads a quarter of it.
type stylesheet struct {
	modTime time.Time
	// bodies holds the raw stylesheet under "" and each coding of
	// precompressed under its name.
	bodies map[string][]byte
	etag   string // of the raw stylesheet; each encoding adds its coding
}

// newStylesheet joins go-app's styles and webStyles, read from web.
func newStylesheet(goapp []byte, web string, modTime time.Time) (*stylesheet, error) {
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
	raw := css.Bytes()
	var br, gz bytes.Buffer
	bw := brotli.NewWriterLevel(&br, brotli.BestCompression)
	gw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	for _, w := range []interface {
		Write([]byte) (int, error)
		Close() error
	}{bw, gw} {
		if _, err := w.Write(raw); err != nil {
			return nil, fmt.Errorf("compressing the stylesheet: %w", err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("compressing the stylesheet: %w", err)
		}
	}
	sum := sha256.Sum256(raw)
	return &stylesheet{
		modTime: modTime,
		bodies:  map[string][]byte{"": raw, "br": br.Bytes(), "gzip": gz.Bytes()},
		etag:    hex.EncodeToString(sum[:8]),
	}, nil
}

// ServeHTTP answers with the stylesheet in the coding the browser weighs
// highest (preferredCodings), raw when it takes none.
func (s *stylesheet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	coding := ""
	if order := preferredCodings(r.Header.Get("Accept-Encoding")); len(order) > 0 {
		coding = precompressed[order[0]].coding
	}
	body := s.bodies[coding]
	etag := s.etag
	if coding != "" {
		h.Set("Content-Encoding", coding)
		etag += "-" + coding // a representation of its own, as servePrecompressed's
	}
	h.Set("ETag", strconv.Quote(etag))
	http.ServeContent(&lengthWriter{ResponseWriter: w, size: int64(len(body))}, r, "app.css", s.modTime, bytes.NewReader(body))
}
