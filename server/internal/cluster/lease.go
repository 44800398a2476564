package cluster

import (
	"context"
	"fmt"
	"time"
)

// Lease is a lease asked for with Client.Lease. Of many replicas asking for
// a name within its ttl exactly one wins, so one replica does a periodic job
// (refreshing a series' current candle) and the others read its result. A
// lease ends after its ttl, or when its holder releases it, so a replica
// that stops mid-job delays the job by at most ttl.
//
// Each lease won has a value of its own in Redis, so Release ends that
// lease and no other: not one that replaced it after it ran out, whether
// another replica or this one (another goroutine, the job's next round)
// took the name again.
type Lease struct {
	Won bool // this call took the lease; Release of a lease not won does nothing

	c     *Client
	name  string
	value string // no other lease taken in the cluster has it
}

// Lease takes the lease called name for ttl when nobody holds it; the
// result's Won says whether this call took it.
func (c *Client) Lease(ctx context.Context, name string, ttl time.Duration) (Lease, error) {
	if err := validName("lease", name, maxKeyBytes); err != nil {
		return Lease{}, err
	}
	if ttl < time.Millisecond {
		return Lease{}, fmt.Errorf("lease %s: ttl %s: must be at least 1ms", name, ttl)
	}
	l := Lease{c: c, name: name, value: c.token()}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	won, err := c.rdb.SetNX(ctx, leaseKey(name), l.value, ttl).Result()
	if err = c.note(err, "lease "+name); err != nil {
		return Lease{}, err
	}
	l.Won = won
	return l, nil
}

// Release ends l now, if it was won and is still held: the job could not be
// done here (its budget was spent), and another replica may do it at once
// rather than after l's ttl. A lease that ran out, and any lease taken on
// its name since, are left alone; releasing twice is harmless.
func (l Lease) Release(ctx context.Context) error {
	if !l.Won || l.c == nil {
		return nil
	}
	ctx, cancel := l.c.bound(ctx)
	defer cancel()
	return l.c.note(l.c.scripts.release.Run(ctx, l.c.rdb, []string{leaseKey(l.name)}, l.value).Err(), "release "+l.name)
}

func leaseKey(name string) string { return prefix + "lease:" + name }
