// Package cluster is the state Riskchart's replicas share through Redis (or
// Valkey): one venue budget (Budget), short leases that let one replica do
// a periodic job for all (Lease), and values with change notification
// (Put, Get, Watch). It keeps every Redis call short, so that a Redis that
// is down or slow costs a request a bounded wait, never an outage; the
// budget then falls back to a local share that keeps the cluster within the
// venue's limit. See docs/architecture.md, "Shared state (Redis)".
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Setting is the variable the Redis URL comes from, named in every error
// about it.
const Setting = "RISKCHART_REDIS_URL"

// Options tune a Client; the zero value is what production uses.
type Options struct {
	// Timeout bounds every Redis call: dialling, the pool wait, writing and
	// reading together. Default 250 ms.
	Timeout time.Duration
	// PoolSize is the number of connections kept. Default 8.
	PoolSize int
	// MemberTTL is how long a budget's replica counts as present after its
	// last heartbeat; it heartbeats four times per MemberTTL. Default 2 s.
	MemberTTL time.Duration
	// ProbeEvery is how often a degraded budget, or a lost subscription,
	// tries Redis again. Default 1 s.
	ProbeEvery time.Duration
	// MaxValueBytes bounds a value given to Put. Default 4 MiB.
	MaxValueBytes int
	// Logger receives state changes; nil discards them.
	Logger *slog.Logger
}

const (
	defaultTimeout       = 250 * time.Millisecond
	defaultPoolSize      = 8
	defaultMemberTTL     = 2 * time.Second
	defaultProbeEvery    = time.Second
	defaultMaxValueBytes = 4 << 20
	prefix               = "riskchart:"
)

// Client is one replica's connection to the shared Redis. Its methods are
// safe for concurrent use.
type Client struct {
	rdb      *redis.Client
	redacted string // the URL without its password, for logs
	opt      Options
	id       string    // this replica, among the others
	base     time.Time // local microseconds count from here
	log      *slog.Logger
	scripts  scripts

	offset  atomic.Int64 // Redis's microseconds minus ours, a lower bound; noOffset until known
	counter atomic.Uint64
	errs    atomic.Uint64 // Redis calls that failed, timeouts excepted
	slow    atomic.Uint64 // Redis calls that timed out

	errorsDesc *prometheus.Desc
}

const noOffset = -1 << 63

// Open checks rawURL (redis:// or rediss://, as redis.ParseURL reads it) and
// returns a client for it. It does not connect: a Redis that is down at
// start is a degraded budget, not a failed start. The URL's own timeout,
// retry and pool options are replaced by Riskchart's.
func Open(rawURL string, opt Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the URL, password included: keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%s: must be a redis:// or rediss:// URL: %v", Setting, err)
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%s: must be a redis:// or rediss:// URL, not %q", Setting, u.Scheme+"://")
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s: must name a host, as in redis://host:6379/0", Setting)
	}
	ro, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %v", Setting, u.Redacted(), err)
	}
	if opt.Timeout < 0 || opt.PoolSize < 0 || opt.MemberTTL < 0 || opt.ProbeEvery < 0 || opt.MaxValueBytes < 0 {
		return nil, errors.New("cluster options: durations and sizes must not be negative")
	}
	opt = withDefaults(opt)
	// Every wait is bounded by one Timeout: no retries, one dial attempt, and
	// the call's context deadline applied to reads and writes.
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout, ro.PoolTimeout = opt.Timeout, opt.Timeout, opt.Timeout, opt.Timeout
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = -1
	ro.DialerRetries = 1
	ro.PoolSize = opt.PoolSize
	// Nothing here uses identity or maintenance notifications; both cost a
	// round trip per new connection.
	ro.DisableIdentity = true
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

	id := make([]byte, 8)
	_, _ = rand.Read(id)
	c := &Client{
		rdb:      redis.NewClient(ro),
		redacted: u.Redacted(),
		opt:      opt,
		id:       hex.EncodeToString(id),
		base:     time.Now(),
		log:      opt.Logger,
		scripts:  newScripts(),
		errorsDesc: prometheus.NewDesc("riskchart_redis_errors_total",
			"Redis calls that failed, by kind (error, timeout).", []string{"kind"}, nil),
	}
	c.offset.Store(noOffset)
	return c, nil
}

