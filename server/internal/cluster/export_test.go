package cluster

import (
	"context"
	"time"
)

// Late is tooLate, for the tests of package cluster_test.
func (b *Budget) Late(r Reservation, now time.Time) bool { return b.tooLate(r, now) }

// Present is how many replicas the shared log holds as present, expired
// presences included until a reserve trims them.
func (b *Budget) Present(ctx context.Context) (int64, error) {
	return b.c.rdb.ZCard(ctx, b.keys[1]).Result()
}
