// Package venue is the server's only way to the venue: typed calls of its
// three endpoints, validated before anything is sent, signed as
// docs/decisions.md says, within the venue's quotas, with timeouts and
// retries for what is safe to retry, and every number decoded exactly.
package venue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// Config configures a Client. Zero values are sane defaults.
type Config struct {
	BaseURL      string           // e.g. "https://api.example.com"; requests go only there
	AccessKey    string           // empty: signed calls fail with *AuthError, sending nothing
	SecretKey    Secret           // the access key's secret; prints masked
	HTTPClient   *http.Client     // nil: a client with transport timeouts
	Now          func() time.Time // signs the Timestamp; nil: time.Now (quotas and deadlines run on the real clock)
	Timeout      time.Duration    // per attempt; 0: 10 s
	Retries      int              // extra attempts for retryable failures; 0: 2; negative: none
	PrivateQuota venueapi.Limit   // zero: venueapi.PrivateLimit, shared by both signed calls
	PublicQuota  venueapi.Limit   // zero: venueapi.PublicLimit
	// The budgets the calls spend; nil: an in-process quota of PrivateQuota
	// or PublicQuota. Replicas pass the budgets they share.
	PrivateBudget Budget
	PublicBudget  Budget
	Logger        *slog.Logger // nil: discard
}

// maxQuotaRequests bounds a quota's window: the quota remembers a send time
// per request in it.
const maxQuotaRequests = 1 << 16

// minQuotaInterval is the shortest interval a quota may count over. A turn
// may be sent up to a twentieth of the interval late (TooLate); over a
// shorter interval than this, that is less than a timer on a busy machine
// runs late, and every call would be refused as too late.
const minQuotaInterval = 100 * time.Millisecond

// Client calls the venue. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	host     string // the canonical host that is signed
	access   string
	signer   *sign.Signer
	http     *http.Client
	now      func() time.Time // the signing clock
	timeout  time.Duration
	retries  int
	private  Budget
	public   Budget
	key      *breaker            // signed calls: the venue refusing the key
	circuits map[string]*breaker // by path: the venue failing an endpoint
	log      *slog.Logger
}

