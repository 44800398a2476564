package cluster_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
)

// watcher runs Watch on c until the test ends and hands over what it hears.
func watcher(t *testing.T, c *cluster.Client) <-chan string {
	t.Helper()
	keys := make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Watch(ctx, func(key string) { keys <- key })
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return keys
}

// hear waits up to 3 s for want among the keys, skipping others.
func hear(t *testing.T, keys <-chan string, want string) {
	t.Helper()
	timeout := time.After(3 * time.Second)
	for {
		select {
		case k := <-keys:
			if k == want {
				return
			}
		case <-timeout:
			t.Fatalf("the watcher did not hear %q", want)
		}
	}
}

func TestAPutOnOneReplicaReachesAnothersWatcher(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t))
	keys := watcher(t, b)
	hear(t, keys, cluster.Everything) // subscribed: drop every copy

	ctx := context.Background()
	value := []byte(`{"candles":[1,2,3]}`)
	if err := a.Put(ctx, "candles/BTC-USDT/1min", value, time.Minute); err != nil {
		t.Fatal(err)
	}
	hear(t, keys, "candles/BTC-USDT/1min")
	got, found, err := b.Get(ctx, "candles/BTC-USDT/1min")
	if err != nil || !found || !bytes.Equal(got, value) {
		t.Fatalf("Get after the news = %q, %v, %v; want %q", got, found, err, value)
	}
	if _, found, err := b.Get(ctx, "nothing-here"); err != nil || found {
		t.Fatalf("Get of a key never put = %v, %v", found, err)
	}
}

func TestValuesExpire(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv.URL(), fast(t))
	ctx := context.Background()
	if err := c.Put(ctx, "tiers/BTC-USDT", []byte("x"), 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, found, err := c.Get(ctx, "tiers/BTC-USDT"); err != nil || found {
		t.Fatalf("a value past its ttl = %v, %v; want gone", found, err)
	}
}

func TestAWatcherThatLostRedisHearsEverythingAndThenNewsAgain(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t))
	keys := watcher(t, b)
	hear(t, keys, cluster.Everything)

	srv.Kill()
	hear(t, keys, cluster.Everything) // lost: copies may go stale unseen
	srv.Restart()
	hear(t, keys, cluster.Everything) // subscribed again
	if err := a.Put(context.Background(), "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	hear(t, keys, "k")
}

func TestAWatcherOfAHungRedisHearsEverything(t *testing.T) {
	srv := redistest.Start(t)
	keys := watcher(t, open(t, srv.URL(), fast(t)))
	hear(t, keys, cluster.Everything)
	srv.Pause()
	defer srv.Resume()
	hear(t, keys, cluster.Everything) // its ping went unanswered
}

func TestPutChecksItsArguments(t *testing.T) {
	opt := fast(t)
	opt.MaxValueBytes = 8
	c := open(t, "redis://127.0.0.1:1/0", opt) // never reached: the checks come first
	tests := []struct {
		name, key string
		value     []byte
		ttl       time.Duration
		complaint string
	}{
		{"the key that means everything", cluster.Everything, []byte("v"), time.Second, "1 to 512 bytes"},
		{"a key too long", strings.Repeat("k", 513), []byte("v"), time.Second, "1 to 512 bytes"},
		{"a key with a space", "a b", []byte("v"), time.Second, "without spaces"},
		{"a value too large", "k", []byte("123456789"), time.Second, "at most 8"},
		{"no ttl", "k", []byte("v"), 0, "every value expires"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Put(context.Background(), tt.key, tt.value, tt.ttl)
			if err == nil || !strings.Contains(err.Error(), tt.complaint) {
				t.Errorf("Put = %v, want an error saying %q", err, tt.complaint)
			}
		})
	}
	if s := c.Stats(); s.Errors+s.Timeouts != 0 {
		t.Errorf("a refused Put reached Redis: %+v", s)
	}
}

// TestAPoolStoresNoMoreThanItsBytesAWindow: PutPooled stores and announces
// a value only while its pool's puts of the window have room, whichever
// replica puts; once the window of the values' ttl has passed, the pool has
// room again. Another pool is not charged.
func TestAPoolStoresNoMoreThanItsBytesAWindow(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t))
	keys := watcher(t, b)
	hear(t, keys, cluster.Everything)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	sixty := bytes.Repeat([]byte("x"), 60)
	for _, tc := range []struct {
		c    *cluster.Client
		key  string
		pool string
		kept bool
	}{
		{a, "block/1", "blocks", true},
		{b, "block/2", "blocks", false}, // 120 of 100 bytes: not stored
		{a, "block/3", "others", true},  // another pool's room
		{b, "block/4", "blocks", false},
	} {
		kept, err := tc.c.PutPooled(ctx, tc.key, sixty, ttl, tc.pool, 100)
		if err != nil || kept != tc.kept {
			t.Fatalf("PutPooled(%s) in %s = %v, %v; want kept %v", tc.key, tc.pool, kept, err, tc.kept)
		}
		if _, found, err := b.Get(ctx, tc.key); err != nil || found != tc.kept {
			t.Fatalf("Get(%s) after PutPooled = found %v, %v; want %v", tc.key, found, err, tc.kept)
		}
		if tc.kept {
			hear(t, keys, tc.key)
		}
	}
	select {
	case k := <-keys:
		if k == "block/2" || k == "block/4" {
			t.Fatalf("the watcher heard of %s, which the full pool did not store", k)
		}
	default:
	}
	time.Sleep(ttl + 100*time.Millisecond)
	if kept, err := b.PutPooled(ctx, "block/5", sixty, ttl, "blocks", 100); err != nil || !kept {
		t.Fatalf("PutPooled after the window = %v, %v; want kept", kept, err)
	}
	if _, err := a.PutPooled(ctx, "block/6", sixty, ttl, "blocks", 0); err == nil || !strings.Contains(err.Error(), "must be at least 1") {
		t.Fatalf("PutPooled with a pool of 0 bytes: %v, want an error naming the rule", err)
	}
}
