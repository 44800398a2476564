package gateway

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"golang.org/x/sync/singleflight"
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