func withDefaults(o Options) Options {
	if o.Timeout == 0 {
		o.Timeout = defaultTimeout
	}
	if o.PoolSize == 0 {
		o.PoolSize = defaultPoolSize
	}
	if o.MemberTTL == 0 {
		o.MemberTTL = defaultMemberTTL
	}
	if o.ProbeEvery == 0 {
		o.ProbeEvery = defaultProbeEvery
	}
	if o.MaxValueBytes == 0 {
		o.MaxValueBytes = defaultMaxValueBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// String is the Redis URL with its password masked.
func (c *Client) String() string { return c.redacted }

// Close closes the connections. Budgets and watchers on c fail over to
// their degraded behaviour afterwards.
func (c *Client) Close() error { return c.rdb.Close() }

// Ping checks that Redis answers within the timeout.
func (c *Client) Ping(ctx context.Context) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.note(c.rdb.Ping(ctx).Err(), "ping")
}

// bound gives one Redis call its timeout.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opt.Timeout)
}

// note counts a failed call and wraps err with what was being done; nil and
// redis.Nil (no such key) pass unchanged.
func (c *Client) note(err error, doing string) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	if timedOut(err) {
		c.slow.Add(1)
	} else if !errors.Is(err, context.Canceled) {
		c.errs.Add(1)
	}
	return fmt.Errorf("redis %s: %w", doing, err)
}

// IsRefusal says whether err is Redis refusing this replica's login or one
// of its commands (a wrong user or password in Setting, or an ACL that
// denies it) rather than Redis out of reach: a setting to mend, which no
// wait mends.
func IsRefusal(err error) bool { return redis.IsAuthError(err) || redis.IsPermissionError(err) }

// Reason says why Redis is not in use, in the words of the logs and
// /healthz: out of reach, or, refused, refusing this replica (IsRefusal).
func Reason(refused bool) string {
	if refused {
		return "refused this replica's login or commands (check the user and password of " + Setting + ")"
	}
	return "out of reach"
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// micros is local time t in microseconds since c was opened; the monotonic
// clock makes differences exact whatever the wall clock does.
func (c *Client) micros(t time.Time) int64 { return t.Sub(c.base).Microseconds() }

// learnOffset takes Redis's time, read between local times sent and got:
// redisNow minus got is a lower bound of the clocks' offset.
func (c *Client) learnOffset(redisNow int64, got time.Time) {
	c.offset.Store(redisNow - c.micros(got))
}

// redisTime reads Redis's clock, which every replica shares, and learns the
// offset from it.
func (c *Client) redisTime(ctx context.Context) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	t, err := c.rdb.Time(ctx).Result()
	if err = c.note(err, "time"); err != nil {
		return err
	}
	c.learnOffset(t.UnixMicro(), time.Now())
	return nil
}

// token is a name no other turn or lease in the cluster has.
func (c *Client) token() string {
	return c.id + "-" + strconv.FormatUint(c.counter.Add(1), 36)
}

// ClientStats counts failed Redis calls.
type ClientStats struct {
	Errors, Timeouts uint64
}

// Stats is what failed so far.
func (c *Client) Stats() ClientStats {
	return ClientStats{Errors: c.errs.Load(), Timeouts: c.slow.Load()}
}

// Describe is for prometheus.Collector: the client reports
// riskchart_redis_errors_total.
func (c *Client) Describe(ch chan<- *prometheus.Desc) { ch <- c.errorsDesc }

// Collect is for prometheus.Collector.
func (c *Client) Collect(ch chan<- prometheus.Metric) {
	s := c.Stats()
	ch <- prometheus.MustNewConstMetric(c.errorsDesc, prometheus.CounterValue, float64(s.Errors), "error")
	ch <- prometheus.MustNewConstMetric(c.errorsDesc, prometheus.CounterValue, float64(s.Timeouts), "timeout")
}

// validName is a budget, lease or value name: printable, no braces (they
// would change which keys Redis Cluster keeps together), at most max bytes.
func validName(what, name string, max int) error {
	if name == "" || len(name) > max {
		return fmt.Errorf("%s name %q: must be 1 to %d bytes", what, name, max)
	}
	if strings.ContainsAny(name, "{}") || strings.IndexFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return fmt.Errorf("%s name %q: must be printable, without spaces or braces", what, name)
	}
	return nil
}
