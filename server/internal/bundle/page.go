package bundle

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/riskchart/riskchart/app/pages"
	"github.com/riskchart/riskchart/server/internal/etag"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// servePage answers a page of the app: go-app prerenders it, then its
// og:url and og:image are rewritten (see ogDomain), its attributes set
// from a bool written as HTML means them (attrs.go), the head of the chart
// page and of a chart embed gets the script that reads its answer
// (answer.go) and, on a view it sketches, ECharts preloaded instead of run
// (sketch.go), the page the theme its URL names (theme.go), and the first
// data the server holds is written in (firstcontracts.go, firsttiers.go).
// The page is then served compressed, as the web/ files are (pageCoders).
// A revalidation of a page that has not changed is answered before any of
// this (notModified), and a page sent before, as it was (pageCache).
func (h *handler) servePage(w http.ResponseWriter, r *http.Request) {
	contracts, withContracts := firstContracts(r) // firstcontracts.go: public, cacheable as before; read below
	ladder, hasLadder := pages.TiersOf(r.URL)     // the chart page, /tiers, the tiers embed
	var tiers tierLadder
	withTiers := false
	if hasLadder {
		tiers, withTiers = firstTiers(r.Context(), ladder) // firsttiers.go
	}
	coding := preferredCoding(r.Header.Values("Accept-Encoding"))
	tag := "" // the page's ETag in its coding; none with the viewer's tiers, whose age it writes as of now
	if !withTiers {
		tag = representationTag(h.pageTag(r, contracts), coding, true)
		if notModified(w, r, tag) {
			h.answers.revalidated.Inc()
			return
		}
		if kept, ok := h.keptPages.get(tag); ok {
			h.answers.kept.Inc()
			kept.serve(w, r)
			return
		}
	}
	if tooManyRenders(w, r) {
		return
	}
	// go-app answers 304 to an If-None-Match of its version, the ETag it
	// gives every page alike; a page here holds its request's first data too.
	goapp := r.Clone(r.Context())
	goapp.Header.Del("If-None-Match")
	rec := httptest.NewRecorder() // holds go-app's answer until it is rewritten
	h.app.ServeHTTP(rec, goapp)
	own := rec.Header() // the page's own headers: kept with it, unlike the gateway's
	body := rec.Body.Bytes()
	if rec.Code != http.StatusOK {
		maps.Copy(w.Header(), own)
		w.WriteHeader(rec.Code)
		w.Write(body)
		return
	}
	// go-app writes text/html alone; the charset in the header spares the
	// browser looking for the page's <meta charset> before it decodes.
	own.Set("Content-Type", "text/html; charset=utf-8")
	page, err := rewriteOG(body, h.ogBase)
	if err != nil { // New checked go-app's pages: not seen unless a page differs
		http.Error(w, "rendering the page's metadata failed", http.StatusInternalServerError)
		return
	}
	body = withTheme(r.URL, withSketch(withAnswerRead(withAttrValues(page))))
	var offers []venueapi.Offer // the contract list read (withFirstContracts)
	if withContracts {
		if page, list, ok := withFirstContracts(body, r.URL, contracts); ok {
			body, offers = page, list
		}
	}
	if withTiers {
		if page, ok := withFirstTiers(body, tiers, offers); ok {
			body = page
			own.Set("Cache-Control", "private, no-cache") // it holds what this viewer may see
		}
	} else if hasLadder {
		body = withTiersRead(body, ladder) // answer.go: named by the URL, which the ETag holds
	}
	sent := h.pageCoders.encode(own, body, coding, tag)
	if tag != "" {
		h.keptPages.put(sent)
		h.answers.rendered.Inc()
	} else {
		h.answers.viewer.Inc()
	}
	sent.serve(w, r)
}

