package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// How fresh the list of contracts is kept (docs/decisions.md#listed-contracts):
// asked again every listEvery while it is in use, and at most once per
// listOnDemand for a name it lacks, however many such names arrive.
const (
	listEvery    = 5 * time.Minute
	listOnDemand = 30 * time.Second
)

// listed is the contracts the venue lists, so that the private paths answer a
// well-formed code or pair it does not list (1013) from memory rather than
// with a venue call each (docs/decisions.md#listed-contracts). The venue has
// no listing endpoint; endpoint 2 with business type all and no filter names
// every swap and dated future in one call.
//
// The list is first asked for when the venue answers 1013, the sign that
// someone asks for what it does not list. Until it arrives, and whenever the
// latest attempt failed or listed nothing, the verdict is listUnknown and the
// caller asks the venue as it would without a list.
type listed struct {
	venue    *venue.Client
	now      func() time.Time
	timeout  time.Duration // of one attempt, detached from the request that starts it
	metrics  *metrics
	log      *slog.Logger
	detached *Detached // the attempts' lifetime

	mu      sync.Mutex
	list    *listing      // the latest list the venue gave; nil before the first
	ok      bool          // the latest attempt gave it
	asOf    time.Time     // when list was asked for
	tried   time.Time     // when the latest attempt started; zero before the first
	running chan struct{} // closed when the attempt under way ends; nil when none is
}

// listing is one answer of the venue's list.
type listing struct {
	codes map[string]bool // swaps and dated futures
	pairs map[string]bool
}

// listedVerdict is what the list says of a name.
type listedVerdict int

const (
	listUnknown  listedVerdict = iota // no list to go by: ask the venue
	listListed                        // the venue lists it
	listUnlisted                      // the venue does not list it: answer 1013
)

func newListed(v *venue.Client, timeout time.Duration, now func() time.Time, m *metrics, log *slog.Logger, d *Detached) *listed {
	return &listed{venue: v, now: now, timeout: timeout, metrics: m, log: log, detached: d}
}

// check says whether the venue lists what has looks for in a listing. A name
// the list lacks may be a new listing: the list is asked for again first (at
// most once per listOnDemand), and the caller waits for it, within ctx. No
// other caller waits for a list: with none to go by, it asks the venue.
func (l *listed) check(ctx context.Context, has func(*listing) bool) listedVerdict {
	v, due := l.verdict(has)
	switch {
	case v == listListed && due:
		l.begin(ctx) // for the next callers; this one goes by the list it has
	case v == listUnlisted:
		if done := l.begin(ctx); done != nil && wait(ctx, done) {
			v, _ = l.verdict(has)
		}
	}
	return v
}

// notListed is the venue answering 1013: the list is missing or behind, so
// an attempt starts if none did within listOnDemand. The caller has its
// answer and does not wait.
func (l *listed) notListed(ctx context.Context) { l.begin(ctx) }

// verdict goes by the list held, and says whether it is due for a refresh.
func (l *listed) verdict(has func(*listing) bool) (v listedVerdict, due bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.list == nil || !l.ok {
		return listUnknown, false
	}
	if has(l.list) {
		return listListed, l.now().Sub(l.asOf) >= listEvery
	}
	return listUnlisted, false
}

// begin starts an attempt unless one started within listOnDemand, and
// returns the end of the attempt under way (nil when there is none). The
// attempt is detached from ctx's request, so that the browser leaving does
// not cancel it for everyone, ends when l.detached closes, and is bounded by
// the timeout.
func (l *listed) begin(ctx context.Context) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running != nil {
		return l.running
	}
	now := l.now()
	if !l.tried.IsZero() && now.Sub(l.tried) < listOnDemand {
		return nil
	}
	done := make(chan struct{})
	l.running, l.tried = done, now
	ctx, detached := l.detached.detach(ctx)
	go func() {
		defer detached()
		l.fetch(ctx, now, done)
	}()
	return done
}

// fetch asks the venue for every contract it lists and keeps the answer.
func (l *listed) fetch(ctx context.Context, asOf time.Time, done chan struct{}) {
	defer close(done)
	call, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	env, err := l.venue.PositionLimits(call, venueapi.LimitQuery{BusinessType: venueapi.BusinessAll})
	l.metrics.countVenueCall(venue.EndpointPositionLimit, err)
	var list *listing
	switch {
	case err != nil && ctx.Err() != nil:
		// The gateway closed (ctx is detached from any request): the venue
		// did not fail.
	case err != nil:
		l.log.Warn("the venue's list of contracts could not be had: unlisted codes are asked of the venue", "err", err)
	case len(env.Data) == 0:
		// A venue listing nothing is more likely broken than empty: every
		// code would be answered 1013 from memory.
		l.log.Warn("the venue listed no contracts: unlisted codes are asked of the venue")
	default:
		list = &listing{codes: make(map[string]bool, len(env.Data)), pairs: map[string]bool{}}
		for _, p := range env.Data {
			list.codes[p.ContractCode], list.pairs[p.Pair] = true, true
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running, l.ok = nil, list != nil
	if list != nil {
		l.list, l.asOf = list, asOf
	}
}

// wait waits for done or the end of ctx, and reports whether done came.
func wait(ctx context.Context, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// writeUnlisted answers 1013 from the list when the venue does not list what
// has looks for (a, as the request names it), as the venue would answer it,
// and reports whether it did.
func (s *server) writeUnlisted(w http.ResponseWriter, r *http.Request, a asked, has func(*listing) bool) bool {
	if s.listed.check(r.Context(), has) != listUnlisted {
		return false
	}
	s.metrics.local.WithLabelValues("unlisted").Inc()
	s.writeVenueError(w, r, a, &venue.NotFoundError{Code: venueapi.CodeNoSuchContract, Message: "not listed"})
	return true
}
