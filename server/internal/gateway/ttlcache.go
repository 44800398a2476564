package gateway

import (
	"context"
	"sync"
	"time"
)

// ttlCache keeps the private answers briefly (tiers: minutes, limits:
// seconds) and shares identical concurrent calls, so that many browsers cost
// the private quota one call per key per TTL. A refresh that fails, or takes
// longer than staleAfter, answers the last answer, marked stale.
type ttlCache struct {
	ttl        time.Duration
	timeout    time.Duration // of a shared venue call
	staleAfter time.Duration // the longest a caller holding an answer waits for a refresh
	now        func() time.Time
	calls      sharedCalls
	mu         sync.Mutex
	m          map[string]ttlEntry
	cluster    *SharedState // nil: this process alone (shared_ttl.go)
	name       string       // in the cache's Redis keys and metrics: tiers, limits
	shared     string       // the prefix of its Redis keys: ttl:, and the account for an account's own answers
	decode     func([]byte) (any, error)
}

type ttlEntry struct {
	v   any
	err error // the venue's refusal of the query (1013, 1030): kept like an answer
	at  time.Time
}

func newTTLCache(ttl, timeout, staleAfter time.Duration, now func() time.Time, d *Detached) *ttlCache {
	return &ttlCache{ttl: ttl, timeout: timeout, staleAfter: staleAfter, now: now, m: map[string]ttlEntry{}, calls: sharedCalls{life: d}}
}

// ttlCacheMax bounds the answers kept; past it, expired ones are forgotten
// and new ones served without being kept.
const ttlCacheMax = 4096

// get returns the value under key, fresh within the TTL, calling fetch when
// it must. When the venue fails, the budget is spent, or the refresh takes
// longer than staleAfter, it returns the last value, stale, with the error;
// a slow refresh goes on and keeps its answer for the next caller.
func (c *ttlCache) get(ctx context.Context, key string, fetch func(context.Context) (any, error)) (v any, stale bool, err error) {
	e, ok, fresh := c.entry(key)
	if fresh {
		return e.v, false, e.err
	}
	held := func() (any, bool, error) {
		e, _, fresh := c.entry(key)
		return e.v, fresh, e.err
	}
	var patience time.Duration // with nothing to answer instead, wait for the venue
	if ok && e.v != nil {
		patience = c.staleAfter
	}
	v, err = c.calls.do(ctx, key, c.timeout, patience, held, func(ctx context.Context) (any, error) {
		if c.cluster.shared() {
			if v, done, err := c.getShared(ctx, key, fetch); done {
				return v, err
			}
		}
		v, _, err := c.fetchKeep(ctx, key, fetch)
		c.cluster.countAlone(c.name, err)
		return v, err
	})
	if err != nil && ok && e.v != nil && staleable(err) {
		return e.v, true, err
	}
	return v, false, err
}

// fetchKeep calls fetch and keeps its answer, or the venue's refusal, under
// key; kept is what it kept, if anything.
func (c *ttlCache) fetchKeep(ctx context.Context, key string, fetch func(context.Context) (any, error)) (v any, kept *ttlEntry, err error) {
	v, err = fetch(ctx)
	switch {
	case refusalOf(err) != nil: // the venue refusing the query itself: asking again within the TTL gets the same answer
		kept = &ttlEntry{err: err}
	case err == nil:
		kept = &ttlEntry{v: v}
	default:
		return v, nil, err
	}
	kept.at = c.now()
	c.keep(key, *kept)
	return v, kept, err
}

// entry returns what is kept under key, whether there is anything, and
// whether it is fresh within the TTL.
func (c *ttlCache) entry(key string) (e ttlEntry, ok, fresh bool) {
	c.mu.Lock()
	e, ok = c.m[key]
	c.mu.Unlock()
	return e, ok, ok && c.now().Sub(e.at) < c.ttl
}

// keep stores e under key, as of e.at.
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
		c.m[key] = e
	}
}
