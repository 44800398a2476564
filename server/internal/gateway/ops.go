package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func handleHealth() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// handleReady checks that the venue answers (a one-candle KLine call).
func (s *server) handleReady() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		code := "BTC-USDT"
		if len(s.cfg.Contracts) > 0 {
			code = s.cfg.Contracts[0].Code
		}
		if _, err := s.venue.KLine(ctx, venueapi.KLineQuery{ContractCode: code, Period: venueapi.Period1Min, Size: 1}); err != nil {
			var nf *venue.NotFoundError
			if !errors.As(err, &nf) { // an unknown contract is the venue answering
				s.logFor(r).Warn("not ready: the venue does not answer", "err", err)
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "venue unavailable"})
				return
			}
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
}
