package cluster_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

const kline = `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[]}`

// venueOn is a venue client whose public calls spend b, against a venue
// that answers each request with answer and counts them in n.
func venueOn(t *testing.T, b *cluster.Budget, n *atomic.Int64, answer func(w http.ResponseWriter)) *venue.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		answer(w)
	}))
	t.Cleanup(srv.Close)
	c, err := venue.New(venue.Config{BaseURL: srv.URL, Retries: -1, PublicBudget: cluster.VenueBudget(b)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestASharedBudgetSpentIsTheVenueClientsRateLimitedError(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 2, Per: time.Minute}
	var sent atomic.Int64
	ok := func(w http.ResponseWriter) { w.Write([]byte(kline)) }
	// Two replicas, each with its own venue client, one budget. Presence is
	// not what this test is about: with fast's 400 ms, a heartbeat late on a
	// loaded host made the budget count replica a as absent, and spending
	// its share alone, and refuse b's first turn, as it should.
	opt := fast(t)
	opt.MemberTTL = 5 * time.Second
	ra, rb := replica(t, srv.URL(), opt, limit, 2), replica(t, srv.URL(), opt, limit, 2)
	// Until both have sent their first heartbeat, a replica not yet present
	// may be spending its share alone, and the other's first turn waits a
	// window for it.
	waitPresent(t, ra, 2)
	a, b := venueOn(t, ra, &sent, ok), venueOn(t, rb, &sent, ok)
	q := venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 1}
	for _, c := range []*venue.Client{a, b} {
		if _, err := c.KLine(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := a.KLine(ctx, q)
	var rl *venue.RateLimitedError
	if !errors.As(err, &rl) || rl.Venue || rl.RetryAfter < 50*time.Second {
		t.Fatalf("error %v, want the budget's refusal as the venue client's own, retry in about a minute", err)
	}
	if ctx.Err() != nil || sent.Load() != 2 {
		t.Fatalf("the refusal came after the deadline (%v) or a request was sent (%d)", ctx.Err(), sent.Load())
	}
	if _, public := a.QuotaStatus(); public.Quota != limit || public.Available != 0 {
		t.Fatalf("quota status %+v, want the shared limit with nothing left", public)
	}
}

func TestTheVenueSayingItsWindowIsSpentHoldsEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	limit := venueapi.Limit{Requests: 100, Per: time.Second}
	var sent atomic.Int64
	a := venueOn(t, replica(t, srv.URL(), fast(t), limit, 2), &sent, func(w http.ResponseWriter) {
		w.Header().Set("ratelimit-remaining", "0")
		w.Header().Set("ratelimit-reset", "60000")
		w.Write([]byte(kline))
	})
	b := venueOn(t, replica(t, srv.URL(), fast(t), limit, 2), &sent, func(w http.ResponseWriter) { w.Write([]byte(kline)) })
	q := venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 1}
	if _, err := a.KLine(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := b.KLine(ctx, q)
	var rl *venue.RateLimitedError
	if !errors.As(err, &rl) || rl.Venue || rl.RetryAfter < 50*time.Second || sent.Load() != 1 {
		t.Fatalf("error %v after %d requests: the other replica must hold its calls until the venue's reset, sending nothing", err, sent.Load())
	}
}
