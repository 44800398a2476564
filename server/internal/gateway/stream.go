package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

const (
	// streamHeartbeat is the pace of the comment that keeps idle proxies
	// from closing a stream and lets a browser see a buffering one.
	streamHeartbeat = 15 * time.Second
	// streamWriteTimeout bounds one write to a subscriber: a client that
	// stopped reading holds its connection no longer than that once dropped.
	streamWriteTimeout = 10 * time.Second
	// streamRetry is the browser's wait before it reconnects a stream that
	// ended, given at the start of each stream.
	streamRetry = 2 * time.Second
	// streamRetryAfter is the Retry-After of a stream refused by a cap: a
	// stream frees its place only when its viewer leaves.
	streamRetryAfter = 15 * time.Second
)

// handleStream answers venueapi.PathStreamKLine: the latest candles of the series
// (or, with Last-Event-ID, every candle the client missed since that event),
// then each candle as it changes. The query is checked, and the series
// asked for once, before the stream starts, so that a bad query, an unknown
// contract or a cap is an ordinary answer with a status and the KLine
// path's envelope.
func (s *server) handleStream() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := parseStreamQuery(r.URL.RawQuery)
		if err == nil {
			var last lastEvent
			var resume bool
			if last, resume, err = parseLastEventID(r.Header.Get("Last-Event-ID")); err == nil {
				s.stream(w, r, q, last, resume)
				return
			}
		}
		writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, err.Error(), s.now())
	})
}

// parseStreamQuery reads a stream's query: contract_code and period, with
// the KLine path's rules, and nothing else.
func parseStreamQuery(raw string) (venueapi.KLineQuery, error) {
	v, err := venueapi.ParseQuery(raw)
	if err != nil {
		return venueapi.KLineQuery{}, err
	}
	for name := range v {
		if name == "" {
			return venueapi.KLineQuery{}, &venueapi.ParamError{Param: "query", Rule: "must name each parameter: the stream takes contract_code and period"}
		}
		if name != "contract_code" && name != "period" {
			return venueapi.KLineQuery{}, &venueapi.ParamError{Param: name, Rule: "is not a parameter of the stream, which takes contract_code and period"}
		}
	}
	return venueapi.ParseKLineQuery(v)
}

func (s *server) stream(w http.ResponseWriter, r *http.Request, q venueapi.KLineQuery, last lastEvent, resume bool) {
	if delivered(q.ContractCode, s.now()) { // as the KLine path answers it, whatever a pump holds
		s.writeStreamError(w, r, askedCode(q.ContractCode), errDelivered())
		return
	}
	sub, recent, st, err := s.streams.subscribe(r.Context(), s.clientOf(r), streamKey{code: q.ContractCode, period: q.Period})
	if err != nil {
		s.writeStreamError(w, r, askedCode(q.ContractCode), err)
		return
	}
	first := s.streams.catchUp(r.Context(), sub.pump, recent, st, last, resume)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on as it comes
	if r.Method == http.MethodHead {
		s.streams.unsubscribe(sub)
		w.WriteHeader(http.StatusOK)
		return
	}
	// The stream takes the connection over from net/http: a stream held in
	// its handler costs two goroutines and net/http's buffers, three times
	// what one goroutine writing to the connection does
	// (docs/performance.md#the-stream-bench).
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		send := func(b ...[]byte) bool {
			conn.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			bufs := net.Buffers(b)
			_, err := bufs.WriteTo(conn)
			return err == nil
		}
		forget := s.streams.life.track(conn)
		go func() {
			defer conn.Close()
			defer forget()
			defer s.streams.unsubscribe(sub)
			// No Content-Length, no chunks: the events end with the connection.
			if send(responseHead(h), retryField(streamRetry), first) {
				s.streams.push(sub, send, nil, func() bool { return !peerClosed(conn) })
			}
		}()
		return
	}
	// A connection net/http does not give up (HTTP/2): the handler streams
	// until the client leaves.
	defer s.streams.unsubscribe(sub)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(b ...[]byte) bool {
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) // not supported by some writers: then the connection's own
		for _, p := range b {
			if _, err := w.Write(p); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	if send(retryField(streamRetry), first) {
		s.streams.push(sub, send, r.Context().Done(), nil)
	}
}

