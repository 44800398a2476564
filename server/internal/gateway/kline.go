package gateway

import (
	"bytes"
	"compress/gzip"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/riskchart/riskchart/venueapi"
)

// answerKey names an encoded answer of a series: ch echoes the period as
// requested, so 60min and 1hour answers differ though their candles do not.
type answerKey struct {
	period venueapi.Period
	size   int
}

// answer is an encoded KLine answer, kept until the series changes, with
// its header values ready (see headers).
type answer struct {
	body   []byte
	etag   string
	etagH  []string
	length []string

	gzOnce   sync.Once
	gz       []byte
	gzLength []string
}

// cost is what a kept answer counts against the cache bound: its body and
// room for its gzip (candle JSON compresses to well under half).
func (a *answer) cost() int64 { return int64(len(a.body)) * 3 / 2 }

// handleKLine answers endpoint 3 from the candle cache: validated with the
// venue's rules (a bad request never reaches the venue), closed candles held
// forever, the current one refreshed at most once per interval.
func (s *server) handleKLine() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := venueapi.ParseKLineQuery(r.URL.Query())
		if err != nil {
			writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, err.Error(), s.now())
			return
		}
		q = q.Effective()
		sr := s.candles.get(seriesKey{code: q.ContractCode, period: q.Period.Canonical()})
		if q.Range {
			s.klineRange(w, r, sr, q)
			return
		}
		err = s.candles.latest(r.Context(), sr, q.Size)
		current := q.Period.Start(s.now().Unix())
		if err != nil {
			s.staleOrError(w, r, sr, q, err, func() [][]byte { return sr.last(q.Size, current) })
			return
		}
		k := answerKey{q.Period, q.Size}
		sr.mu.RLock()
		a, version, fresh := sr.answers[k], sr.version, false
		if a == nil {
			a, fresh = s.encode(q, sr.last(q.Size, current), false), true
		}
		sr.mu.RUnlock()
		if fresh {
			s.candles.keep(sr, k, a, version)
		}
		s.writeAnswer(w, r, a, s.headers.live)
	})
}

// klineRange answers a from/to query: immutable when every candle is closed.
func (s *server) klineRange(w http.ResponseWriter, r *http.Request, sr *series, q venueapi.KLineQuery) {
	defer sr.unpin(sr.pin(q.From, q.To))
	var a *answer
	var open bool
	var current int64
	for range 3 { // a trim may have taken what was held before rangeOf pinned it
		err := s.candles.rangeOf(r.Context(), sr, q.From, q.To)
		current = q.Period.Start(s.now().Unix())
		if err != nil {
			s.staleOrError(w, r, sr, q, err, func() [][]byte { recs, _ := sr.window(q.From, q.To, current); return recs })
			return
		}
		sr.mu.RLock()
		if sr.holds(q.From, q.To, current) {
			var recs [][]byte
			recs, open = sr.window(q.From, q.To, current)
			a = s.encode(q, recs, false)
		}
		sr.mu.RUnlock()
		if a != nil {
			break
		}
	}
	if a == nil {
		writeError(w, r.URL.Path, http.StatusServiceUnavailable, venueapi.CodeBusy, "the server's candle cache is too small for this range now; try again in a moment", s.now())
		return
	}
	cache := s.headers.immutable
	if open || q.To >= current {
		cache = s.headers.live
	}
	s.writeAnswer(w, r, a, cache)
}

// staleOrError answers a failed refresh: with the held candles marked stale
// when the venue failed and some are held, else with the error.
func (s *server) staleOrError(w http.ResponseWriter, r *http.Request, sr *series, q venueapi.KLineQuery, err error, held func() [][]byte) {
	if staleable(err) {
		sr.mu.RLock()
		recs := held()
		var a *answer
		if len(recs) > 0 {
			a = s.encode(q, recs, true)
		}
		sr.mu.RUnlock()
		if a != nil {
			s.metrics.cache.WithLabelValues("candles", "stale").Inc()
			s.logFor(r).Warn("serving stale candles", "contract_code", q.ContractCode, "period", string(q.Period), "err", err)
			w.Header()[staleHeader] = s.headers.stale
			s.writeAnswer(w, r, a, s.headers.noStore)
			return
		}
	}
	s.writeVenueError(w, r, err)
}

// staleHeader marks an answer served from the cache because the venue failed.
const staleHeader = "X-Riskchart-Stale"

// encode writes the venue's envelope around held candle records.
func (s *server) encode(q venueapi.KLineQuery, recs [][]byte, stale bool) *answer {
	n := 96
	for _, rec := range recs {
		n += len(rec) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"ch":"`...)
	b = append(b, venueapi.Channel(q.ContractCode, q.Period)...) // upper-case letters, digits, '-', '.': nothing to escape
	b = append(b, `","status":"ok","ts":`...)
	b = strconv.AppendInt(b, s.now().UnixMilli(), 10)
	data := len(b)
	b = append(b, `,"data":[`...)
	for i, rec := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, rec...)
	}
	b = append(b, ']')
	if stale {
		b = append(b, `,"stale":true`...)
	}
	b = append(b, '}')
	h := fnv.New64a()
	h.Write(b[data:]) // the data, not ts: same candles, same tag
	h.Write([]byte(q.Period))
	etag := `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
	return &answer{body: b, etag: etag, etagH: []string{etag}, length: []string{strconv.Itoa(len(b))}}
}

// writeAnswer sends a, gzip-compressed when the browser takes it, or 304
// when the browser holds it already.
func (s *server) writeAnswer(w http.ResponseWriter, r *http.Request, a *answer, cacheControl []string) {
	h := w.Header()
	h["Content-Type"] = s.headers.json
	h["Vary"] = s.headers.vary
	h["Etag"] = a.etagH // the canonical form of "ETag", as Header.Set would write it
	h["Cache-Control"] = cacheControl
	if etagMatch(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, length := a.body, a.length
	if len(body) > 1024 && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		a.gzOnce.Do(func() {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level: no error
			zw.Write(a.body)                                   // a bytes.Buffer does not fail
			zw.Close()
			a.gz, a.gzLength = buf.Bytes(), []string{strconv.Itoa(buf.Len())}
		})
		body, length = a.gz, a.gzLength
		h["Content-Encoding"] = s.headers.gzip
	}
	h["Content-Length"] = length
	w.Write(body)
}

// etagMatch reports whether an If-None-Match list names etag (or is "*").
func etagMatch(header, etag string) bool {
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (and does
// not refuse it with q=0).
func acceptsGzip(header string) bool {
	for header != "" {
		var item string
		item, header, _ = strings.Cut(header, ",")
		coding, params, _ := strings.Cut(strings.TrimSpace(item), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
