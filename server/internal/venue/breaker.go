package venue

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// The client remembers failures so that asking again cannot make them worse
// (docs/decisions.md#failure-memory): a refused key stops every signed call,
// a failing endpoint stops calls to it, and while either lasts one trial of
// one request goes out per wait, the wait doubling after each failed trial.
// One failed call opens a breaker: the call's retries have already ridden
// out what is transient, so a healthy endpoint is stopped for at most the
// short first wait.
const (
	keyFirstWait      = time.Second
	keyMaxWait        = 5 * time.Minute
	endpointFirstWait = time.Second
	endpointMaxWait   = 30 * time.Second
)

// KeyBreaker names the breaker of the access key in BreakerState; the
// endpoints' breakers are named as metrics name the endpoints.
const KeyBreaker = "key"

// The venue's endpoints as their breakers, the gateway's metrics and the
// logs name them.
const (
	EndpointKLine         = "kline"
	EndpointTiers         = "tiers"
	EndpointPositionLimit = "position_limit"
)

// EndpointName names the endpoint of a venue path (EndpointKLine, …); any
// other path is its own name.
func EndpointName(path string) string {
	switch path {
	case venueapi.PathKLine:
		return EndpointKLine
	case venueapi.PathTiers:
		return EndpointTiers
	case venueapi.PathPositionLimit:
		return EndpointPositionLimit
	}
	return path
}

// CircuitOpenError is a call refused without being sent: the venue failed
// the same kind of call so recently that asking again now would fail too.
// It comes wrapped in the error of that failure: an *AuthError for a refused
// key, an *UnavailableError for a failing endpoint.
type CircuitOpenError struct {
	Breaker string        // KeyBreaker, or the endpoint (EndpointName)
	Retry   time.Duration // until the next trial call may go out
	Last    error         // what the failure that opened it said
}

// Error says what failed last and when the next trial goes out.
func (e *CircuitOpenError) Error() string {
	return fmt.Sprintf("%v (not sent: the %s circuit is open; next trial in %s)", e.Last, e.Breaker, e.Retry.Round(time.Millisecond))
}

// Unwrap returns what the failure that opened it said.
func (e *CircuitOpenError) Unwrap() error { return e.Last }

// BreakerState is what a breaker remembers, for metrics and readiness.
type BreakerState struct {
	Name    string    // KeyBreaker, or the endpoint
	Open    bool      // calls are refused without being sent, but for one trial per wait
	Trial   bool      // a trial call is out
	Next    time.Time // while open: no trial before this
	Trials  uint64    // trial calls sent
	Refused uint64    // calls refused without being sent
}

// Breakers reports the breaker of the key and of each endpoint.
func (c *Client) Breakers() []BreakerState {
	out := make([]BreakerState, 0, 1+len(c.circuits))
	out = append(out, c.key.state())
	for _, path := range [...]string{venueapi.PathKLine, venueapi.PathTiers, venueapi.PathPositionLimit} {
		out = append(out, c.circuits[path].state())
	}
	return out
}

// verdict is what a call's outcome says of what a breaker watches.
type verdict int

const (
	neutral verdict = iota // says nothing: the caller left, the venue limits us, or nothing was sent
	success
	failure
)

// keyVerdict reads a call's outcome for the key: refused, or accepted
// (anything the venue answers only after checking the signature).
func keyVerdict(err error) verdict {
	var au *AuthError
	var nf *NotFoundError
	var rj *RejectedError
	switch {
	case err == nil, errors.As(err, &nf), errors.As(err, &rj) && rj.Code != venueapi.CodeBusy:
		return success
	case errors.As(err, &au):
		return failure
	}
	return neutral
}

// endpointVerdict reads a call's outcome for its endpoint: failing (5xx,
// busy, a broken or cut answer, a lost connection, a timeout), or answering
// (a success, or a refusal of the request or the key). The caller leaving,
// the venue limiting us, or nothing sent says nothing; so does a timeout
// that was the caller's deadline cutting the venue short (cutShort).
func endpointVerdict(err error) verdict {
	var un *UnavailableError
	var rj *RejectedError
	var au *AuthError
	var nf *NotFoundError
	var cut cutShortError
	switch {
	case err == nil, errors.As(err, &au), errors.As(err, &nf), errors.As(err, &rj) && rj.Code != venueapi.CodeBusy:
		return success
	case errors.Is(err, context.Canceled), errors.As(err, &cut):
		return neutral
	case errors.As(err, &un), errors.As(err, &rj):
		return failure
	}
	return neutral
}

