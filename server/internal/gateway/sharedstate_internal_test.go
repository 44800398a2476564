package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestANoticeWakesItsWatchersAndGoesWithTheLastOfThem(t *testing.T) {
	var n noticeBoard
	a, b := n.watch("k"), n.watch("k")

	// A change between a watcher's next and its wait still wakes it.
	first := a.next()
	n.wake("k")
	if !closed(first) || n.keys() != 0 {
		t.Fatalf("a change after next: woken %v, %d keys on the board; want woken, none", closed(first), n.keys())
	}

	// Two watchers share a notice; it stays until the last one stops.
	second, other := a.next(), b.next()
	if second != other || closed(second) || a.next() != second || n.keys() != 1 {
		t.Fatalf("two watchers: one notice %v, open %v, %d keys; want one open notice, one key", second == other, !closed(second), n.keys())
	}
	a.stop()
	a.stop() // stopping twice changes nothing
	if n.keys() != 1 {
		t.Fatalf("one of two watchers stopped: %d keys, want 1", n.keys())
	}
	n.wake("k")
	if !closed(other) || n.keys() != 0 {
		t.Fatalf("the watcher left: woken %v, %d keys", closed(other), n.keys())
	}

	// A watcher woken, then stopped, leaves a later notice of the key alone.
	later := a.next()
	b.stop()
	if closed(later) || n.keys() != 1 {
		t.Fatalf("a woken watcher stopped: the other's notice open %v, %d keys; want open, 1", !closed(later), n.keys())
	}
	a.stop()
	if n.keys() != 0 {
		t.Fatalf("every watcher stopped: %d keys, want none", n.keys())
	}

	// A read that never waits leaves nothing behind, nor does waking all.
	c := n.watch("other")
	c.next()
	n.all()
	c.stop()
	if n.keys() != 0 {
		t.Fatalf("after all: %d keys", n.keys())
	}
}

// Ranges of well-formed codes the venue does not list (1013) take a history
// block's lease, call the venue and put nothing: no key is left waiting on
// the board for a change that never comes.
func TestRangesOfUnknownContractsLeaveNothingOnTheNoticeBoard(t *testing.T) {
	base, sh, _ := sharedGateway(t, Config{}, true)
	ctx := context.Background()

	// The subscription is up once a put (or its start) wakes a watcher.
	w := sh.notice.watch("probe")
	news := w.next()
	sh.put(ctx, "probe", 1, time.Minute)
	if err := await(ctx, news, 10*time.Second); err != nil || !closed(news) {
		t.Fatalf("the shared state's subscription did not start: %v", err)
	}
	w.stop()

	to := venueapi.Period1Min.Start(time.Now().Unix()) - 3600
	for i := range 100 {
		path := fmt.Sprintf("%s?contract_code=ZZ%d-USDT&period=1min&from=%d&to=%d", venueapi.PathKLine, i, to-600, to)
		getUnlisted(t, base, path)
	}
	if k := sh.notice.keys(); k != 0 {
		t.Fatalf("%d keys on the notice board after every request ended, want none", k)
	}
}

// pastDeadline is a caller's context whose deadline has passed and whose
// timer has not yet marked it done: Err is still nil.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// TestACallCutByItsCallersDeadlineIsNoOutage: only a Redis call that failed
// on its own turns the shared caches off; one ended by its caller's context,
// done or past its deadline, does not.
func TestACallCutByItsCallersDeadlineIsNoOutage(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		down bool
	}{
		{"the caller cancelled", cancelled, false},
		{"the caller's deadline passed, its timer not yet run", pastDeadline{t.Context()}, false},
		{"the caller's deadline ahead", func() context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
			t.Cleanup(cancel)
			return ctx
		}(), true},
		{"no deadline", t.Context(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSharedState(nil)
			s.fail(tc.ctx, fmt.Errorf("redis: i/o timeout"))
			if s.down.Load() != tc.down {
				t.Errorf("after the failed call: working alone %v, want %v", s.down.Load(), tc.down)
			}
		})
	}
}

// sharedGateway is a gateway of cfg (its Venue, Shared and ClientRate set
// here: a sandbox venue over loopback, a real Redis, no client rate) and
// its URL; with run, its shared state runs (the subscription) until the
// test ends.
func sharedGateway(t *testing.T, cfg Config, run bool) (string, *SharedState, *redistest.Server) {
	t.Helper()
	rd := redistest.Start(t)
	sb, err := sandbox.New(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	venueSrv := httptest.NewServer(sb)
	t.Cleanup(venueSrv.Close)
	vc, err := venue.New(venue.Config{BaseURL: venueSrv.URL, Retries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Open(rd.URL(), cluster.Options{Timeout: time.Second}) // a loaded machine may be slow to answer
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sh := NewSharedState(c)
	cfg.Venue, cfg.Shared, cfg.ClientRate = vc, sh, rate.Inf
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	if run {
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() { _ = sh.Run(ctx); close(ran) }()
		t.Cleanup(func() { cancel(); <-ran })
	}
	return srv.URL, sh, rd
}

// getUnlisted asks base for path, a request of a contract the venue does
// not list, and fails the test unless it is answered 1013.
func getUnlisted(t *testing.T, base, path string) {
	t.Helper()
	res, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), fmt.Sprintf(`"err_code":%d`, venueapi.CodeNoSuchContract)) {
		t.Fatalf("%s: HTTP %d %.200s, want 1013", path, res.StatusCode, body)
	}
}
