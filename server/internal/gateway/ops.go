package gateway

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
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
// Until the venue has taken the key once, a probe makes the signed call (one
// for the probes at once): a rolling deployment with a wrong secret is not
// ready before a browser has asked for private data. While the KLine
// breaker is closed, a probe within readyFor of one the venue answered is
// answered from it (readyProbe).
func (s *server) handleReady() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if s.venue.HasKey() && (s.breakerOpen(venue.KeyBreaker) || !s.venue.KeyAccepted()) {
			// The key's trial when one is due, or its first check: the
			// signed call with no parameters.
			if err := s.probeKey(ctx); s.breakerOpen(venue.KeyBreaker) {
				s.notReady(w, r, "the venue refuses the server's key", err)
				return
			}
		}
		if s.ready.recent(s.now()) && !s.breakerOpen(venue.EndpointKLine) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
			return
		}
		err := s.probeKLine(ctx)
		var rl *venue.RateLimitedError
		switch {
		case err == nil:
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

// readyFor is how long a readiness probe's KLine call that the venue
// answered stands for the endpoint, while its breaker stays closed: the
// probes within it are answered from it, without a venue call. /readyz
// answers any client on any host (host.go), so a call per probe would let
// anyone spend the venue's budget at their client rate by asking it in a
// loop (README, "GET /readyz"; docs/decisions.md#failure-memory).
const readyFor = time.Second

// readyProbe is what the readiness probes' KLine calls learnt: when the
// venue last answered one, as the gateway's clock has it; concurrent
// probes share one call.
type readyProbe struct {
	calls    sharedCalls
	answered atomic.Int64 // Unix ns; 0: never
}

// recent reports whether the venue answered a probe less than readyFor
// before now.
func (p *readyProbe) recent(now time.Time) bool {
	at := p.answered.Load()
	age := now.Sub(time.Unix(0, at))
	return at != 0 && age >= 0 && age < readyFor
}

// probeKey makes the signed call with no parameters: what the venue
// answers opens or closes the key's breaker, or marks the key taken.
func (s *server) probeKey(ctx context.Context) error {
	return s.ready.share(ctx, "key", func(call context.Context) error {
		_, err := s.venue.PositionLimits(call, venueapi.LimitQuery{})
		s.metrics.countVenueCall(venue.EndpointPositionLimit, err)
		return err
	})
}

// probeKLine asks the venue for one candle of the first contract offered.
// An unknown contract is the venue answering.
func (s *server) probeKLine(ctx context.Context) error {
	code := "BTC-USDT"
	if len(s.cfg.Contracts) > 0 {
		code = s.cfg.Contracts[0].Code
	}
	return s.ready.share(ctx, "kline", func(call context.Context) error {
		_, err := s.venue.KLine(call, venueapi.KLineQuery{ContractCode: code, Period: venueapi.Period1Min, Size: 1})
		s.metrics.countVenueCall(venue.EndpointKLine, err)
		if nf := (*venue.NotFoundError)(nil); err == nil || errors.As(err, &nf) {
			s.ready.answered.Store(s.now().UnixNano())
			return nil
		}
		return err
	})
}

// share makes a probe's venue call, named key, once for the probes waiting
// at once, each within its own ctx, as every shared venue call is made, and
// bounded as each probe is.
func (p *readyProbe) share(ctx context.Context, key string, venueCall func(context.Context) error) error {
	_, err := p.calls.do(ctx, key, 3*time.Second, 0, nil, func(call context.Context) (any, error) {
		return nil, venueCall(call)
	})
	return err
}
