package bundle

import (
	"bytes"
	"container/list"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// keptPagesBytes bounds what pageCache holds: about 700 chart pages in
// brotli, or 200 sent uncompressed.
const keptPagesBytes = 4 << 20

// pageCache keeps the pages last sent whole, compressed, by their ETag in
// their coding (representationTag of pageTag). A page is made of what its
// tag names, the deployment, its URL and the contract list written in, so
// a page asked for again, by any browser, is sent as it was: neither
// go-app's render nor a compression runs again (BenchmarkChartPage). A page
// with the viewer's tiers has no tag and is never kept. Past maxBytes, the
// pages sent least recently go first.
type pageCache struct {
	maxBytes int

	mu     sync.Mutex
	bytes  int                      // the kept pages' size (sentPage.size)
	order  *list.List               // of *sentPage, the one sent most recently first
	byEtag map[string]*list.Element // by sentPage.etag
}

// sentPage is a page as it is sent.
type sentPage struct {
	etag   string      // its ETag in its coding, the cache's key; "" for a page not kept
	coding string      // the body's; "" for none
	header http.Header // the page's own headers, without its coding, length and ETag
	body   []byte
}

// serve answers with p. A kept page's header is pageCache.put's copy,
// whose slices are full: an Add to the response's copies them first.
func (p *sentPage) serve(w http.ResponseWriter, r *http.Request) {
	maps.Copy(w.Header(), p.header)
	w.Header().Add("Vary", "Accept-Encoding") // beside any the gateway's
	serveEncoded(w, r, "page.html", time.Time{}, p.coding, p.etag, bytes.NewReader(p.body), int64(len(p.body)))
}

// size is what p holds, in bytes, counting its headers.
func (p *sentPage) size() int {
	n := len(p.etag) + len(p.body)
	for k, vs := range p.header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

// pageAnswers counts the pages answered, by how (riskchart_pages_total's
// answer label). kept / (kept + rendered) is how often a page that could
// be kept was sent as kept.
type pageAnswers struct {
	revalidated prometheus.Counter // 304: the browser's copy is the page
	kept        prometheus.Counter // sent as kept (pageCache)
	rendered    prometheus.Counter // rendered, then kept
	viewer      prometheus.Counter // rendered with the viewer's tiers: never kept
}

// pageMetrics counts the pages answered and registers the counts in reg,
// with the size of what kept holds; nil reg: counted, not exported.
func pageMetrics(reg prometheus.Registerer, kept *pageCache) (pageAnswers, error) {
	byAnswer := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_pages_total",
		Help: "Pages of the app answered, by how: revalidated (304), kept (sent as kept), rendered (then kept), viewer (rendered with the viewer's tiers, never kept)."},
		[]string{"answer"})
	a := pageAnswers{ // each at 0 from the start, so that its rate exists
		revalidated: byAnswer.WithLabelValues("revalidated"),
		kept:        byAnswer.WithLabelValues("kept"),
		rendered:    byAnswer.WithLabelValues("rendered"),
		viewer:      byAnswer.WithLabelValues("viewer"),
	}
	if reg == nil {
		return a, nil
	}
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_pages_kept_bytes",
		Help: fmt.Sprintf("Bytes the pages kept as sent hold, at most %d.", kept.maxBytes)}, func() float64 { return float64(kept.held()) })
	for _, c := range []prometheus.Collector{byAnswer, held} {
		if err := reg.Register(c); err != nil {
			return pageAnswers{}, fmt.Errorf("registering the pages' metrics: %w", err)
		}
	}
	return a, nil
}

func newPageCache(maxBytes int) *pageCache {
	return &pageCache{maxBytes: maxBytes, order: list.New(), byEtag: map[string]*list.Element{}}
}

// get is the page kept under etag, if any, which it counts as sent now.
// The page is shared: its header and body are not to be changed.
func (c *pageCache) get(etag string) (*sentPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byEtag[etag]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*sentPage), true
}

// held is the size of the pages kept, in bytes (sentPage.size).
func (c *pageCache) held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// put keeps sent under its ETag, with a copy of its header; its body is
// kept as it is, which the caller no longer changes. A page larger than
// the whole cache is not kept.
func (c *pageCache) put(sent *sentPage) {
	p := *sent
	p.header = sent.header.Clone()
	size := p.size()
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byEtag[p.etag]; ok { // two browsers asked at once: keep the later
		c.bytes -= e.Value.(*sentPage).size()
		c.order.Remove(e)
	}
	c.byEtag[p.etag] = c.order.PushFront(&p)
	c.bytes += size
	for c.bytes > c.maxBytes {
		old := c.order.Remove(c.order.Back()).(*sentPage)
		delete(c.byEtag, old.etag)
		c.bytes -= old.size()
	}
}
