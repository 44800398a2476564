package bundle

import (
	"bytes"
	"container/list"
	"net/http"
	"sync"
	"time"
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

	mu    sync.Mutex
	bytes int                      // the kept pages' size (keptPage.size)
	order *list.List               // of *keptPage, the one sent most recently first
	byKey map[string]*list.Element // by keptPage.key
}

// keptPage is a page as it was answered.
type keptPage struct {
	key    string
	header http.Header // the page's own headers, without its coding, length and ETag
	body   []byte      // in the key's coding
}

// serve answers with p, in coding, the key's.
func (p *keptPage) serve(w http.ResponseWriter, r *http.Request, coding string) {
	hd := w.Header()
	for k, vs := range p.header {
		hd[k] = vs // pageCache.put's copy: full slices, which an Add copies before it appends
	}
	hd.Add("Vary", "Accept-Encoding") // beside any the gateway's
	serveEncoded(w, r, "page.html", time.Time{}, coding, p.key, bytes.NewReader(p.body), int64(len(p.body)))
}

// size is what p holds, in bytes, counting its headers.
func (p *keptPage) size() int {
	n := len(p.key) + len(p.body)
	for k, vs := range p.header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

func newPageCache(maxBytes int) *pageCache {
	return &pageCache{maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// get is the page kept under key, if any, which it counts as sent now. The
// page is shared: its header and body are not to be changed.
func (c *pageCache) get(key string) (*keptPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*keptPage), true
}

// put keeps a page under key: a copy of header, and body as it is, which
// the caller no longer changes. A page larger than the whole cache is not
// kept.
func (c *pageCache) put(key string, header http.Header, body []byte) {
	p := &keptPage{key: key, header: header.Clone(), body: body}
	size := p.size()
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok { // two browsers asked at once: keep the later
		c.bytes -= e.Value.(*keptPage).size()
		c.order.Remove(e)
	}
	c.byKey[key] = c.order.PushFront(p)
	c.bytes += size
	for c.bytes > c.maxBytes {
		last := c.order.Back()
		old := c.order.Remove(last).(*keptPage)
		delete(c.byKey, old.key)
		c.bytes -= old.size()
	}
}

// len is how many pages are kept.
func (c *pageCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
