// Package sandbox is an in-process imitation of the venue: its three paths,
// envelopes, error codes, signature checks and rate limits as docs/venue.md
// and docs/decisions.md say, over a deterministic two-year market. It is what
// `make run` shows without a venue account, and the HTTP peer of the tests;
// a client that works against it should work against the venue.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// Config configures a sandbox. The zero value of each field is a sane default.
type Config struct {
	Keys         []Key
	Seed         uint64           // 0: a fixed default, so every machine draws the same market
	Now          func() time.Time // nil: time.Now
	LeverRates   map[string]int   // contract code (or -CW/-NW/-CQ/-NQ code) -> every account's lever_rate; default 10
	PrivateLimit venueapi.Limit   // zero: venueapi.PrivateLimit, per access key
	PublicLimit  venueapi.Limit   // zero: venueapi.PublicLimit, per client IP
	Faults       Faults           // off by default
	Logger       *slog.Logger     // nil: discard
}

// defaultSeed draws the market every machine shows when no seed is given.
const defaultSeed = 0x5EED_2026

// Sandbox is the imitation venue; it is an http.Handler.
type Sandbox struct {
	keys         map[string]Key
	now          func() time.Time
	levers       map[string]int
	log          *slog.Logger
	series       map[string]*series // by base asset
	privateLimit *limiter
	publicLimit  *limiter
	mux          *http.ServeMux

	faultsMu sync.Mutex
	faults   Faults
	dice     *rng // draws which requests a fault hits; under faultsMu

	received sync.Map     // venue path -> *atomic.Int64
	inFlight atomic.Int64 // requests being answered
}

// New builds a sandbox from cfg, drawing each asset's daily path (a few
// milliseconds in all).
func New(cfg Config) (*Sandbox, error) {
	if cfg.Seed == 0 {
		cfg.Seed = defaultSeed
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PrivateLimit == (venueapi.Limit{}) {
		cfg.PrivateLimit = venueapi.PrivateLimit()
	}
	if cfg.PublicLimit == (venueapi.Limit{}) {
		cfg.PublicLimit = venueapi.PublicLimit()
	}
	for name, l := range map[string]venueapi.Limit{"PrivateLimit": cfg.PrivateLimit, "PublicLimit": cfg.PublicLimit} {
		if l.Requests <= 0 || l.Per <= 0 {
			return nil, fmt.Errorf("sandbox: %s must allow at least one request per positive interval", name)
		}
	}
	if err := checkLeverRates(cfg.LeverRates); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	s := &Sandbox{
		keys: map[string]Key{}, now: cfg.Now, levers: map[string]int{}, log: cfg.Logger, series: map[string]*series{},
		privateLimit: newLimiter(cfg.PrivateLimit), publicLimit: newLimiter(cfg.PublicLimit),
		faults: cfg.Faults, dice: newRNG(cfg.Seed, 7),
	}
	for i, k := range cfg.Keys {
		if k.Access == "" || k.Secret == "" {
			return nil, fmt.Errorf("sandbox: key %d needs an access key and a secret", i+1)
		}
		if _, dup := s.keys[k.Access]; dup {
			return nil, fmt.Errorf("sandbox: key %d repeats the access key %q", i+1, k.Access)
		}
		s.keys[k.Access] = k
	}
	for code, l := range cfg.LeverRates {
		s.levers[code] = l
	}
	for _, a := range assets {
		s.series[a.base] = newSeries(a, cfg.Seed)
	}
	s.mux = s.routes()
	return s, nil
}

// ServeHTTP answers the venue's three paths; 404 otherwise.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case venueapi.PathKLine, venueapi.PathTiers, venueapi.PathPositionLimit:
		// Only the venue's paths: a counter per path asked for would grow
		// with every path a scanner tries.
		c, _ := s.received.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr) // never the query: it holds the signature
	s.mux.ServeHTTP(w, r)
}

// Serve answers on ln until ctx ends, then shuts down gracefully: requests
// in flight end (an injected latency is cut short) and Serve returns nil.
func (s *Sandbox) Serve(ctx context.Context, ln net.Listener) error {
	// Connections that never sent a request are closed at shutdown:
	// net/http would wait 5 s before it counts them idle.
	var mu sync.Mutex
	fresh := map[net.Conn]bool{}
	closing := false
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ConnState: func(c net.Conn, st http.ConnState) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case st == http.StateNew && closing:
				c.Close()
			case st == http.StateNew:
				fresh[c] = true
			default:
				delete(fresh, c)
			}
		},
	}
	srv.RegisterOnShutdown(func() {
		mu.Lock()
		defer mu.Unlock()
		closing = true
		for c := range fresh {
			c.Close()
		}
	})
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("sandbox serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("sandbox shutting down with %d requests in flight: %w", s.inFlight.Load(), err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("sandbox serving on %s: %w", ln.Addr(), err)
	}
	return nil
}

// Markets lists the contracts listed at Now(): swaps and dated futures.
func (s *Sandbox) Markets() []Market { return markets(s.now()) }

// Received counts the requests that reached path, one of the venue's three,
// whatever their answer: tests of a client's budget count what it really sent.
func (s *Sandbox) Received(path string) int64 {
	if c, ok := s.received.Load(path); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}
