package gateway

import (
	"context"
	"net/http"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/venueapi"
)

// handleTiers signs and forwards endpoint 1.
func (s *server) handleTiers() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := venueapi.ParseTierQuery(r.URL.Query())
		if err != nil {
			writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, err.Error(), s.now())
			return
		}
		if s.embedDenied(w, r, embedlink.PanelTiers, q.ContractCode) {
			return
		}
		v, stale, err := s.tiers.get(r.Context(), "tiers|"+q.ContractCode, func(ctx context.Context) (any, error) {
			env, err := s.venue.Tiers(ctx, q)
			s.metrics.venueCalls.WithLabelValues("tiers", outcome(err)).Inc()
			return env, err
		})
		if err != nil && !stale {
			s.writeVenueError(w, r, err)
			return
		}
		if stale {
			s.logFor(r).Warn("serving stale tiers", "contract_code", q.ContractCode, "err", err)
		}
		env := *v.(*venueapi.TierEnvelope) // a copy: the cached one is shared
		env.Stale, env.Ts = stale, s.now().UnixMilli()
		s.writePrivate(w, env, stale)
	})
}

// handleLimits signs and forwards endpoint 2, whose parameters come as a
// JSON body, a form body or the query string.
func (s *server) handleLimits() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, err := limitParams(r)
		if err != nil {
			writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, err.Error(), s.now())
			return
		}
		q, err := venueapi.ParseLimitQuery(params)
		if err != nil {
			writeError(w, r.URL.Path, http.StatusBadRequest, venueapi.CodeInvalidInput, err.Error(), s.now())
			return
		}
		if s.embedDenied(w, r, embedlink.PanelLimits, q.ContractCode) {
			return
		}
		key := "limits|" + q.ContractCode + "|" + q.Pair + "|" + string(q.ContractType) + "|" + q.Business()
		v, stale, err := s.limits.get(r.Context(), key, func(ctx context.Context) (any, error) {
			env, err := s.venue.PositionLimits(ctx, q)
			s.metrics.venueCalls.WithLabelValues("position_limit", outcome(err)).Inc()
			return env, err
		})
		if err != nil && !stale {
			s.writeVenueError(w, r, err)
			return
		}
		if stale {
			s.logFor(r).Warn("serving stale position limits", "err", err)
		}
		env := *v.(*venueapi.LimitEnvelope) // a copy: the cached one is shared
		env.Stale, env.Ts = stale, s.now().UnixMilli()
		s.writePrivate(w, env, stale)
	})
}

// writePrivate answers a private path: never kept by a browser or proxy.
func (s *server) writePrivate(w http.ResponseWriter, v any, stale bool) {
	if stale {
		w.Header().Set(staleHeader, "true")
	}
	w.Header().Set("Cache-Control", "private, no-store")
	writeJSON(w, http.StatusOK, v)
}