// jitter spreads waits over [d/2, d) from the client's own source, so that
// many servers refused together do not come back together.
type jitter struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newJitter() *jitter {
	return &jitter{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

func (j *jitter) spread(d time.Duration) time.Duration {
	if d < 2 {
		return d
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return d/2 + time.Duration(j.rng.Int64N(int64(d/2)))
}

// breaker remembers one kind of failure. Closed, it lets every call
// through; a failed call opens it. Open, it refuses calls but for one trial
// once its wait has passed; a failed trial doubles the wait, up to its
// ceiling, and a success anywhere closes it. Every method takes the time:
// the client reads the real clock, as its quotas do.
type breaker struct {
	name    string
	first   time.Duration
	ceiling time.Duration
	jitter  *jitter

	mu      sync.Mutex
	open    bool
	opened  uint64        // how many times it has opened: a ticket admitted before an opening is of another spell
	wait    time.Duration // while open: the current wait between trials
	next    time.Time     // while open: no trial before this
	trial   bool          // a trial is out
	last    error         // the failure that opened it, or failed the last trial
	once    bool          // a call has succeeded through it: what it guards has worked
	trials  uint64
	refused uint64
}

func newBreaker(name string, first, ceiling time.Duration, j *jitter) *breaker {
	return &breaker{name: name, first: first, ceiling: ceiling, jitter: j}
}

// ticket is a call let through; trial says it is the one trial of an open
// breaker. Every ticket is told how its call went (done).
type ticket struct {
	b      *breaker
	trial  bool
	opened uint64 // the breaker's openings when the call was admitted
}

// admit lets a call through, or refuses it with the last failure: the
// breaker is open and its wait has not passed or its trial is out.
func (b *breaker) admit(now time.Time) (ticket, *CircuitOpenError) {
	if b == nil {
		return ticket{}, nil // a path without a circuit
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return ticket{b: b, opened: b.opened}, nil
	}
	if b.trial || now.Before(b.next) {
		b.refused++
		return ticket{}, &CircuitOpenError{Breaker: b.name, Retry: max(b.next.Sub(now), 0), Last: b.last}
	}
	b.trial = true
	b.trials++
	return ticket{b: b, trial: true, opened: b.opened}, nil
}

// succeeded reports whether a call has ever succeeded through b.
func (b *breaker) succeeded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.once
}

// isOpen reports whether b refuses calls now, but for a trial.
func (b *breaker) isOpen() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}

// done records how an admitted call went: err, read as v. It reports
// whether that opened or closed the breaker, for the log.
func (t ticket) done(v verdict, err error, now time.Time) (opened, closed bool) {
	b := t.b
	if b == nil {
		return false, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.trial {
		b.trial = false
	}
	switch v {
	case success:
		closed = b.open
		b.open, b.last, b.once = false, nil, true
	case failure:
		switch {
		case t.opened != b.opened:
			// Sent before the breaker last opened: nothing more to learn,
			// and a trial since may have closed it again.
			return false, false
		case !b.open:
			b.open, b.wait, opened = true, b.first, true
			b.opened++
		default: // the trial: the only call an open breaker admits
			b.wait = min(2*b.wait, b.ceiling)
		}
		b.last, b.next = err, now.Add(b.jitter.spread(b.wait))
	}
	return opened, closed
}

// state is what b remembers now.
func (b *breaker) state() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BreakerState{Name: b.name, Open: b.open, Trial: b.trial, Next: b.next, Trials: b.trials, Refused: b.refused}
}

// gates are the breakers a request passes: its endpoint's, and the key's
// when it is signed.
type gates struct {
	key, endpoint ticket
}

// admit lets req through both of its breakers, or returns the error of the
// one that refuses it, as the failure it remembers would have been returned.
func (c *Client) admit(req request, now time.Time) (gates, error) {
	var g gates
	if req.signed {
		t, open := c.key.admit(now)
		if open != nil {
			refused := &AuthError{Code: venueapi.CodeForbidden, Message: "the venue refused the server's key", Err: open}
			if au := (*AuthError)(nil); errors.As(open.Last, &au) {
				refused.Code, refused.Message = au.Code, au.Message
			}
			return g, refused
		}
		g.key = t
	}
	t, open := c.circuits[req.path].admit(now)
	if open != nil {
		g.key.done(neutral, nil, now) // not sent: a key trial is handed back
		var un *UnavailableError
		if errors.As(open.Last, &un) {
			return g, &UnavailableError{Op: un.Op, HTTPStatus: un.HTTPStatus, Err: &CircuitOpenError{Breaker: open.Breaker, Retry: open.Retry, Last: un.Err}}
		}
		return g, &UnavailableError{Op: req.method + " " + req.path, Err: open}
	}
	g.endpoint = t
	return g, nil
}

// trial reports whether the call is a breaker's trial: one request, no
// retries, so that an open breaker lets one request out per wait.
func (g gates) trial() bool { return g.key.trial || g.endpoint.trial }

// stopped reports whether a breaker the call passed has opened since: its
// retries stop.
func (g gates) stopped() bool { return g.key.b.isOpen() || g.endpoint.b.isOpen() }

// done tells both breakers how the call went, and logs what that opened
// or closed: an operator sees a refused key or a failing endpoint once, not
// once per call.
func (c *Client) done(ctx context.Context, g gates, err error, now time.Time) {
	c.logChange(ctx, g.key, keyVerdict(err), stripped(err), now)
	c.logChange(ctx, g.endpoint, endpointVerdict(err), err, now)
}

// logChange tells t's breaker how its call went, and logs whether that
// opened or closed it.
func (c *Client) logChange(ctx context.Context, t ticket, v verdict, err error, now time.Time) {
	switch opened, closed := t.done(v, err, now); {
	case opened:
		c.log.WarnContext(ctx, "venue calls stopped: one trial per wait until the venue answers", "breaker", t.b.name, "err", err)
	case closed:
		c.log.InfoContext(ctx, "venue calls resumed", "breaker", t.b.name)
	}
}

// stripped is a key refusal as the venue said it, for the errors of the
// calls it stops.
func stripped(err error) error {
	var au *AuthError
	if errors.As(err, &au) {
		return &AuthError{Code: au.Code, Message: au.Message}
	}
	return err
}