// peerProbe is how long peerClosed waits, after a heartbeat, for the
// peer's end of a connection it has not seen yet.
const peerProbe = time.Millisecond

// peerClosed reports whether the client closed a taken-over connection.
// A browser sends nothing on its stream's connection after the request,
// so anything read is its end (or garbage it has no business sending). A
// write to a connection whose peer closed it succeeds once, into the
// socket's buffer, and fails only after the peer's reset: on a series that
// does not change, that would be the second heartbeat, 30 s after the
// browser left (docs/decisions.md#stream-drop-policy).
func peerClosed(conn net.Conn) bool {
	if err := conn.SetReadDeadline(time.Now().Add(peerProbe)); err != nil {
		return true
	}
	var b [1]byte
	_, err := conn.Read(b[:])
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// responseHead is the status line and header of a stream's answer, as
// net/http would write them for a body that ends with the connection.
func responseHead(h http.Header) []byte {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	h.Write(&b) // writes to a bytes.Buffer do not fail
	b.WriteString("Connection: close\r\n\r\n")
	return b.Bytes()
}

// push writes sub's events with send until the stream ends: its subscriber
// a whole buffer behind, a write failing (the client left), done (the
// request's context), alive false after a heartbeat (the client left,
// though the write went into the socket's buffer; a stream with pushes
// finds that out at the next one; nil: done says so), or the server
// shutting down.
func (h *streamHub) push(sub *subscriber, send func(...[]byte) bool, done <-chan struct{}, alive func() bool) {
	beat := time.NewTicker(streamHeartbeat)
	defer beat.Stop()
	for {
		var out [][]byte
		idle := false
		select {
		case b := <-sub.ch:
			out = append(out, b)
			for more := true; more; { // what else is waiting goes in the same write
				select {
				case b := <-sub.ch:
					out = append(out, b)
				default:
					more = false
				}
			}
		case <-beat.C:
			out, idle = append(out, heartbeat), true
		case <-sub.dropped:
			return // the browser reconnects and catches up
		case <-done:
			return
		case <-h.life.stop:
			// Spread the reconnections over a few seconds, for the replicas
			// that stay or the one that comes back.
			send(retryField(time.Second + rand.N(4*time.Second)))
			return
		}
		if !send(out...) {
			return
		}
		if idle && alive != nil && !alive() {
			return
		}
	}
}

// Streams is the lifetime of the candle streams. A stream outlives the
// request that opened it, on a connection taken over from net/http, so
// http.Server.Shutdown neither ends it nor waits for it: Close does both.
type Streams struct {
	stop    chan struct{}
	stopped func() // closes stop, once
	mu      sync.Mutex
	open    int
	drained chan struct{} // closed once stop is and no stream is open
	drain   func()
	conns   map[net.Conn]struct{} // the taken-over connections of the streams open
	cut     bool                  // Close gave up waiting: their connections are closed
}

// NewStreams returns the lifetime of a gateway's streams, to close at shutdown.
func NewStreams() *Streams {
	s := &Streams{stop: make(chan struct{}), drained: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	s.stopped = sync.OnceFunc(func() { close(s.stop) })
	s.drain = sync.OnceFunc(func() { close(s.drained) })
	return s
}

// Close ends every stream, each with a retry hint that spreads the
// browsers' reconnections over a few seconds, refuses new ones, and waits
// until every stream has ended or ctx is done. A stream still open then
// (its client stopped reading, its write waiting for the write timeout) has
// its connection closed, which ends it: http.Server.Close does not close a
// connection taken over from it, and the stream would otherwise outlive
// its server.
func (s *Streams) Close(ctx context.Context) error {
	s.stopped()
	s.mu.Lock()
	if s.open == 0 {
		s.drain()
	}
	s.mu.Unlock()
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if s.open == 0 { // select picks either when both are ready
		s.mu.Unlock()
		return nil
	}
	s.cut = true
	n := len(s.conns)
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	return fmt.Errorf("ending the candle streams: %d connections closed, %w", n, ctx.Err())
}

// track keeps c, a stream's taken-over connection, for Close to close should
// its wait end first; forget lets it go. A connection taken over once Close
// has given up is closed at once.
func (s *Streams) track(c net.Conn) (forget func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut {
		c.Close()
		return func() {}
	}
	s.conns[c] = struct{}{}
	return func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}
}

// hold counts a stream opening; false once Close has begun.
func (s *Streams) hold() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.stop:
		return false
	default:
	}
	s.open++
	return true
}

