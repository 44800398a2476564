package gateway_test

import (
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// TestAClientsFairShareHoldsAcrossReplicas: a client address may cause at
// most a quarter of the private budget's calls in any window
// (docs/decisions.md#private-fair-share, docs/venue.md), and replicas behind
// one proxy, which sends each request to any of them (docs/deploy.md,
// "Several replicas with Redis"), must not multiply it.
func TestAClientsFairShareHoldsAcrossReplicas(t *testing.T) {
	t.Parallel() // real time, mostly waiting: see startReplicas
	limit := venueapi.Limit{Requests: 24, Per: 3 * time.Second}
	share := limit.Requests / 4
	rs := startReplicas(t, replicaOptions{privateLimit: limit, gateway: func(_ int, c *gateway.Config) {
		c.TierTTL, c.LimitTTL = time.Millisecond, time.Millisecond // every ask is a venue call
		c.TrustedProxies, c.ViewerTokens = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, []venue.Secret{testViewer}
	}})
	// Another client first, so that the hold of a log new to Redis (a
	// window and a margin) has passed before the client measured starts.
	if status, body, err := rs.ask(0, venueapi.PathTiers+"?contract_code=BTC-USDT", "198.51.100.200"); err != nil || status != http.StatusOK {
		t.Fatalf("warming up: HTTP %d %v %.200s", status, err, body)
	}
	time.Sleep(limit.Per + limit.Per/10)
	from := time.Now()
	// One client address, its requests spread over the replicas as a proxy
	// without sticky sessions spreads them.
	rs.browse(len(rs.urls), 2*limit.Per, 5*time.Millisecond, func(b int) []string {
		return []string{venueapi.PathTiers + "?contract_code=BTC-USDT", venueapi.PathPositionLimit + "?contract_code=ETH-USDT"}
	}, func(int) string { return "198.51.100.7" })
	calls := rs.venue.matching(func(c venueCall) bool { return isPrivate(c) && !c.at.Before(from) })
	// A window a little shorter than the share's, so that a call's way from
	// its charge to the venue cannot put a charge of the next window in it.
	window := limit.Per - 200*time.Millisecond
	if n, at := mostWithin(calls, window); n > share {
		t.Errorf("one client address caused %d private calls in the %s from %s: its fair share is %d per %s; the calls:\n%s",
			n, window, at.Format(time.StampMilli), share, limit.Per, callsWithin(calls, at, window))
	}
	if len(calls) < share {
		t.Errorf("only %d private calls: the client did not spend its share, so this test shows nothing", len(calls))
	}
}
