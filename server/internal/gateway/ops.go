package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// handleHealth says the process is up. With shared state it says whether
// Redis is in use: "degraded" while it is out of reach and this replica
// works alone (it still serves: HTTP 200), with the reason under "redis".
func (s *server) handleHealth() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		sh := s.cfg.Shared
		if sh == nil {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
			return
		}
		if why := sh.health(); why != "" {
			writeJSON(w, http.StatusOK, map[string]string{"status": "degraded", "redis": why})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "redis": "ok"})
	})
}

// handleReady says whether the server can serve: the venue accepts its key
// and answers a one-candle KLine call. Both calls pass the venue client's
// breakers (docs/decisions.md#failure-memory): while one is open, what it
// knows is answered at once, without a venue call, but for its one trial per
// wait, so that a server no browser reaches still learns the venue is back.
func (s *server) handleReady() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if s.venue.HasKey() && s.breakerOpen(venue.KeyBreaker) {
			// The key's trial, when one is due: the signed call with no parameters.
			if _, err := s.venue.PositionLimits(ctx, venueapi.LimitQuery{}); s.breakerOpen(venue.KeyBreaker) {
				s.notReady(w, r, "the venue refuses the server's key", err)
				return
			}
		}
		code := "BTC-USDT"
		if len(s.cfg.Contracts) > 0 {
			code = s.cfg.Contracts[0].Code
		}
		_, err := s.venue.KLine(ctx, venueapi.KLineQuery{ContractCode: code, Period: venueapi.Period1Min, Size: 1})
		var nf *venue.NotFoundError
		var rl *venue.RateLimitedError
		switch {
		case err == nil, errors.As(err, &nf): // an unknown contract is the venue answering
			writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		case errors.As(err, &rl):
			s.notReady(w, r, "the venue's request budget is spent", err)
		default:
			s.notReady(w, r, "the venue's kline endpoint is failing", err)
		}
	})
}

// breakerOpen reports whether the venue client's breaker name is open.
func (s *server) breakerOpen(name string) bool {
	for _, b := range s.venue.Breakers() {
		if b.Name == name {
			return b.Open
		}
	}
	return false
}

// notReady answers 503 with the reason, and logs what the venue said.
func (s *server) notReady(w http.ResponseWriter, r *http.Request, reason string, err error) {
	s.logFor(r).Warn("not ready", "reason", reason, "err", err)
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": reason})
}
