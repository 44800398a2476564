package gateway

import (
	"bytes"
	"compress/gzip"
	"errors"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/acceptencoding"
	"github.com/riskchart/riskchart/server/internal/etag"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// answer is an encoded KLine answer, kept until the series changes, with
// its header values ready (see headers). The plain and the gzipped answer
// are two representations, each with an ETag of its own, as the bundle's
// files have (docs/deploy.md#behind-a-reverse-proxy): a cache holding both
// tells them apart by it, and a 304 names the one that would be sent.
type answer struct {
	body   []byte
	etag   string
	etagH  []string
	length []string

	gzOnce   sync.Once
	gz       []byte
	gzLength []string
	gzEtag   string
	gzEtagH  []string

	// delivery is, for a contract-type code, the delivery since which it
	// names the future whose candles these are (candles.Key.Since); 0 for
	// other codes. The body says it too, and a stream's state event.
	delivery int64
}

// Cost is what a kept answer counts against the cache bound: its body and
// room for its gzip (candle JSON compresses to well under half).
func (a *answer) Cost() int64 { return int64(len(a.body)) * 3 / 2 }

// handleKLine answers endpoint 3 from the candle cache: validated with the
// venue's rules (a bad request never reaches the venue), closed candles held
// forever, the current one refreshed at most once per interval.
func (s *server) handleKLine() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := parseKLine(r.URL.RawQuery)
		if err != nil {
			s.writeInvalid(w, r, err)
			return
		}
		now := s.now()
		if delivered(q.ContractCode, now) {
			s.writeVenueError(w, r, askedCode(q.ContractCode), errDelivered())
			return
		}
		q = withinHistory(q.Effective(), now)
		res, err := s.candles.answer(r.Context(), q)
		switch {
		case errors.Is(err, errRangeTrimmed):
			writeError(w, r.URL.Path, http.StatusServiceUnavailable, venueapi.CodeBusy, "the server's candle cache is too small for this range now; try again in a moment", s.now())
		case err != nil:
			s.writeVenueError(w, r, askedCode(q.ContractCode), err)
		case res.stale != nil:
			s.metrics.cache.WithLabelValues("candles", "stale").Inc()
			s.logFor(r).Warn("serving stale candles", "contract_code", q.ContractCode, "period", string(q.Period), "err", res.stale)
			w.Header()[staleHeader] = s.headers.stale
			s.writeAnswer(w, r, res.answer, s.headers.noStore)
		case res.immutable:
			s.writeAnswer(w, r, res.answer, s.headers.immutable)
		default:
			s.writeAnswer(w, r, res.answer, s.headers.live)
		}
	})
}

// parseKLine reads endpoint 3's query, every pair of it (see venueapi.ParseQuery).
func parseKLine(raw string) (venueapi.KLineQuery, error) {
	v, err := venueapi.ParseQuery(raw)
	if err != nil {
		return venueapi.KLineQuery{}, err
	}
	return venueapi.ParseKLineQuery(v)
}

// delivered reports whether code is a dated future delivered by now (a
// Friday 08:00 UTC, docs/decisions.md#futures-calendar): the venue no longer
// lists it (1013, docs/venue.md#contract-codes), whatever candles of it the
// cache held before.
func delivered(code string, now time.Time) bool {
	if strings.Count(code, "-") != 2 {
		return false // a swap: not parsed, which costs the cache hit an allocation
	}
	c, err := venueapi.ParseContractCode(code)
	return err == nil && c.Kind == venueapi.KindFuture && !now.Before(c.Delivery.Add(8*time.Hour))
}

// errDelivered is the venue's answer for a future delivered (delivered):
// not listed. The KLine path and the stream answer it alike.
func errDelivered() error {
	return &venue.NotFoundError{Code: venueapi.CodeNoSuchContract, Message: "delivered"}
}

// withinHistory narrows an effective query to the candles the venue answers:
// none whose id is earlier than two years before now, by a range or by size
// (docs/decisions.md#history-depth). The horizon moves with the clock, over
// candles the cache already holds. A range wholly before it is left with from
// after to: no candles.
func withinHistory(q venueapi.KLineQuery, now time.Time) venueapi.KLineQuery {
	first := q.Period.Ceil(now.UTC().AddDate(-2, 0, 0).Unix())
	if q.Range {
		q.From = max(q.From, first)
		return q
	}
	q.Size = int(min(int64(q.Size), q.Period.Count(first, q.Period.Start(now.Unix()))))
	return q
}

// staleHeader marks an answer served from the cache because the venue failed.
const staleHeader = "X-Riskchart-Stale"

// encode writes the venue's envelope, stamped now, around held candle
// records of the future delivered at delivery (venueapi.KLineEnvelope.Delivery;
// 0: a code that names one contract for good).
func encode(q venueapi.KLineQuery, recs [][]byte, stale bool, delivery int64, now time.Time) *answer {
	n := 96
	for _, rec := range recs {
		n += len(rec) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"ch":"`...)
	b = append(b, venueapi.Channel(q.ContractCode, q.Period)...) // upper-case letters, digits, '-', '.': nothing to escape
	b = append(b, `","status":"ok","ts":`...)
	b = strconv.AppendInt(b, now.UnixMilli(), 10)
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
	if delivery != 0 {
		b = strconv.AppendInt(append(b, `,"delivery":`...), delivery, 10)
	}
	b = append(b, '}')
	h := fnv.New64a()
	h.Write(b[data:]) // the data and the delivery, not ts: same candles of the same future, same tag
	h.Write([]byte(q.Period))
	sum := strconv.FormatUint(h.Sum64(), 36)
	tag, gzTag := `"`+sum+`"`, `"`+sum+`-gzip"`
	return &answer{body: b, etag: tag, etagH: []string{tag}, length: []string{strconv.Itoa(len(b))},
		gzEtag: gzTag, gzEtagH: []string{gzTag}, delivery: delivery}
}

// writeAnswer sends a, gzip-compressed when the browser takes it, or 304
// when the browser holds that representation already.
func (s *server) writeAnswer(w http.ResponseWriter, r *http.Request, a *answer, cacheControl []string) {
	h := w.Header()
	h["Content-Type"] = s.headers.json
	h["Vary"] = s.headers.vary
	h["Cache-Control"] = cacheControl
	if len(cacheControl) > 0 && strings.HasPrefix(cacheControl[0], "public") {
		// A shared cache keeps this header for every client that asks the
		// URL after this one, and takes a 304's as the answer's: the caller's
		// own bucket (limited) is not said here, only its size, the same for
		// all (docs/venue.md#served-by-riskchart).
		delete(h, "Ratelimit-Remaining")
		delete(h, "Ratelimit-Reset")
	}
	// Values, not Get: a list may come split over several field lines (RFC 9110, 5.3).
	gzipped := len(a.body) > 1024 && acceptencoding.Weight(r.Header.Values("Accept-Encoding"), "gzip") > 0
	tag, tagH := a.etag, a.etagH
	if gzipped {
		tag, tagH = a.gzEtag, a.gzEtagH
	}
	h["Etag"] = tagH // the canonical form of "ETag", as Header.Set would write it
	if etag.Matches(r.Header.Values("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, length := a.body, a.length
	if gzipped {
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
