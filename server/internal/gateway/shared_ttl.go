package gateway

import (
	"context"
	"encoding/json"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
)

// The private caches' part of the state replicas share (docs/architecture.md,
// "Shared state (Redis)"): under ttl:<key> (tiers|<code>, limits|…) the last
// answer any replica got, with when it got it. A replica that lacks a fresh
// answer reads Redis first; when Redis has none, the replica that wins the
// key's lease calls the venue and puts the answer, and the others take it
// when told of it. So the cluster makes one venue call per key per TTL, and
// a cache hit costs no Redis call.

// sharedPoll is how often a replica waiting for another's answer looks
// again, should the news of it be lost or its fetcher die.
const sharedPoll = 250 * time.Millisecond

// sharedAnswer is a private answer as one replica puts it in Redis for the others.
type sharedAnswer struct {
	At      time.Time       `json:"at"`
	Value   json.RawMessage `json:"value,omitempty"`
	Refused *sharedRefusal  `json:"refused,omitempty"`
}

// share makes c share its answers through sh, under ttl:<scope>name|…;
// decode reads an answer back from its JSON. scope is "" for answers the
// same for every account (tiers), and names the account for its own
// (limits), so that servers of other keys sharing the Redis never answer them.
func (c *ttlCache) share(sh *SharedState, scope, name string, decode func([]byte) (any, error)) {
	c.cluster, c.name, c.decode, c.shared = sh, name, decode, "ttl:"+scope
	sh.on(c.shared+name+"|", func(ctx context.Context, rest string) {
		if rest == cluster.Everything {
			return // a miss reads Redis first: nothing kept here can hide a newer answer for long
		}
		key := name + "|" + rest
		if e, found, err := c.readShared(ctx, key); err == nil && found {
			c.keepNewer(key, e)
		}
	})
}

// getShared is the shared part of get: the answer under key from Redis, or
// from the venue for the whole cluster. done is false when Redis is out of
// reach: the caller then fetches for this replica alone.
func (c *ttlCache) getShared(ctx context.Context, key string, fetch func(context.Context) (any, error)) (v any, done bool, err error) {
	rkey := c.shared + key
	w := c.cluster.notice.watch(rkey)
	defer w.stop()
	for {
		if !c.cluster.shared() {
			return nil, false, nil
		}
		news := w.next()
		e, found, err := c.readShared(ctx, key)
		if err != nil {
			return nil, false, nil
		}
		if found && c.now().Sub(e.at) < c.ttl {
			c.keepNewer(key, e)
			c.cluster.count(c.name, "shared")
			return e.v, true, e.err
		}
		// The lease outlasts a fetch, not the answer: a replica that fails
		// to fetch holds the others back no longer than that.
		l, err := c.cluster.lease(ctx, rkey, min(c.ttl, c.timeout))
		if err != nil {
			return nil, false, nil
		}
		if l.Won {
			v, kept, err := c.fetchKeep(ctx, key, fetch)
			if kept == nil {
				c.cluster.release(ctx, l, err)
			}
			if kept != nil {
				a := sharedAnswer{At: kept.at, Refused: refusalOf(kept.err)}
				var merr error
				if kept.v != nil {
					a.Value, merr = json.Marshal(kept.v)
				}
				c.cluster.count(c.name, "fetched")
				if merr == nil { // else kept here only: the others fetch their own
					c.cluster.put(ctx, rkey, a, c.ttl)
				}
			}
			return v, true, err
		}
		if err := await(ctx, news, sharedPoll); err != nil {
			return nil, true, err
		}
		if e, _, fresh := c.entry(key); fresh {
			c.cluster.count(c.name, "shared")
			return e.v, true, e.err
		}
	}
}

// readShared reads the answer under key from Redis.
func (c *ttlCache) readShared(ctx context.Context, key string) (e ttlEntry, found bool, err error) {
	var a sharedAnswer
	if found, err = c.cluster.get(ctx, c.shared+key, &a); err != nil || !found {
		return ttlEntry{}, false, err
	}
	e.at = a.At
	switch {
	case a.Refused != nil:
		e.err = a.Refused.err()
	case len(a.Value) > 0:
		if e.v, err = c.decode(a.Value); err != nil {
			return ttlEntry{}, false, nil // another version's answer: as if absent
		}
	default:
		return ttlEntry{}, false, nil
	}
	return e, true, nil
}

// keepNewer keeps e under key unless what is kept is as new.
func (c *ttlCache) keepNewer(key string, e ttlEntry) {
	if held, ok, _ := c.entry(key); ok && !e.at.After(held.at) {
		return
	}
	c.keep(key, e)
}
