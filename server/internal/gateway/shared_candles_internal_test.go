package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/venueapi"
)

func TestHistoryBlocksAreAlignedRunsOf2000CandlesForEveryPeriod(t *testing.T) {
	ts := []int64{
		0, // the epoch: block 0's first candle
		time.Date(2026, 11, 22, 12, 34, 56, 0, time.UTC).Unix(), // within a block
		time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC).Unix(),  // a leap day's last second
	}
	for _, p := range venueapi.Periods() {
		for _, at := range ts {
			id := p.Start(at)
			b := blockOf(p, id)
			switch {
			case b.lo > id || id > b.hi:
				t.Errorf("%s %d: block %d is %d..%d, which does not hold it", p, id, b.n, b.lo, b.hi)
			case p.Count(b.lo, b.hi) != blockLen:
				t.Errorf("%s %d: block %d holds %d candles, want %d", p, id, b.n, p.Count(b.lo, b.hi), blockLen)
			case p.Start(b.lo) != b.lo || p.Start(b.hi) != b.hi:
				t.Errorf("%s %d: block %d's ends %d, %d are not candle starts", p, id, b.n, b.lo, b.hi)
			case p.Count(0, b.lo)-1 != b.n*blockLen:
				t.Errorf("%s %d: block %d starts at candle %d since the epoch, want %d", p, id, b.n, p.Count(0, b.lo)-1, b.n*blockLen)
			}
			// Every candle of the block names the same block, and the
			// next candle the next: replicas asking any part agree.
			for _, other := range []int64{b.lo, b.hi, p.Prev(id), p.Next(id)} {
				if other < b.lo || other > b.hi {
					continue
				}
				if o := blockOf(p, other); o != b {
					t.Errorf("%s: candle %d is in block %+v, candle %d in %+v", p, id, b, other, o)
				}
			}
			if next := blockOf(p, p.Next(b.hi)); next.n != b.n+1 || next.lo != p.Next(b.hi) {
				t.Errorf("%s: the block after %+v is %+v", p, b, next)
			}
		}
	}
}

// A client spraying well-formed codes of contracts the venue does not list
// must not grow what a replica watches past what its candle cache holds
// (docs/decisions.md#shared-refresh: a replica merges the refreshes of the
// series it needed lately): every watched series is read from Redis again,
// one GET each on the dispatcher, whenever the subscription restarts.
func TestSprayedCodesAreWatchedNoLongerThanTheCandleCacheHoldsThem(t *testing.T) {
	const cacheBytes = 32 << 10 // 32 series at the least a series costs (1 KiB)
	base, sh, rd := sharedGateway(t, Config{CacheBytes: cacheBytes}, true)
	ctx := context.Background()

	// settled waits until the dispatcher has handed over every change put
	// before it: a probe's batch may still hold earlier keys, the next one's not.
	settled := func() {
		t.Helper()
		for i := range 2 {
			w := sh.notice.watch(fmt.Sprintf("probe%d", i))
			news := w.next()
			sh.put(ctx, fmt.Sprintf("probe%d", i), 1, time.Minute)
			if err := await(ctx, news, 10*time.Second); err != nil || !closed(news) {
				t.Fatalf("the shared state's subscription did not hand over a put: %v", err)
			}
			w.stop()
		}
	}
	settled()

	const sprayed = 300
	for i := range sprayed {
		path := fmt.Sprintf("%s?contract_code=ZZ%d-USDT&period=1min&size=2", venueapi.PathKLine, i)
		getUnlisted(t, base, path)
	}
	settled()

	// The subscription restarts: the replica reads again every series it watches.
	rdb := redis.NewClient(&redis.Options{Addr: rd.Addr()})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	w := sh.notice.watch("everything")
	news := w.next()
	sh.changed(cluster.Everything)
	if err := await(ctx, news, 30*time.Second); err != nil || !closed(news) {
		t.Fatalf("the dispatcher did not finish reading again: %v", err)
	}
	w.stop()
	stats, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	gets := 0
	if _, rest, ok := strings.Cut(stats, "cmdstat_get:calls="); ok {
		gets, _ = strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
	}
	if bound := 2 * cacheBytes / 1024; gets > bound {
		t.Fatalf("after %d sprayed codes, a restarted subscription read %d series from Redis; the candle cache holds at most %d, want at most %d",
			sprayed, gets, cacheBytes/1024, bound)
	}
}

// One candle asked of a history block makes the replica fetch and put the
// whole block for an hour (docs/decisions.md#history-blocks), so a client
// asking one candle of block after block, well within its rate, would fill
// Redis: the blocks put in an hour by every replica together have a room
// (Config.SharedBlockBytes), past which a block fetched is served and not
// put. Every request is still answered.
func TestTheHistoryBlocksPutInRedisStayWithinTheirRoom(t *testing.T) {
	const room = 1 << 20 // about three blocks of 1min candles
	base, _, rd := sharedGateway(t, Config{SharedBlockBytes: room}, false)
	ctx := context.Background()
	p := venueapi.Period1Min
	b := blockOf(p, p.Start(time.Now().Unix()))
	answered := 0
	const asked = 20
	for i := range asked {
		id := b.lo - int64(i+2)*blockLen*60 // one candle of an older block each time
		res, err := http.Get(fmt.Sprintf("%s%s?contract_code=BTC-USDT&period=1min&from=%d&to=%d", base, venueapi.PathKLine, id, id))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"ok"`) {
			t.Fatalf("HTTP %d %.200s", res.StatusCode, body)
		}
		answered += len(body)
	}
	rdb := redis.NewClient(&redis.Options{Addr: rd.Addr()})
	t.Cleanup(func() { rdb.Close() })
	keys, err := rdb.Keys(ctx, "riskchart:value:kline:block:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	held := int64(0)
	for _, k := range keys {
		n, _ := rdb.MemoryUsage(ctx, k).Result()
		held += n
		if ttl := rdb.TTL(ctx, k).Val(); ttl < 50*time.Minute {
			t.Errorf("%s expires in %s", k, ttl)
		}
	}
	t.Logf("%d requests answered %d bytes; Redis holds %d blocks, %d bytes, for an hour", asked, answered, len(keys), held)
	if held > 2*room || len(keys) == 0 {
		t.Fatalf("%d one-candle requests made Redis hold %d bytes of history (%d blocks) for an hour, want some, within twice the room of %d",
			asked, held, len(keys), room)
	}
}
