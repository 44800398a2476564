package cluster

import (
	"context"
	"fmt"
	"time"
)

// Lease takes the lease called name for ttl when nobody holds it, and says
// whether this call took it. Of many replicas asking within ttl exactly one
// wins, so one replica does a periodic job (refreshing a series' current
// candle) and the others read its result. A lease ends after ttl, or when
// its holder releases it, so a replica that stops mid-job delays the job by
// at most ttl.
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

// Release ends the lease called name now, if this client holds it: the job
// could not be done here (its budget was spent), and another replica may do
// it at once rather than after the lease's ttl.
func (c *Client) Release(ctx context.Context, name string) error {
	if err := validName("lease", name, maxKeyBytes); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.note(c.scripts.release.Run(ctx, c.rdb, []string{prefix + "lease:" + name}, c.id).Err(), "release "+name)
}
