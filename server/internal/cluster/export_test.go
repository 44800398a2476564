package cluster

import (
	"context"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
)

// Late says whether r's turn is too late to be sent at now, as Wait judges
// it, for the tests of package cluster_test; a refused reservation has no
// turn to be late for.
func (b *Budget) Late(r Reservation, now time.Time) bool {
	return r.OK && venue.TooLate(b.limit, r.at, now)
}

// Present is how many replicas the shared log holds as present, expired
// presences included until a reserve trims them.
func (b *Budget) Present(ctx context.Context) (int64, error) {
	return b.c.rdb.ZCard(ctx, b.keys[1]).Result()
}
