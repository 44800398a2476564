package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/venueapi"
)

func TestAShareIsChargedByEveryReplicaTogether(t *testing.T) {
	srv := redistest.Start(t)
	replicas := []*cluster.Client{open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t)), open(t, srv.URL(), fast(t))}
	limit := venueapi.Limit{Requests: 4, Per: 2 * time.Second}
	ctx := context.Background()
	var charges []cluster.Charge
	for i := range limit.Requests {
		ch, err := replicas[i%len(replicas)].Charge(ctx, "client-a", limit)
		if err != nil || !ch.OK {
			t.Fatalf("charge %d of %d: %+v, %v: want charged", i+1, limit.Requests, ch, err)
		}
		charges = append(charges, ch)
	}
	for i, c := range replicas {
		ch, err := c.Charge(ctx, "client-a", limit)
		if err != nil || ch.OK || ch.RetryAfter <= 0 || ch.RetryAfter > limit.Per {
			t.Errorf("replica %d, the share spent: %+v, %v: want refused, retry within %s", i, ch, err, limit.Per)
		}
	}
	// Another client's share is its own.
	if ch, err := replicas[0].Charge(ctx, "client-b", limit); err != nil || !ch.OK {
		t.Errorf("another client: %+v, %v: want charged", ch, err)
	}
	// A charge given back makes room for one.
	if err := charges[0].Refund(ctx); err != nil {
		t.Fatal(err)
	}
	if ch, err := replicas[2].Charge(ctx, "client-a", limit); err != nil || !ch.OK {
		t.Errorf("after a refund: %+v, %v: want charged", ch, err)
	}
}

func TestChargeChecksItsArguments(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv.URL(), fast(t))
	for _, tc := range []struct {
		name  string
		limit venueapi.Limit
	}{
		{"", venueapi.Limit{Requests: 1, Per: time.Second}},
		{"a b", venueapi.Limit{Requests: 1, Per: time.Second}},
		{"ok", venueapi.Limit{Requests: 0, Per: time.Second}},
		{"ok", venueapi.Limit{Requests: 1}},
	} {
		if _, err := c.Charge(context.Background(), tc.name, tc.limit); err == nil {
			t.Errorf("Charge(%q, %+v): no error", tc.name, tc.limit)
		}
	}
}
