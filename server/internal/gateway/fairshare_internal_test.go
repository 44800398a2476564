package gateway

import (
	"context"
	"net/http/httptest"
	"net/netip"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
	"github.com/riskchart/riskchart/venueapi"
)

func TestARequestThatJoinedACallRefusedForAnotherClientsShareAsksAgainUnderItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &server{now: time.Now, clients: &clientaddr.Resolver{}, share: newFairShare(venueapi.PrivateLimit()),
			metrics: newMetrics(prometheus.NewRegistry(), nil)} // never gathered: no venue client to read
		cache := newTTLCache(time.Minute, time.Second, time.Second, time.Now, NewDetached())
		release := make(chan struct{})
		// Another client's call holds the key; it ends refused for that
		// client's share.
		go cache.get(context.Background(), "k", func(context.Context) (any, error) {
			<-release
			return nil, &shareSpentError{client: netip.MustParseAddr("192.0.2.1"), retryAfter: time.Second}
		})
		synctest.Wait()
		r := httptest.NewRequest("GET", venueapi.PathTiers, nil)
		r.RemoteAddr = "192.0.2.2:40000"
		type result struct {
			v   any
			err error
		}
		got := make(chan result, 1)
		go func() {
			v, _, err := s.privateGet(r, cache, "k", func(context.Context) (any, error) { return "answer", nil })
			got <- result{v, err}
		}()
		synctest.Wait() // joined the other client's call
		close(release)
		if res := <-got; res.err != nil || res.v != "answer" {
			t.Fatalf("got %v %v, want the answer of a call under this client's own share", res.v, res.err)
		}
		if c := netip.MustParseAddr("192.0.2.2"); !takeOK(s.share.take(c, time.Now())) || len(s.share.m[c]) != 2 {
			t.Fatalf("the call was not charged to the client that made it: %v", s.share.m)
		}
	})
}

func takeOK(ok bool, _ time.Duration) bool { return ok }