// release counts a stream ended.
func (s *Streams) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
	select {
	case <-s.stop:
		if s.open == 0 {
			s.drain()
		}
	default:
	}
}

// heartbeat is a comment line: browsers ignore it, proxies see traffic.
var heartbeat = []byte(": heartbeat\n\n")

// retryField tells the browser how long to wait before it reconnects.
func retryField(d time.Duration) []byte {
	b := append([]byte("retry: "), strconv.FormatInt(d.Milliseconds(), 10)...)
	return append(b, "\n\n"...)
}

// catchUp is what a new subscriber gets first: the state as it stands (the
// stale mark, and a type code's delivery), then the pump's latest candles,
// or after a reconnection (resume) only those the client missed since last,
// taken from the candle cache where they are older than the pump's. The
// state comes first so that a chart resuming across a delivery learns that
// the candles that follow are the next future's before it draws any.
func (h *streamHub) catchUp(ctx context.Context, p *pump, recent []streamRecord, st streamState, last lastEvent, resume bool) []byte {
	b := appendStateEvent(nil, p.ch, st)
	if resume && len(recent) > 0 && last.id < recent[0].id {
		now := p.key.period.Start(h.now().Unix())
		n := min(p.key.period.Count(last.id, now), venueapi.KLineMaxSize)
		res, err := h.candles.answer(ctx, venueapi.KLineQuery{ContractCode: p.key.code, Period: p.key.period, Size: int(max(n, 1))})
		var older []streamRecord
		if err == nil {
			older, err = streamRecords(res.answer.body)
		}
		if err != nil {
			// The client gets the latest candles only, as a new one would.
			h.log.Debug("catching a stream up failed", "contract_code", p.key.code, "period", string(p.key.period), "err", err)
		}
		for _, r := range older {
			if r.id < recent[0].id && last.missed(r) {
				b = appendCandleEvent(b, p.ch, r)
			}
		}
	}
	for _, r := range recent {
		if !resume || last.missed(r) {
			b = appendCandleEvent(b, p.ch, r)
		}
	}
	return b
}

// writeStreamError answers a stream that could not start, with the KLine
// path's envelope under an ordinary HTTP status: 400 for a query the venue
// refuses, 404 for an unknown contract (a, named), 429 for a cap, and the
// venue's failures as the KLine path answers them.
func (s *server) writeStreamError(w http.ResponseWriter, r *http.Request, a asked, err error) {
	var (
		full *errStreamsFull
		nf   *venue.NotFoundError
		inv  *venue.InvalidRequestError
		rej  *venue.RejectedError
	)
	switch {
	case errors.As(err, &full):
		budget := "streams"
		if full.perClient {
			budget = "client_streams"
		}
		s.metrics.throttled.WithLabelValues(budget).Inc()
		writeRateLimited(w, r.URL.Path, streamRetryAfter, s.now(), full.Error())
	case errors.Is(err, errStreamsClosed):
		w.Header().Set("Retry-After", "5")
		writeError(w, r.URL.Path, http.StatusServiceUnavailable, venueapi.CodeBusy, "the server is shutting down; try again in a moment", s.now())
	case errors.As(err, &nf):
		writeError(w, r.URL.Path, http.StatusNotFound, venueapi.CodeNoSuchContract, a.unlisted(), s.now())
	case errors.As(err, &inv):
		writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, inv.Error(), s.now())
	case errors.As(err, &rej) && rej.Code == venueapi.CodeInvalidInput: // the venue's own word on the query
		writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, rej.Message, s.now())
	default:
		s.writeVenueError(okAsBadGateway{w}, r, a, err)
	}
}

// okAsBadGateway turns the venue's business errors, which its paths answer
// under HTTP 200, into a 502 on the stream's route: none of them is a
// stream.
type okAsBadGateway struct{ http.ResponseWriter }

func (w okAsBadGateway) WriteHeader(code int) {
	if code == http.StatusOK {
		code = http.StatusBadGateway
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w okAsBadGateway) Unwrap() http.ResponseWriter { return w.ResponseWriter }
