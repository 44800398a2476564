package cluster

import (
	"context"
	"strconv"
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

// Kept makes the shared log one that Redis has kept since long before, and
// empty: no turn is held for a log new to Redis. Tests whose subject is not
// that hold call it before the budget's first turn.
func (b *Budget) Kept(ctx context.Context) error {
	if err := b.runJoin(ctx, 0, nil); err != nil {
		return err
	}
	return b.c.rdb.Del(ctx, b.keys[0], b.keys[2]).Err() // the log, and the pause of a new one
}

// Spent adds turns aged ages (before now; negative: still to come) to the
// shared log, as a replica rejoining adds the turns it took alone.
func (b *Budget) Spent(ctx context.Context, ages ...time.Duration) error {
	return b.runJoin(ctx, 0, ages)
}

// Joining reports whether a join is under way.
func (b *Budget) Joining() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.joining != nil
}

// Flush empties Redis, as a restart without persistence would.
func (b *Budget) Flush(ctx context.Context) error { return b.c.rdb.FlushAll(ctx).Err() }

// Unmark deletes the log's marker alone: the log is then held as lost.
func (b *Budget) Unmark(ctx context.Context) error { return b.c.rdb.Del(ctx, b.keys[3]).Err() }

// OldTrim trims the log as the reserve script of a release before the
// marker did, every turn up to the window's start, as a replica not yet
// rolled over would.
func (b *Budget) OldTrim(ctx context.Context) error {
	return b.c.rdb.ZRemRangeByScore(ctx, b.keys[0], "-inf", strconv.FormatInt(time.Now().Add(-b.window).UnixMicro(), 10)).Err()
}
