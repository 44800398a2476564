package gateway

import (
	"bytes"
	"compress/gzip"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// answerKey names an encoded answer of a series: ch echoes the period as
// requested, so 60min and 1hour answers differ though their candles do not.
type answerKey struct {
	period venueapi.Period
	size   int
}

// answer is an encoded KLine answer, kept until the series changes.
type answer struct {
	body []byte
	etag string

	gzOnce sync.Once
	gz     []byte
}

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
		stale, ok := s.servable(w, r, sr, s.candles.latest(r.Context(), sr, q.Period, q.Size))
		if !ok {
			return
		}
		current := q.Period.Start(s.now().Unix())
		sr.mu.RLock()
		a := sr.answers[answerKey{q.Period, q.Size}]
		if a == nil || stale {
			a = s.encode(q, sr.last(q.Period, q.Size, current), stale)
		}
		sr.mu.RUnlock()
		if !stale {
			sr.mu.Lock()
			sr.answers[answerKey{q.Period, q.Size}] = a
			sr.mu.Unlock()
		}
		s.writeAnswer(w, r, a, s.liveCacheControl(), stale)
	})
}

// servable says what filling the cache left to answer with: fresh candles,
// the held ones marked stale (the venue failed), or nothing, in which case
// it has answered the error itself.
func (s *server) servable(w http.ResponseWriter, r *http.Request, sr *series, err error) (stale, ok bool) {
	if err == nil {
		return false, true
	}
	sr.mu.RLock()
	held := len(sr.recs) > 0
	sr.mu.RUnlock()
	if staleable(err) && held {
		return true, true
	}
	s.writeVenueError(w, r, err)
	return false, false
}

// liveCacheControl lets browsers keep an answer holding the open candle for
// one refresh interval.
func (s *server) liveCacheControl() string {
	return "public, max-age=" + strconv.Itoa(max(1, int(s.cfg.RefreshInterval/time.Second)))
}

// klineRange answers a from/to query: immutable when every candle is closed.
func (s *server) klineRange(w http.ResponseWriter, r *http.Request, sr *series, q venueapi.KLineQuery) {
	stale, ok := s.servable(w, r, sr, s.candles.rangeOf(r.Context(), sr, q.Period, q.From, q.To))
	if !ok {
		return
	}
	current := q.Period.Start(s.now().Unix())
	sr.mu.RLock()
	recs, open := sr.window(q.Period, q.From, q.To, current)
	a := s.encode(q, recs, stale)
	sr.mu.RUnlock()
	cache := "public, max-age=31536000, immutable"
	if open || q.To >= current {
		cache = s.liveCacheControl()
	}
	s.writeAnswer(w, r, a, cache, stale)
}

// encode writes the venue's envelope around held candle records.
func (s *server) encode(q venueapi.KLineQuery, recs [][]byte, stale bool) *answer {
	n := 96
	for _, rec := range recs {
		n += len(rec) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"ch":"`...)
	b = append(b, venueapi.Channel(q.ContractCode, q.Period)...)
	b = append(b, `","status":"ok","ts":`...)
	b = strconv.AppendInt(b, s.now().UnixMilli(), 10)
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
	h.Write(b[bytes.IndexByte(b, '['):]) // the data, not ts: same candles, same tag
	return &answer{body: b, etag: `"` + strconv.FormatUint(h.Sum64(), 36) + `"`}
}

// writeAnswer sends a, gzip-compressed when the browser takes it, or 304
// when the browser holds it already.
func (s *server) writeAnswer(w http.ResponseWriter, r *http.Request, a *answer, cacheControl string, stale bool) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Vary", "Accept-Encoding")
	h.Set("ETag", a.etag)
	if stale {
		h.Set("X-Riskchart-Stale", "true")
		cacheControl = "no-store"
	}
	h.Set("Cache-Control", cacheControl)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if len(body) > 1024 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		a.gzOnce.Do(func() {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level
			zw.Write(a.body)
			zw.Close()
			a.gz = buf.Bytes()
		})
		body = a.gz
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
