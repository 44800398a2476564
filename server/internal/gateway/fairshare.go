package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// fairShare bounds each client address's private venue calls: at most
// share.Requests in any window of share.Per, a quarter of the venue's private
// budget (docs/decisions.md#private-fair-share). It is a sliding-window log
// per client, like the venue client's quota, so no window ever holds more.
// Only calls are charged; a cache hit or a call shared with another request
// costs nothing.
type fairShare struct {
	share venueapi.Limit
	max   int // clients remembered at once
	mu    sync.Mutex
	m     map[netip.Addr][]time.Time // a client's charges within the window, oldest first
	swept time.Time
}

// fairShareOf is the part of the private budget one client may spend.
const fairShareOf = 4

// fairShareMax bounds the clients remembered at once.
const fairShareMax = 10_000

func newFairShare(budget venueapi.Limit) *fairShare {
	return &fairShare{share: venueapi.Limit{Requests: max(1, budget.Requests/fairShareOf), Per: budget.Per}, max: fairShareMax, m: map[netip.Addr][]time.Time{}}
}

// take charges client one venue call at now, or says how long until its
// share has room for one.
func (f *fairShare) take(client netip.Addr, now time.Time) (ok bool, retry time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	charges, known := f.m[client]
	charges = within(charges, now.Add(-f.share.Per))
	if len(charges) >= f.share.Requests {
		f.m[client] = charges
		return false, charges[0].Add(f.share.Per).Sub(now)
	}
	if !known && len(f.m) >= f.max {
		f.evict(now)
	}
	f.m[client] = append(charges, now)
	return true, 0
}

// giveBack undoes the charge take made for client at at: the call sent
// nothing, so it spent none of the venue's budget.
func (f *fairShare) giveBack(client netip.Addr, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	charges := f.m[client]
	for i := len(charges) - 1; i >= 0; i-- {
		if charges[i].Equal(at) {
			f.m[client] = append(charges[:i:i], charges[i+1:]...)
			return
		}
	}
}

// within drops the charges made at or before since.
func within(charges []time.Time, since time.Time) []time.Time {
	i := 0
	for i < len(charges) && !charges[i].After(since) {
		i++
	}
	return charges[i:]
}

// evict makes room for a tenth of the bound: clients with no charge in the
// window first (at most a sweep a second), then any (a client forgotten
// starts with its whole share, which costs at most one share).
func (f *fairShare) evict(now time.Time) {
	if now.Sub(f.swept) >= time.Second {
		f.swept = now
		for k, charges := range f.m {
			if len(within(charges, now.Add(-f.share.Per))) == 0 {
				delete(f.m, k)
			}
		}
	}
	for k := range f.m {
		if len(f.m) < f.max*9/10 {
			break
		}
		delete(f.m, k)
	}
}

// shareSpentError is a venue call not made: the client whose request would
// have started it has spent its share.
type shareSpentError struct {
	client     netip.Addr
	retryAfter time.Duration
}

func (e *shareSpentError) Error() string {
	return "this client's share of the venue's request budget is spent: retry in " + e.retryAfter.Round(time.Millisecond).String()
}

// shareAttempts bounds how often a request asks again after sharing a call
// that another client, over its share, could not make.
const shareAttempts = 3

// privateGet is cache.get for r, whose fetch is a private venue call. The
// call runs detached from r, shared by every request for key, so it is
// charged to the client whose request starts it, when it starts. A request
// that joined a call another client could not make asks again under its own
// share. A venue's 1013 tells the list of contracts it may be behind.
func (s *server) privateGet(r *http.Request, cache *ttlCache, key string, fetch func(context.Context) (any, error)) (v any, stale bool, err error) {
	client := s.clientOf(r)
	var called atomic.Bool // this request's own venue call: the call may outlive the wait for it
	charged := func(ctx context.Context) (any, error) {
		called.Store(true)
		noteLookup(r.Context(), lookupMiss)
		ok, retry, giveBack := s.chargeShare(ctx, client)
		if !ok {
			return nil, &shareSpentError{client: client, retryAfter: retry}
		}
		v, err := fetch(ctx)
		if s.sentNothing(err) {
			giveBack()
		}
		if errors.As(err, new(*venue.NotFoundError)) {
			s.listed.notListed(ctx)
		}
		return v, err
	}
	for range shareAttempts {
		v, stale, err = cache.get(r.Context(), key, charged)
		var spent *shareSpentError
		if !errors.As(err, &spent) || spent.client == client {
			break
		}
	}
	s.metrics.countPrivateLookup(key, called.Load(), err)
	return v, stale, err
}

// chargeShare charges client one private venue call, or says how long
// until its share has room for one. With Redis the share is one for every
// replica, as a proxy may send each of the client's requests to any of them;
// while Redis is out of reach, each replica keeps it alone. giveBack undoes
// the charge.
func (s *server) chargeShare(ctx context.Context, client netip.Addr) (ok bool, retry time.Duration, giveBack func()) {
	if s.shared.shared() {
		ch, err := s.shared.c.Charge(ctx, s.shareName+client.String(), s.share.share)
		if err == nil {
			return ch.OK, ch.RetryAfter, func() {
				if err := ch.Refund(ctx); err != nil {
					// Noted though the request has left, unless the gateway
					// has closed: Refund failing then says nothing of Redis.
					s.shared.fail(s.cfg.Detached.ctx, err)
				}
			}
		}
		s.shared.fail(ctx, err)
	}
	at := s.now()
	ok, retry = s.share.take(client, at)
	return ok, retry, func() { s.share.giveBack(client, at) }
}

// sentNothing reports whether a venue call that returned err is known to have
// sent nothing: refused by the client's own quota or an open circuit, or
// before any signing.
func (s *server) sentNothing(err error) bool {
	var rl *venue.RateLimitedError
	return (errors.As(err, &rl) && !rl.Venue) || errors.As(err, new(*venue.CircuitOpenError)) ||
		errors.As(err, new(*venue.InvalidRequestError)) || (errors.As(err, new(*venue.AuthError)) && !s.venue.HasKey())
}