// ParseBaseURL reads a venue base URL: absolute http or https, naming a
// host, with no query (not even an empty one) or fragment, since the client
// adds the venue's paths and queries to it. Its errors never repeat raw,
// which may hold a password.
func ParseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, errors.New("must be an absolute http:// or https:// URL naming a host, e.g. https://api.venue.example")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, errors.New("must have no query or fragment: the venue's paths and queries are added to it")
	case strings.ContainsFunc(u.Host, func(r rune) bool { return r > '~' }):
		// net/http sends such a host in its xn-- form, which the signature
		// must name (docs/decisions.md#canonical-host).
		return nil, errors.New("must name its host in ASCII: write an internationalized name in its xn-- form")
	}
	return u, nil
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("venue base URL: %w", err)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return nil, errors.New("venue access key and secret key: give both or neither")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{
			Transport: &http.Transport{
				Proxy:                 http.ProxyFromEnvironment,
				DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				TLSHandshakeTimeout:   5 * time.Second,
				ResponseHeaderTimeout: 30 * time.Second,
				MaxIdleConnsPerHost:   64,
				IdleConnTimeout:       90 * time.Second,
			},
			// A redirect would take a signed query to another place.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = 2
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.PrivateQuota == (venueapi.Limit{}) {
		cfg.PrivateQuota = venueapi.PrivateLimit()
	}
	if cfg.PublicQuota == (venueapi.Limit{}) {
		cfg.PublicQuota = venueapi.PublicLimit()
	}
	for _, q := range []venueapi.Limit{cfg.PrivateQuota, cfg.PublicQuota} {
		if q.Requests <= 0 || q.Per < minQuotaInterval || q.Requests > maxQuotaRequests {
			return nil, fmt.Errorf("venue quota %d per %s: must allow 1 to %d requests per interval of at least %s", q.Requests, q.Per, maxQuotaRequests, minQuotaInterval)
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PrivateBudget == nil {
		cfg.PrivateBudget = newQuota(cfg.PrivateQuota)
	}
	if cfg.PublicBudget == nil {
		cfg.PublicBudget = newQuota(cfg.PublicQuota)
	}
	j := newJitter()
	circuits := map[string]*breaker{}
	for _, path := range [...]string{venueapi.PathKLine, venueapi.PathTiers, venueapi.PathPositionLimit} {
		circuits[path] = newBreaker(EndpointName(path), endpointFirstWait, endpointMaxWait, j)
	}
	return &Client{
		base: u, host: sign.CanonicalHost(u.Scheme, u.Host), access: cfg.AccessKey, signer: sign.NewSigner(cfg.AccessKey, []byte(cfg.SecretKey)),
		http: cfg.HTTPClient, now: cfg.Now, timeout: cfg.Timeout, retries: cfg.Retries,
		private: cfg.PrivateBudget, public: cfg.PublicBudget,
		key: newBreaker(KeyBreaker, keyFirstWait, keyMaxWait, j), circuits: circuits, log: cfg.Logger,
	}, nil
}

// CloseIdleConnections closes the connections kept alive to the venue that
// no call is using. The server calls it as it stops: a process that goes on
// (a test, an embedder) keeps no connection, and its goroutines, for the
// transport's idle timeout.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// HasKey reports whether the client can make signed calls.
func (c *Client) HasKey() bool { return c.access != "" }

// KeyAccepted reports whether the venue has answered a signed call of this
// client as one of a key it takes (its data, or a refusal of the request
// rather than of the key): a success of the key's breaker. Until then a key
// the venue refuses is not known to be refused: the breaker opens only on
// such a refusal.
func (c *Client) KeyAccepted() bool { return c.key.succeeded() }

// Account names the account the client's key signs for (AccountOf), as
// shared state keys what is the account's own (its position limits); ""
// without a key.
func (c *Client) Account() string { return AccountOf(c.access) }

// AccountOf names the account an access key signs for in what replicas
// share (Redis keys: the private budget, the position limits): a hash of the
// key, which never leaves the process; "" for no key.
func AccountOf(accessKey string) string {
	if accessKey == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(accessKey))
	return hex.EncodeToString(sum[:8])
}

// QuotaStatus reports the quotas and what is available of them now.
func (c *Client) QuotaStatus() (private, public QuotaState) {
	now := time.Now()
	return c.private.State(now), c.public.State(now)
}

// request is what an endpoint file says of a call; call does the rest.
type request struct {
	method string
	path   string
	query  url.Values // business parameters in the query string
	body   []byte     // business parameters as a JSON body (POST), or nil
	signed bool
	// decode reads the body into the endpoint's answer and reports the
	// status it carries; its error is a success whose records are broken.
	decode func(raw []byte) (status, error)
}

// fetch is call for an endpoint whose answer holds records of T: decode
// reads each attempt's body, and the last one read is returned.
func fetch[T any](ctx context.Context, c *Client, req request, decode func([]byte) (answer[T], error)) (answer[T], error) {
	var a answer[T]
	req.decode = func(raw []byte) (status, error) {
		var err error
		a, err = decode(raw)
		return a.status, err
	}
	err := c.call(ctx, req)
	return a, err
}

// Backoff between attempts: full jitter over an exponential ceiling.
const (
	backoffBase = 100 * time.Millisecond
	backoffMax  = 5 * time.Second
)

// backoff returns a random wait before retry number attempt+1.
func backoff(attempt int) time.Duration {
	ceiling := backoffMax
	if attempt < 16 && backoffBase<<attempt < backoffMax {
		ceiling = backoffBase << attempt
	}
	return rand.N(ceiling) + 1
}

// call sends req, unless a breaker (breaker.go) refuses it unsent because
// the venue refuses the key or fails the endpoint, and tells the breakers
// how it went.
func (c *Client) call(ctx context.Context, req request) error {
	if req.signed && !c.HasKey() {
		return &AuthError{Code: venueapi.CodeForbidden, Message: "this server has no venue key for private data"}
	}
	g, err := c.admit(req, time.Now())
	if err != nil {
		return err
	}
	start := time.Now()
	err = c.send(ctx, req, g)
	end := time.Now()
	c.done(ctx, g, err, end)
	c.logCall(ctx, req, end.Sub(start), err)
	return err
}

// logCall logs a venue call: at debug level when it succeeded or was never
// sent (the budget spent), which the gateway's counters and request lines
// show; at info level when the venue failed it, each such call being one the
// breakers count (docs/deploy.md#logs). Never the query: a signed one holds
// its signature.
func (c *Client) logCall(ctx context.Context, req request, d time.Duration, err error) {
	level := slog.LevelDebug
	if rl := (*RateLimitedError)(nil); err != nil && (!errors.As(err, &rl) || rl.Venue) {
		level = slog.LevelInfo
	}
	if !c.log.Enabled(ctx, level) {
		return
	}
	attrs := []any{"op", req.method + " " + req.path, "duration_ms", float64(d.Microseconds()) / 1000}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	c.log.Log(ctx, level, "venue call", attrs...)
}

// send sends req within the quota, retrying what is safe to retry (every
// call here is a read: the venue failing, busy or limiting us) with backoff
// and full jitter while the context's deadline and the retry budget allow,
// and while no breaker of the call has opened. A breaker's trial is not
// retried.
func (c *Client) send(ctx context.Context, req request, g gates) error {
	q := c.public
	if req.signed {
		q = c.private
	}
	retries := c.retries
	if g.trial() {
		retries = 0
	}
	op := req.method + " " + req.path
	var last error
	for attempt := 0; ; attempt++ {
		if attempt > 0 && g.stopped() {
			return last
		}
		if err := q.Wait(ctx); err != nil {
			if last != nil {
				return last // a retry without a turn in time: the venue's error says more
			}
			return err
		}
		var notBefore time.Duration
		notBefore, last = c.attempt(ctx, req, op, q)
		if last == nil || !retryable(last) || attempt >= retries || ctx.Err() != nil {
			return last
		}
		wait := max(backoff(attempt), notBefore)
		if rl := (*RateLimitedError)(nil); errors.As(last, &rl) {
			wait = max(wait, rl.RetryAfter)
		}
		if dl, ok := ctx.Deadline(); ok && !time.Now().Add(wait).Before(dl) { // a retry at the deadline has no time to be sent
			return last
		}
		c.log.DebugContext(ctx, "retrying a venue call", "op", op, "attempt", attempt+1, "wait", wait, "err", last)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return last
		}
	}
}

