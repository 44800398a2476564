package bundle

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/acceptencoding"
)

// precompressed are the encodings the build writes next to a file of web/
// (server/cmd/precompress), the preferred first when the browser weighs
// them alike: brotli is about a quarter smaller than gzip on app.wasm.
var precompressed = [...]struct{ coding, ext string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// preferredCodings are the codings of precompressed that acceptEncoding,
// a request's Accept-Encoding field lines, takes (weight above 0), by its
// weights, brotli before gzip on a tie.
func preferredCodings(acceptEncoding []string) []int {
	var weight [len(precompressed)]float64
	var order []int
	for i, p := range precompressed {
		if weight[i] = acceptencoding.Weight(acceptEncoding, p.coding); weight[i] > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weight[b], weight[a]) })
	return order
}

// preferredCoding is the coding of precompressed the browser weighs
// highest (preferredCodings), "" when it takes none: for a body the server
// holds in every coding.
func preferredCoding(acceptEncoding []string) string {
	if order := preferredCodings(acceptEncoding); len(order) > 0 {
		return precompressed[order[0]].coding
	}
	return ""
}

// servePrecompressed answers with the precompressed sibling of file (a file
// of web/ named name) in the encoding the browser weighs highest, brotli
// before gzip on a tie; it reports false, having written nothing, when the
// browser takes neither or the build wrote none. http.ServeContent answers
// HEAD, conditional and Range requests; a range counts in the encoded bytes,
// as the representation sent is the encoded one. A sibling older than file
// is not sent: it is of an earlier build (file rebuilt alone, or its
// compression cut short), and would answer another file under file's name.
// Its ETag names its bytes (tags), not its time and size: two builds'
// app.wasm may have both alike (a build that fixes its files' times, a
// small change), and a replica of one must not answer 304 to the other's.
func servePrecompressed(w http.ResponseWriter, r *http.Request, file, name string, tags *fileTags) bool {
	order := preferredCodings(r.Header.Values("Accept-Encoding"))
	if len(order) == 0 {
		return false
	}
	src, err := os.Stat(file)
	if err != nil {
		return false // http.ServeFile says what is wrong with it
	}
	for _, j := range order {
		f, err := os.Open(file + precompressed[j].ext)
		if err != nil {
			continue
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || st.IsDir() || st.ModTime().Before(src.ModTime()) {
			continue
		}
		coding := precompressed[j].coding
		sum, err := tags.of(file+precompressed[j].ext, f, st)
		if err != nil {
			continue
		}
		etag := representationTag(sum, coding, false)
		serveEncoded(w, r, name, st.ModTime(), coding, etag, f, st.Size())
		return true
	}
	return false
}

// serveRaw answers with file (a file of web/ named name) as it is, with an
// ETag of its bytes as servePrecompressed gives its siblings: the
// uncompressed representation is revalidated by what it holds too, never
// by its time alone, which two builds' files may share. It reports false,
// having written nothing, when file cannot be read as a file.
func serveRaw(w http.ResponseWriter, r *http.Request, file, name string, tags *fileTags) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return false
	}
	sum, err := tags.of(file, f, st)
	if err != nil {
		return false
	}
	serveEncoded(w, r, name, st.ModTime(), "", representationTag(sum, "", false), f, st.Size())
	return true
}

// representationTag is the ETag header of a representation in coding (""
// for none) of what tag names: each encoding is a representation of its
// own, so that a cache or a range request never mixes the bytes of two. A
// weak one says that two representations under it mean the same but may
// differ in their bytes.
func representationTag(tag, coding string, weak bool) string {
	if coding != "" {
		tag += "-" + coding
	}
	if weak {
		return "W/" + strconv.Quote(tag)
	}
	return strconv.Quote(tag)
}

// serveEncoded answers with body, of size bytes: name's representation in
// coding ("" for none), with the ETag header etag (representationTag; none
// when ""). http.ServeContent answers HEAD, conditional and Range requests.
func serveEncoded(w http.ResponseWriter, r *http.Request, name string, modTime time.Time, coding, etag string, body io.ReadSeeker, size int64) {
	if coding != "" {
		w.Header().Set("Content-Encoding", coding)
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(&lengthWriter{ResponseWriter: w, size: size}, r, name, modTime, body)
}

// withListsJoined is r with each list field the handlers the bundle calls
// read (the lists of tags If-Match and If-None-Match that
// http.ServeContent, http.ServeFile and go-app's handler check) on one
// field line: they read a field's first line alone, and a client or a
// proxy may split a list over several (RFC 9110, 5.3). The bundle reads
// Accept-Encoding over all its lines itself (acceptencoding). It is r
// itself, with nothing copied, when none is split.
func withListsJoined(r *http.Request) *http.Request {
	var joined http.Header
	for _, name := range [...]string{"If-Match", "If-None-Match"} {
		if lines := r.Header.Values(name); len(lines) > 1 {
			if joined == nil {
				joined = r.Header.Clone()
			}
			joined[name] = []string{strings.Join(lines, ", ")}
		}
	}
	if joined == nil {
		return r
	}
	r = r.WithContext(r.Context()) // a shallow copy, for its own Header
	r.Header = joined
	return r
}

// lengthWriter puts back the Content-Length that http.ServeContent leaves
// out of an answer with a Content-Encoding (for the sake of handlers that
// compress on the fly; this one does not): the whole file's for HTTP 200, a
// single range's for 206. Without it, the server would send app.wasm chunked.
type lengthWriter struct {
	http.ResponseWriter
	size int64 // the encoded file's
}

func (w *lengthWriter) WriteHeader(code int) {
	h := w.Header()
	if h.Get("Content-Length") == "" {
		switch code {
		case http.StatusOK:
			h.Set("Content-Length", strconv.FormatInt(w.size, 10))
		case http.StatusPartialContent:
			var first, last, total int64
			if _, err := fmt.Sscanf(h.Get("Content-Range"), "bytes %d-%d/%d", &first, &last, &total); err == nil && last >= first {
				h.Set("Content-Length", strconv.FormatInt(last-first+1, 10))
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *lengthWriter) Write(b []byte) (int, error) { return w.ResponseWriter.Write(b) }

// Unwrap lets http.ResponseController reach the server's writer.
func (w *lengthWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// fileTags are the hashes of the precompressed files served, each read
// once for the time and size it had then: an ETag that names a file's
// bytes, as the assembled files' do.
type fileTags struct {
	mu     sync.Mutex
	byPath map[string]fileTag
}

type fileTag struct {
	modTime time.Time
	size    int64
	sum     string
}

func newFileTags() *fileTags { return &fileTags{byPath: map[string]fileTag{}} }

// of is the hash of f, the file at path with the FileInfo st, hashed when
// path had another time or size before; f is left at its start.
func (c *fileTags) of(path string, f *os.File, st os.FileInfo) (string, error) {
	c.mu.Lock()
	t, ok := c.byPath[path]
	c.mu.Unlock()
	if ok && t.modTime.Equal(st.ModTime()) && t.size == st.Size() {
		return t.sum, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s for its ETag: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("hashing %s for its ETag: %w", path, err)
	}
	t = fileTag{modTime: st.ModTime(), size: st.Size(), sum: hex.EncodeToString(h.Sum(nil)[:8])}
	c.mu.Lock()
	c.byPath[path] = t
	c.mu.Unlock()
	return t.sum, nil
}
