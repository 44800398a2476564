package gateway

import (
	"context"
	"errors"
	"net/http"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// handleTiers signs and forwards endpoint 1.
func (s *server) handleTiers() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, err := venueapi.ParseQuery(r.URL.RawQuery)
		if err != nil {
			s.writeInvalid(w, r, err)
			return
		}
		q, err := venueapi.ParseTierQuery(params)
		if err != nil {
			s.writeInvalid(w, r, err)
			return
		}
		if s.embedDenied(w, r, embedlink.PanelTiers, q.ContractCode) {
			return
		}
		if s.writeUnlisted(w, r, askedCode(q.ContractCode), func(l *listing) bool { return l.codes[q.ContractCode] }) {
			return
		}
		v, stale, err := s.privateGet(r, s.tiers, "tiers|"+q.ContractCode, func(ctx context.Context) (any, error) {
			env, err := s.venue.Tiers(ctx, q)
			s.metrics.countVenueCall(venue.EndpointTiers, err)
			return env, err
		})
		if err != nil && !stale {
			s.writeVenueError(w, r, askedCode(q.ContractCode), err)
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
// JSON body or in the query string (limitparams.go).
func (s *server) handleLimits() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, err := limitParams(w, r)
		if err != nil {
			s.writeInvalid(w, r, err)
			return
		}
		q, err := venueapi.ParseLimitQuery(params)
		if err != nil {
			if errors.As(err, new(*venueapi.CombinationError)) {
				s.metrics.local.WithLabelValues("combination").Inc()
			}
			s.writeInvalid(w, r, err)
			return
		}
		if s.embedDenied(w, r, embedlink.PanelLimits, q.ContractCode) {
			return
		}
		if q.ContractCode != "" {
			q.Pair, q.ContractType = "", "" // the venue reads the code alone (rule 2): one question, one key
		}
		a := askedCode(q.ContractCode)
		if q.ContractCode == "" {
			a = asked{"pair", q.Pair}
		}
		if a.value != "" && s.writeUnlisted(w, r, a, func(l *listing) bool {
			return l.codes[q.ContractCode] || (q.ContractCode == "" && l.pairs[q.Pair])
		}) {
			return
		}
		key := "limits|" + q.ContractCode + "|" + q.Pair + "|" + string(q.ContractType) + "|" + q.Business()
		v, stale, err := s.privateGet(r, s.limits, key, func(ctx context.Context) (any, error) {
			env, err := s.venue.PositionLimits(ctx, q)
			s.metrics.countVenueCall(venue.EndpointPositionLimit, err)
			return env, err
		})
		if err != nil && !stale {
			s.writeVenueError(w, r, a, err)
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