// retryable: the venue failing, busy or limiting us; never a rule, a key or
// an answer that would come back as broken.
func retryable(err error) bool {
	var u *UnavailableError
	var rl *RateLimitedError
	var rj *RejectedError
	var broken *brokenAnswerError
	return (errors.As(err, &u) && !errors.As(err, &broken)) || (errors.As(err, &rl) && rl.Venue) || (errors.As(err, &rj) && rj.Code == venueapi.CodeBusy)
}

// maxAnswer bounds the body read: a 2000-candle answer is about 300 KiB.
const maxAnswer = 32 << 20

// attempt makes one HTTP exchange within the per-attempt timeout and
// classifies its outcome. When the venue says its window is spent, q sends
// nothing more until it resets. notBefore is the answer's Retry-After, which
// a retry waits for whatever the failure (a busy venue's 503 included). An
// exchange the caller's deadline ended before the venue had a fair time to
// answer fails with a cause marked so (cutShort).
func (c *Client) attempt(caller context.Context, req request, op string, q Budget) (notBefore time.Duration, err error) {
	ctx, cancel := context.WithTimeout(caller, c.timeout)
	defer cancel()
	u := *c.base
	u.Path += req.path
	if req.signed {
		u.RawQuery = c.signer.Query(req.method, c.host, u.EscapedPath(), req.query, c.now())
	} else if len(req.query) > 0 {
		u.RawQuery = sign.EncodeQuery(req.query)
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u.String(), body)
	if err != nil {
		return 0, &UnavailableError{Op: op, Err: errors.New("building the request failed")}
	}
	hr.Header.Set("Accept", "application/json")
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	sent := time.Now()
	res, err := c.http.Do(hr)
	if err != nil {
		// The URL of a signed call holds its signature: say what failed, not where.
		return 0, &UnavailableError{Op: op, Err: c.cutShort(caller, sent, errors.Unwrap(err))}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	switch {
	case err != nil:
		return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: c.cutShort(caller, sent, fmt.Errorf("reading the answer: %w", err))}
	case len(raw) > maxAnswer:
		return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: fmt.Errorf("the answer is larger than %d bytes", maxAnswer)}
	}
	// The pause holds every later call, whatever becomes of this one. A
	// refusal pauses too, unless the spent window already covers its wait:
	// a shared budget's pause is a Redis call.
	spent, ok := spentFor(res.Header)
	if ok {
		q.Pause(context.WithoutCancel(ctx), time.Now(), spent)
	}
	st, decodeErr := req.decode(raw)
	err = classify(op, res.StatusCode, res.Header, st, decodeErr)
	if rl := (*RateLimitedError)(nil); errors.As(err, &rl) && rl.RetryAfter > spent {
		q.Pause(context.WithoutCancel(ctx), time.Now(), rl.RetryAfter)
	}
	if err != nil {
		notBefore, _ = retryAfterHeader(res.Header) // only a failure is retried
	}
	return notBefore, err
}

// fairAttempt is the least time an exchange must have had before its
// caller's deadline for that deadline to count as the venue failing to
// answer in time: a venue that answers at all answers well within it.
const fairAttempt = time.Second

// cutShort returns err, the failure of an exchange sent at sent, marked as
// cutShortError when it was the caller's deadline passing before the venue
// had a fair time to answer: the lesser of the per-attempt timeout and
// fairAttempt. Such a failure is ours, not the venue's (a turn granted just
// before the deadline leaves no time for the request). The per-attempt
// timeout passing with the caller still waiting is the venue's failure.
func (c *Client) cutShort(caller context.Context, sent time.Time, err error) error {
	dl, ok := caller.Deadline()
	if !ok || (caller.Err() == nil && time.Now().Before(dl)) || !timedOut(err) || dl.Sub(sent) >= min(c.timeout, fairAttempt) {
		return err
	}
	return cutShortError{err}
}

// cutShortError is an exchange its caller's deadline cut short (cutShort):
// it says nothing of the endpoint. It reads as the failure it wraps.
type cutShortError struct{ error }

func (e cutShortError) Unwrap() error { return e.error }

// timedOut reports whether err is a deadline passing: a context's, or a
// connection's.
func timedOut(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
