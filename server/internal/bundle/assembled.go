package bundle

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/andybalholm/brotli"

	webjs "github.com/riskchart/riskchart/web"
)

// assembled is a file the server puts together at start (the stylesheet,
// app.js, wasm_exec.js), kept in each encoding of precompressed as the
// build keeps web/'s largest files: a phone downloads a quarter of it.
type assembled struct {
	name, contentType string
	modTime           time.Time
	// bodies holds the raw file under "" and each coding of precompressed
	// under its name.
	bodies map[string][]byte
	etag   string // of the raw file; representationTag adds the coding
}

// assembledQuality is the brotli quality of the assembled files: they are
// compressed at each start, and quality 11 took 87 ms for the stylesheet
// to save 0.7 kB of its 7.2 kB at quality 6, which takes 4 ms.
const assembledQuality = 6

func newAssembled(name, contentType string, raw []byte, modTime time.Time) (*assembled, error) {
	var br, gz bytes.Buffer
	bw := brotli.NewWriterLevel(&br, assembledQuality)
	gw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	for _, w := range []interface {
		Write([]byte) (int, error)
		Close() error
	}{bw, gw} {
		if _, err := w.Write(raw); err != nil {
			return nil, fmt.Errorf("compressing %s: %w", name, err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("compressing %s: %w", name, err)
		}
	}
	sum := sha256.Sum256(raw)
	return &assembled{
		name:        name,
		contentType: contentType,
		modTime:     modTime,
		bodies:      map[string][]byte{"": raw, "br": br.Bytes(), "gzip": gz.Bytes()},
		etag:        hex.EncodeToString(sum[:8]),
	}, nil
}

// ServeHTTP answers with the file in the coding the browser weighs highest
// (preferredCoding), raw when it takes none.
func (a *assembled) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	coding := preferredCoding(r.Header.Values("Accept-Encoding"))
	body := a.bodies[coding]
	serveEncoded(w, r, a.name, a.modTime, coding, representationTag(a.etag, coding, false), bytes.NewReader(body), int64(len(body)))
}

// maxSmallFile is the largest file of web/ that New compresses at start
// (smallFiles); a larger one is the build's to compress (precompress).
const maxSmallFile = 64 << 10

// smallFiles are web/'s own scripts and vector icon: its top-level .js and
// .svg files that the build does not compress and the server does not build
// into other answers (web.Assembled), read and compressed at start as the
// assembled files are. Among them are the chart page's first-paint script
// (chart-boot.js) and the first script of every
// page (app-start.js). web/'s subfolders (the bench's plain page) are left
// as they are.
func smallFiles(web string) (map[string]*assembled, error) {
	entries, err := os.ReadDir(web)
	if err != nil {
		return nil, fmt.Errorf("listing the front end's files: %w", err)
	}
	files := map[string]*assembled{}
	for _, e := range entries {
		name := e.Name()
		if ext := path.Ext(name); !e.Type().IsRegular() || ext != ".js" && ext != ".svg" || webjs.Assembled(name) {
			continue
		}
		file := filepath.Join(web, name)
		if _, err := os.Stat(file + precompressed[0].ext); err == nil {
			continue // the build's (servePrecompressed)
		}
		info, err := e.Info()
		if err != nil || info.Size() > maxSmallFile {
			continue
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading the front end's %s: %w", name, err)
		}
		if files[name], err = newAssembled(name, contentType(name), raw, info.ModTime()); err != nil {
			return nil, err
		}
	}
	return files, nil
}
