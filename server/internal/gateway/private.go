package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// ttlCache keeps the private answers briefly (tiers: minutes, limits:
// seconds) and shares identical concurrent calls, so that many browsers cost
// the private quota one call per key per TTL. A failed refresh falls back to
// the last answer, marked stale.
type ttlCache struct {
	ttl     time.Duration
	timeout time.Duration // of a shared venue call
	now     func() time.Time
	flight  singleflight.Group
	mu      sync.Mutex
	m       map[string]ttlEntry
}

type ttlEntry struct {
	v   any
	err error // the venue's "no such contract": kept like an answer
	at  time.Time
}

func newTTLCache(ttl, timeout time.Duration, now func() time.Time) *ttlCache {
	return &ttlCache{ttl: ttl, timeout: timeout, now: now, m: map[string]ttlEntry{}}
}

// ttlCacheMax bounds the answers kept; past it, expired ones are forgotten
// and new ones served without being kept.
const ttlCacheMax = 4096

// get returns the value under key, fresh within the TTL, calling fetch when
// it must. When the venue fails or the budget is spent it returns the last
// value, stale, with the error.
func (c *ttlCache) get(ctx context.Context, key string, fetch func(context.Context) (any, error)) (v any, stale bool, err error) {
	e, ok, fresh := c.entry(key)
	if fresh {
		return e.v, false, e.err
	}
	held := func() (any, bool, error) {
		e, _, fresh := c.entry(key)
		return e.v, fresh, e.err
	}
	v, err = shared(ctx, &c.flight, key, c.timeout, held, func(ctx context.Context) (any, error) {
		v, err := fetch(ctx)
		var nf *venue.NotFoundError
		switch {
		case errors.As(err, &nf):
			c.keep(key, ttlEntry{err: err})
		case err == nil:
			c.keep(key, ttlEntry{v: v})
		}
		return v, err
	})
	if err != nil && ok && e.v != nil && staleable(err) {
		return e.v, true, err
	}
	return v, false, err
}

// entry returns what is kept under key, whether there is anything, and
// whether it is fresh within the TTL.
func (c *ttlCache) entry(key string) (e ttlEntry, ok, fresh bool) {
	c.mu.Lock()
	e, ok = c.m[key]
	c.mu.Unlock()
	return e, ok, ok && c.now().Sub(e.at) < c.ttl
}

// keep stores e under key, as of now.
func (c *ttlCache) keep(key string, e ttlEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.m) >= ttlCacheMax {
		for k, e := range c.m {
			if now.Sub(e.at) >= c.ttl {
				delete(c.m, k)
			}
		}
	}
	if _, held := c.m[key]; held || len(c.m) < ttlCacheMax {
		e.at = now
		c.m[key] = e
	}
}

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

// limitParams reads endpoint 2's parameters: the query string, then a JSON
// object of strings or a form body.
func limitParams(r *http.Request) (url.Values, error) {
	v := r.URL.Query()
	if r.Method != http.MethodPost {
		return v, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil || len(body) == 0 {
		return v, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &venueapi.ParamError{Param: "body", Rule: "must be a valid form"}
		}
		for k, vs := range form {
			v[k] = vs
		}
		return v, nil
	}
	var obj map[string]string
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, &venueapi.ParamError{Param: "body", Rule: "must be a JSON object of string parameters"}
	}
	for k, x := range obj {
		v.Set(k, x)
	}
	return v, nil
}
