package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The request log is for what an operator reads (docs/deploy.md#logs): a
// line per request at debug level when it was answered from what the server
// held (a cached answer, a live poll, a stream, a static file), at info
// level when it made the server fetch what it did not hold (a cache miss,
// with its venue call) or was refused, at warn or error when it failed; and
// a summary line at info level every minute (LogSummary).

// lookup is how a request's data was found, for its log line.
type lookup int32

const (
	lookupNone    lookup = iota // no cached data involved (a page, a file, health)
	lookupRefresh               // held, only the open candle refreshed from the venue: a live poll
	lookupMiss                  // not held: fetched from the venue
)

func (l lookup) String() string {
	switch l {
	case lookupRefresh:
		return "refresh"
	case lookupMiss:
		return "miss"
	}
	return ""
}

// noteLookup notes on ctx's request how its data was found; a miss is
// never overwritten by a refresh.
func noteLookup(ctx context.Context, l lookup) {
	if rec, ok := ctx.Value(requestKey).(*statusRecorder); ok {
		for {
			old := rec.cache.Load()
			if lookup(old) >= l || rec.cache.CompareAndSwap(old, int32(l)) {
				return
			}
		}
	}
}

// noteFailed notes on the request w answers that it got an error envelope,
// which the venue's paths send with HTTP 200 (docs/decisions.md#gateway-error-statuses).
func noteFailed(w http.ResponseWriter) {
	for {
		switch v := w.(type) {
		case *statusRecorder:
			v.failed = true
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return
		}
	}
}

// requestLevel is the level of a request's log line.
func requestLevel(status int, failed bool, l lookup) slog.Level {
	switch {
	case status == http.StatusInternalServerError:
		return slog.LevelError // a fault of ours, not the venue's
	case status >= 500:
		return slog.LevelWarn // the venue failing or busy, or a range too large for the cache
	case status >= 400, failed, l == lookupMiss:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// LogSummary writes the log's summary line: what the server answered since
// the previous line, from the counters it keeps for Prometheus.
type LogSummary struct {
	metrics prometheus.Gatherer
	log     *slog.Logger
	last    summaryCounts
}

// summaryCounts are the counters a summary line reports, since start.
type summaryCounts struct {
	requests, errors, refused, hits, misses, stale, venueCalls, venueFailures float64
}

// NewLogSummary sums up what the gateway counts on reg (Config.Registry),
// from now on.
func NewLogSummary(reg prometheus.Gatherer, log *slog.Logger) *LogSummary {
	s := &LogSummary{metrics: reg, log: log}
	s.last, _ = s.read()
	return s
}

// Run writes a summary line every period until ctx ends.
func (s *LogSummary) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Write(ctx)
		}
	}
}

// Write writes one summary line: the counts since the previous one, and the
// streams open now.
func (s *LogSummary) Write(ctx context.Context) {
	now, open := s.read()
	last := s.last
	s.log.Log(ctx, slog.LevelInfo, "summary",
		"requests", int64(now.requests-last.requests),
		"errors", int64(now.errors-last.errors),
		"refused", int64(now.refused-last.refused),
		"cache_hits", int64(now.hits-last.hits),
		"cache_misses", int64(now.misses-last.misses),
		"stale", int64(now.stale-last.stale),
		"venue_calls", int64(now.venueCalls-last.venueCalls),
		"venue_failures", int64(now.venueFailures-last.venueFailures),
		"streams_open", int64(open))
	s.last = now
}

// read gathers the counters, and the streams open.
func (s *LogSummary) read() (c summaryCounts, streamsOpen float64) {
	families, err := s.metrics.Gather()
	if err != nil {
		s.log.Debug("gathering the metrics for the log summary", "err", err) // what was gathered still counts
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			v := m.GetCounter().GetValue()
			label := func(name string) string {
				for _, l := range m.GetLabel() {
					if l.GetName() == name {
						return l.GetValue()
					}
				}
				return ""
			}
			switch f.GetName() {
			case "riskchart_requests_total":
				c.requests += v
				code, _ := strconv.Atoi(label("code"))
				switch {
				case code >= 500:
					c.errors += v
				case code == http.StatusTooManyRequests:
					c.refused += v
				}
			case "riskchart_cache_total":
				switch label("result") {
				case "hit":
					c.hits += v
				case "miss":
					c.misses += v
				case "stale":
					c.stale += v
				}
			case "riskchart_venue_calls_total":
				c.venueCalls += v
				if label("outcome") != "ok" {
					c.venueFailures += v
				}
			case "riskchart_streams_open":
				streamsOpen = m.GetGauge().GetValue()
			}
		}
	}
	return c, streamsOpen
}
