package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// Charge is one call charged to a share with Client.Charge.
type Charge struct {
	OK         bool          // the call is charged: it may be made
	RetryAfter time.Duration // when not: until the share has room for one

	c      *Client
	key    string
	member string
}

// Charge charges one call to the share called name, which allows at most
// limit.Requests calls in any window of limit.Per for every replica
// together: a sliding-window log in Redis, on Redis's clock. A client's
// part of a venue budget is one such share, so that a proxy spreading the
// client's requests over the replicas does not multiply it
// (docs/decisions.md#private-fair-share).
func (c *Client) Charge(ctx context.Context, name string, limit venueapi.Limit) (Charge, error) {
	if err := validName("share", name, maxKeyBytes); err != nil {
		return Charge{}, err
	}
	if limit.Requests < 1 || limit.Per < time.Microsecond {
		return Charge{}, fmt.Errorf("share %s: limit %d per %s: must allow at least 1 call per positive interval", name, limit.Requests, limit.Per)
	}
	ch := Charge{c: c, key: prefix + "share:" + name, member: c.token()}
	cctx, cancel := c.bound(ctx)
	defer cancel()
	v, err := c.scripts.share.Run(cctx, c.rdb, []string{ch.key}, limit.Requests, limit.Per.Microseconds(), ch.member).Int64Slice()
	if err = c.note(err, "charge "+name); err != nil {
		return Charge{}, err
	}
	if len(v) != 2 {
		return Charge{}, fmt.Errorf("share %s: the charge script answered %d values, not 2", name, len(v))
	}
	ch.OK, ch.RetryAfter = v[0] == 1, time.Duration(v[1])*time.Microsecond
	return ch, nil
}

// Refund gives back a charged call that sent nothing. It costs a Redis
// call, bounded as any other, even when ctx is done.
func (ch Charge) Refund(ctx context.Context) error {
	if !ch.OK || ch.c == nil {
		return nil
	}
	cctx, cancel := ch.c.bound(context.WithoutCancel(ctx))
	defer cancel()
	return ch.c.note(ch.c.rdb.ZRem(cctx, ch.key, ch.member).Err(), "refund "+ch.key)
}
