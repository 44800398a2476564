// Package venue is the server's only way to the venue: typed calls of its
// three endpoints, validated before anything is sent, signed as DECISIONS.md
// says, within the venue's quotas, with timeouts and retries for what is safe
// to retry, and every number decoded exactly.
package venue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// Config configures a Client. Zero values are sane defaults.
type Config struct {
	BaseURL      string           // e.g. "https://api.example.com"; requests go only there
	AccessKey    string           // empty: signed calls fail with *AuthError, sending nothing
	SecretKey    Secret           //
	HTTPClient   *http.Client     // nil: a client with transport timeouts
	Now          func() time.Time // nil: time.Now
	Timeout      time.Duration    // per attempt; 0: 10 s
	Retries      int              // extra attempts for retryable failures; 0: 2; negative: none
	PrivateQuota Quota            // zero: 72 per 3 s, shared by both signed calls
	PublicQuota  Quota            // zero: 800 per second
	Logger       *slog.Logger     // nil: discard
}

// Client calls the venue. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	host    string // the canonical host that is signed
	access  string
	signer  *venueapi.Signer
	http    *http.Client
	now     func() time.Time
	timeout time.Duration
	retries int
	private *quota
	public  *quota
	log     *slog.Logger
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("venue base URL %q must be an absolute http or https URL without query", cfg.BaseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return nil, errors.New("venue access key and secret key: give both or neither")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout: 5 * time.Second,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
		}}
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
	if cfg.PrivateQuota == (Quota{}) {
		cfg.PrivateQuota = Quota{Requests: 72, Per: 3 * time.Second}
	}
	if cfg.PublicQuota == (Quota{}) {
		cfg.PublicQuota = Quota{Requests: 800, Per: time.Second}
	}
	for _, q := range []Quota{cfg.PrivateQuota, cfg.PublicQuota} {
		if q.Requests <= 0 || q.Per <= 0 {
			return nil, errors.New("venue quotas must allow at least one request per positive interval")
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Client{
		base: u, host: venueapi.CanonicalHost(u.Scheme, u.Host), access: cfg.AccessKey, signer: venueapi.NewSigner(cfg.AccessKey, []byte(cfg.SecretKey)),
		http: cfg.HTTPClient, now: cfg.Now, timeout: cfg.Timeout, retries: cfg.Retries,
		private: newQuota(cfg.PrivateQuota), public: newQuota(cfg.PublicQuota), log: cfg.Logger,
	}, nil
}

// HasKey reports whether the client can make signed calls.
func (c *Client) HasKey() bool { return c.access != "" }

// QuotaStatus reports the quotas and what is available of them now.
func (c *Client) QuotaStatus() (private, public QuotaState) {
	now := c.now()
	return c.private.state(now), c.public.state(now)
}

// request is what an endpoint file says of a call; call does the rest.
type request struct {
	method string
	path   string
	query  url.Values // business parameters in the query string
	body   any        // business parameters as a JSON body (POST), or nil
	signed bool
}

// envelope is what call needs of an answer to classify it: both envelopes'
// status fields.
type envelope struct {
	Code    *int    `json:"code"`
	Message string  `json:"message"`
	Status  *string `json:"status"`
	ErrCode int     `json:"err_code"`
	ErrMsg  string  `json:"err_msg"`
}

// call sends req within the quota, retrying what is safe to retry (every call
// here is a read) with backoff and full jitter while the context allows, and
// decodes a successful answer into out.
func (c *Client) call(ctx context.Context, req request, out any) error {
	if req.signed && !c.HasKey() {
		return &AuthError{Code: venueapi.CodeForbidden, Message: "this server has no venue key for private data"}
	}
	q := c.public
	if req.signed {
		q = c.private
	}
	op := req.method + " " + req.path
	var err error
	for attempt := 0; ; attempt++ {
		if err = q.wait(ctx, c.now); err != nil {
			return err
		}
		var retryAfter time.Duration
		retryAfter, err = c.attempt(ctx, req, op, out)
		if err == nil || !retryable(err) || attempt >= c.retries {
			return err
		}
		backoff := time.Duration(rand.Int64N(int64(100*time.Millisecond) << attempt)) // full jitter
		backoff = max(backoff, retryAfter)
		if dl, ok := ctx.Deadline(); ok && c.now().Add(backoff).After(dl) {
			return err
		}
		c.log.Debug("retrying a venue call", "op", op, "attempt", attempt+1, "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

// retryable: the venue failing or busy, never a rule or a key.
func retryable(err error) bool {
	var u *UnavailableError
	var rl *RateLimitedError
	var rj *RejectedError
	return errors.As(err, &u) || (errors.As(err, &rl) && rl.Venue) || (errors.As(err, &rj) && rj.Code == venueapi.CodeBusy)
}

// attempt makes one HTTP exchange and classifies its outcome.
func (c *Client) attempt(ctx context.Context, req request, op string, out any) (retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	u := *c.base
	u.Path += req.path
	query := req.query
	if req.signed {
		u.RawQuery = c.signer.Query(req.method, c.host, u.Path, query, c.now())
	} else if len(query) > 0 {
		u.RawQuery = venueapi.EncodeQuery(query)
	}
	var body io.Reader
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return 0, &InvalidRequestError{Err: fmt.Errorf("encoding the body: %w", err)}
		}
		body = bytes.NewReader(b)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u.String(), body)
	if err != nil {
		return 0, &UnavailableError{Op: op, Err: errors.New("building the request failed")}
	}
	hr.Header.Set("Accept", "application/json")
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(hr)
	if err != nil {
		// The URL of a signed call holds its signature: say what failed, not where.
		return 0, &UnavailableError{Op: op, Err: errors.Unwrap(err)}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: fmt.Errorf("reading the answer: %w", err)}
	}
	retryAfter = retryAfterOf(res.Header)
	var env envelope
	if jerr := json.Unmarshal(raw, &env); jerr != nil || (env.Code == nil && env.Status == nil) {
		if res.StatusCode == http.StatusTooManyRequests {
			return retryAfter, &RateLimitedError{RetryAfter: retryAfter, Venue: true}
		}
		return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: errors.New("the answer is not the venue's envelope")}
	}
	code, msg := venueapi.CodeOK, ""
	switch {
	case env.Code != nil && *env.Code != venueapi.CodeOK:
		code, msg = *env.Code, env.Message
	case env.Status != nil && *env.Status != venueapi.StatusOK:
		code, msg = env.ErrCode, env.ErrMsg
	}
	if code == venueapi.CodeOK && res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: fmt.Errorf("decoding the answer: %w", err)}
		}
		return 0, nil
	}
	switch {
	case code == venueapi.CodeRateLimited || res.StatusCode == http.StatusTooManyRequests:
		return retryAfter, &RateLimitedError{RetryAfter: retryAfter, Venue: true}
	case res.StatusCode >= 500:
		return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: fmt.Errorf("%s (code %d)", msg, code)}
	case code == venueapi.CodeForbidden || code == venueapi.CodeBadSignature:
		return 0, &AuthError{Code: code, Message: msg}
	case code == venueapi.CodeNoSuchContract:
		return 0, &NotFoundError{Code: code, Message: msg}
	case code == venueapi.CodeOK:
		return 0, &UnavailableError{Op: op, HTTPStatus: res.StatusCode, Err: errors.New("a success envelope with an error status")}
	}
	return 0, &RejectedError{Code: code, Message: msg, HTTPStatus: res.StatusCode}
}

// retryAfterOf reads when to retry: ratelimit-reset (ms), else Retry-After
// (seconds), else one second.
func retryAfterOf(h http.Header) time.Duration {
	if ms, err := strconv.ParseInt(h.Get("ratelimit-reset"), 10, 64); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond
	}
	if s, err := strconv.ParseInt(h.Get("Retry-After"), 10, 64); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	return time.Second
}
