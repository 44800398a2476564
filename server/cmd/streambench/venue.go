package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// venue is the sandbox venue, with the time it first answered each version
// of each candle: the start of a push's (or a poll's) latency.
type venue struct {
	url string
	sb  *sandbox.Sandbox

	mu    sync.Mutex
	since time.Time            // versions first answered before it are not measured
	first map[string]time.Time // candle key (versionKey) -> when the venue first answered it
}

func startVenue(ctx context.Context) (*venue, error) {
	sb, err := sandbox.New(sandbox.Config{})
	if err != nil {
		return nil, fmt.Errorf("starting the sandbox venue: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the sandbox venue: %w", err)
	}
	v := &venue{url: "http://" + ln.Addr().String(), sb: sb, first: map[string]time.Time{}}
	srv := &http.Server{Handler: v.recording(sb), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	context.AfterFunc(ctx, func() { srv.Close() })
	return v, nil
}

// recording serves the sandbox, noting when each KLine answer was written
// whole (its handler returned) against every candle version it held.
func (v *venue) recording(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != venueapi.PathKLine {
			h.ServeHTTP(w, r)
			return
		}
		tee := &teeWriter{ResponseWriter: w}
		h.ServeHTTP(tee, r)
		at := time.Now()
		var env venueapi.KLineEnvelope
		if json.Unmarshal(tee.body.Bytes(), &env) != nil {
			return
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		for _, c := range env.Data {
			k := versionKey(env.Ch, c.ID, c.AppendJSON(nil))
			if _, ok := v.first[k]; !ok {
				v.first[k] = at
			}
		}
	})
}

// window starts measuring: only versions the venue answers from now on count.
func (v *venue) window(since time.Time) {
	v.mu.Lock()
	v.since = since
	v.mu.Unlock()
}

// answered returns when the venue first answered the candle key, whether
// it did, and whether that was within the window.
func (v *venue) answered(key string) (at time.Time, known, inWindow bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	at, known = v.first[key]
	return at, known, known && !at.Before(v.since)
}

// calls counts the KLine requests the venue received.
func (v *venue) calls() int64 { return v.sb.Received(venueapi.PathKLine) }

// versionKey names a version of a candle as the stream's event id does
// (docs/decisions.md#stream-event-ids): its channel, its id and the FNV-1a
// hash of its record as venueapi.Candle.AppendJSON writes it, in base 36.
func versionKey(ch string, id int64, record []byte) string {
	h := fnv.New64a()
	h.Write(record)
	return ch + "|" + strconv.FormatInt(id, 10) + "." + strconv.FormatUint(h.Sum64(), 36)
}

// teeWriter keeps a copy of what a handler writes.
type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.body.Write(p)
	return t.ResponseWriter.Write(p)
}
