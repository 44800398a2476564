package cluster

import (
	"context"
	"fmt"
	"time"
)

// Lease takes the lease called name for ttl when nobody holds it, and says
// whether this call took it. Of many replicas asking within ttl exactly one
// wins, so one replica does a periodic job (refreshing a series' current
// candle) and the others read its result. Nothing gives a lease back: it
// ends after ttl, and a replica that stops mid-job delays the job by at
// most ttl.
func (c *Client) Lease(ctx context.Context, name string, ttl time.Duration) (won bool, err error) {
	if err := validName("lease", name, maxKeyBytes); err != nil {
		return false, err
	}
	if ttl < time.Millisecond {
		return false, fmt.Errorf("lease %s: ttl %s: must be at least 1ms", name, ttl)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	won, err = c.rdb.SetNX(ctx, prefix+"lease:"+name, c.id, ttl).Result()
	if err = c.note(err, "lease "+name); err != nil {
		return false, err
	}
	return won, nil
}