// tooManyRenders answers 429 to a page that must be rendered for a client
// whose rate is spent (firstdata.Render), and reports whether it did. A
// render costs about 2 ms of a core, and a URL not seen before, however
// made up, is a render: without this, one client could keep the cores busy.
// Within its rate a client can still cycle the kept pages (4 MB: a few
// seconds of renders), which costs the next visitor of a page pushed out one
// render (docs/deploy.md#behind-a-reverse-proxy). The service worker answers
// a 429 with its path's shell.
func tooManyRenders(w http.ResponseWriter, r *http.Request) bool {
	admit, ok := firstdata.Render(r.Context())
	if !ok {
		return false
	}
	allowed, wait := admit()
	if allowed {
		return false
	}
	secs := strconv.Itoa(max(int((wait+time.Second-1)/time.Second), 1)) // whole seconds, rounded up, never 0
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", secs)
	w.WriteHeader(http.StatusTooManyRequests)
	io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Riskchart · too many pages</title>`+
		`<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><p>Too many new pages asked for from this address: this server renders at most its per-client rate (RISKCHART_CLIENT_RATE). Try again in `+
		secs+` s.</p></body></html>`)
	return true
}

// pageTag is the ETag of a page without the viewer's tiers: it names what
// the page is made of, the deployment (go-app's version), the URL and the
// contract path's answer it may write the list from (nil: none; a page
// that shows no picker changes its tag with the list all the same), not its
// bytes, since go-app writes an element's attributes in no fixed order. It
// is known before the page is rendered.
func (h *handler) pageTag(r *http.Request, contracts []byte) string {
	made := sha256.New()
	io.WriteString(made, `"`+h.app.Version+`"`+"\x00"+r.URL.RequestURI()) // go-app's ETag, then the URL
	if contracts != nil {
		made.Write([]byte{0})
		made.Write(contracts)
	}
	return hex.EncodeToString(made.Sum(nil)[:8])
}

// notModified answers a page's revalidation before the page is rendered
// (1.4 ms and 0.7 MB of allocations for the chart page): 304, with the
// headers the page itself would carry, when the request's If-None-Match
// names value, the page's ETag (representationTag of pageTag) in the
// coding it would be sent in. It reports whether it answered.
func notModified(w http.ResponseWriter, r *http.Request, value string) bool {
	inm := r.Header.Values("If-None-Match")
	if len(inm) == 0 || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	if !etag.Matches(inm, value) {
		return false
	}
	hd := w.Header()
	hd.Set("Cache-Control", "no-cache") // go-app's, on every page
	hd.Set("ETag", value)
	hd.Add("Vary", "Accept-Encoding")
	w.WriteHeader(http.StatusNotModified)
	return true
}

// pageCoders compress the pages. A page with the viewer's tiers is
// rendered for each request and compressed at the fastest settings: brotli
// takes the chart page from 21.4 kB to 6.0 kB in 0.16 ms, gzip to 5.9 kB in
// 0.27 ms. A page with an ETag is compressed once and kept (pageCache), so
// it is worth more of the server's time: brotli's quality 5 takes it to
// 4.7 kB in 0.87 ms, gzip's level 6 to 5.1 kB in 0.38 ms; brotli's 11
// (4.3 kB) took 33 ms, too long for the first browser to ask
// (docs/startup.md, "The pages kept"). A page holds no secret
// for a compression side channel to find: a viewer's token is a cookie,
// never written into a page.
type pageCoders struct {
	fast, kept map[string]*sync.Pool // by coding, of resettableWriter
}

type resettableWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}

func newPageCoders() *pageCoders {
	pools := func(brLevel, gzLevel int) map[string]*sync.Pool {
		return map[string]*sync.Pool{
			"br": {New: func() any { return brotli.NewWriterLevel(nil, brLevel) }},
			"gzip": {New: func() any {
				zw, _ := gzip.NewWriterLevel(nil, gzLevel) // a valid level: no error
				return zw
			}},
		}
	}
	return &pageCoders{fast: pools(brotli.BestSpeed, gzip.BestSpeed), kept: pools(5, gzip.DefaultCompression)}
}

// encode is the page body with its own headers, own, in coding, the one
// the browser weighs highest (preferredCoding; "" for none), and tag its
// ETag ("" for none). A page with an ETag is kept (pageCache), and is
// compressed harder. The ETag is weak: two renders of a page mean the same
// and differ in the order of attributes, so a 304 takes either, and a range
// (If-Range compares strongly) never mixes them.
func (p *pageCoders) encode(own http.Header, body []byte, coding, tag string) *sentPage {
	own.Del("Content-Length") // go-app's, of the page before it was rewritten
	own.Del("ETag")           // go-app's, its version
	pools := p.fast
	if tag != "" {
		pools = p.kept
	}
	if coding != "" {
		body = compress(pools[coding], body)
	}
	return &sentPage{etag: tag, coding: coding, header: own, body: body}
}

// compress is body compressed by a writer of pool.
func compress(pool *sync.Pool, body []byte) []byte {
	zw := pool.Get().(resettableWriter)
	var out bytes.Buffer
	zw.Reset(&out)
	// Writing to a bytes.Buffer fails only when memory runs out, which panics first.
	zw.Write(body)
	zw.Close()
	zw.Reset(io.Discard) // the pool keeps the writer, not the page
	pool.Put(zw)
	return out.Bytes()
}
