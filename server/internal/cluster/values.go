package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Everything is the key a watcher is told when any value may have changed
// unseen: its subscription began, or was lost. Put refuses it as a key.
const Everything = ""

const (
	maxKeyBytes = 512
	channel     = prefix + "changed"
)

func valueKey(key string) string { return prefix + "value:" + key }

// Put stores value under key for ttl, then tells every watcher that key
// changed, in one atomic step, so that a watcher that reads key after the
// news reads this value or a newer one.
func (c *Client) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := c.validValue(key, value, ttl); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	_, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, valueKey(key), value, ttl)
		p.Publish(ctx, channel, key)
		return nil
	})
	return c.note(err, "put "+key)
}

// PutPooled is Put, but only while the pool called pool has room: its
// puts store at most poolBytes in a window of ttl, so that the pool's
// values, each alive at most ttl, never hold more than twice poolBytes of
// Redis's memory, whatever clients make the replicas put. kept is false
// when the pool is full; the value is then neither stored nor announced.
func (c *Client) PutPooled(ctx context.Context, key string, value []byte, ttl time.Duration, pool string, poolBytes int64) (kept bool, err error) {
	if err := c.validValue(key, value, ttl); err != nil {
		return false, err
	}
	if err := validName("pool", pool, maxKeyBytes); err != nil {
		return false, err
	}
	if poolBytes < 1 {
		return false, fmt.Errorf("pool %s: %d bytes: must be at least 1", pool, poolBytes)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	n, err := c.scripts.pooled.Run(ctx, c.rdb, []string{valueKey(key), prefix + "pool:" + pool}, value, ttl.Milliseconds(), poolBytes, channel, key).Int64()
	if err = c.note(err, "put "+key); err != nil {
		return false, err
	}
	return n == 1, nil
}

// validValue checks what Put and PutPooled are given: a key, a value of at
// most MaxValueBytes, and a ttl, so that every value expires.
func (c *Client) validValue(key string, value []byte, ttl time.Duration) error {
	if err := validName("value", key, maxKeyBytes); err != nil {
		return err
	}
	if len(value) > c.opt.MaxValueBytes {
		return fmt.Errorf("value %s: %d bytes: must be at most %d", key, len(value), c.opt.MaxValueBytes)
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("value %s: ttl %s: must be at least 1ms, so that every value expires", key, ttl)
	}
	return nil
}

// Get reads the value under key; found is false when there is none.
func (c *Client) Get(ctx context.Context, key string) (value []byte, found bool, err error) {
	if err := validName("value", key, maxKeyBytes); err != nil {
		return nil, false, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	value, err = c.rdb.Get(ctx, valueKey(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err = c.note(err, "get "+key); err != nil {
		return nil, false, err
	}
	return value, true, nil
}

// Watch calls changed with the key of every Put, by any replica, until ctx
// ends, and with Everything whenever it may have missed some: when its
// subscription begins and when it is lost. A replica keeps local copies of
// values and drops one on its key, so that a cache hit costs no Redis call.
// While Redis is out of reach Watch tries again every ProbeEvery. changed
// runs on Watch's goroutine, one call at a time; it should be quick.
func (c *Client) Watch(ctx context.Context, changed func(key string)) error {
	for {
		err := c.watch(ctx, changed)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.log.Debug("watching values: subscription lost", "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(c.opt.ProbeEvery):
		}
	}
}

// watch holds one subscription until it fails. A subscription idle for
// ProbeEvery is pinged; one that does not answer within Timeout is dropped.
func (c *Client) watch(ctx context.Context, changed func(key string)) error {
	ps := c.rdb.Subscribe(ctx)
	defer ps.Close()
	// Close ends a blocked receive when ctx ends.
	stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
	defer stop()

	sctx, cancel := c.bound(ctx)
	err := ps.Subscribe(sctx, channel)
	cancel()
	if err != nil {
		return c.note(err, "subscribe")
	}
	subscribed, pinged := false, false
	for {
		wait := c.opt.ProbeEvery
		if pinged || !subscribed {
			wait = c.opt.Timeout
		}
		msg, err := ps.ReceiveTimeout(ctx, wait)
		switch {
		case err != nil && timedOut(err) && !pinged && subscribed && ctx.Err() == nil:
			pctx, cancel := c.bound(ctx)
			err = ps.Ping(pctx)
			cancel()
			if err != nil {
				changed(Everything)
				return c.note(err, "ping subscription")
			}
			pinged = true
			continue
		case err != nil:
			if subscribed {
				changed(Everything)
			}
			return c.note(err, "receive")
		}
		pinged = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if !subscribed {
				subscribed = true
				changed(Everything)
			}
		case *redis.Message:
			changed(m.Payload)
		}
	}
}
