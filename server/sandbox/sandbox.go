// Package sandbox is an in-process imitation of the venue: its three paths,
// envelopes, error codes, signature checks and rate limits as venue-api.md
// and DECISIONS.md say, over a deterministic two-year market. It is what
// `make run` shows without a venue account, and the HTTP peer of the tests.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// Key is an API key the sandbox accepts.
type Key struct {
	Access, Secret string
	Read           bool // read permission, needed by endpoints 1 and 2
	Disabled       bool
}

// ParseKeys parses RISKCHART_SANDBOX_KEYS: "access:secret" pairs separated by
// commas, each with read permission. Errors never repeat a secret.
func ParseKeys(s string) ([]Key, error) {
	var keys []Key
	for i, pair := range strings.Split(s, ",") {
		access, secret, ok := strings.Cut(strings.TrimSpace(pair), ":")
		if !ok || access == "" || secret == "" {
			return nil, fmt.Errorf("RISKCHART_SANDBOX_KEYS: pair %d must be access:secret with both parts non-empty", i+1)
		}
		keys = append(keys, Key{Access: access, Secret: secret, Read: true})
	}
	return keys, nil
}

// GenerateKey returns a random key with read permission.
func GenerateKey() (Key, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return Key{}, fmt.Errorf("reading random bytes: %w", err)
	}
	return Key{Access: "sandbox-" + hex.EncodeToString(b[:8]), Secret: hex.EncodeToString(b[8:]), Read: true}, nil
}

// Limit is a request quota: Requests per Per.
type Limit struct {
	Requests int
	Per      time.Duration
}

// Config configures a sandbox. The zero value of each field is a sane default.
type Config struct {
	Keys         []Key
	Seed         uint64           // 0: a fixed default, so every machine draws the same market
	Now          func() time.Time // nil: time.Now
	LeverRates   map[string]int   // contract code -> every account's lever_rate; default 10
	PrivateLimit Limit            // zero: 72 per 3 s per key (DECISIONS.md, Limits)
	PublicLimit  Limit            // zero: 800 per second per client IP
	Faults       Faults           // off by default
	Logger       *slog.Logger     // nil: discard
}

const defaultSeed = 0x5EED_2026

// Sandbox is the imitation venue; it is an http.Handler.
type Sandbox struct {
	keys    map[string]Key
	now     func() time.Time
	levers  map[string]int
	log     *slog.Logger
	series  map[string]*series // by base asset
	private *windows
	public  *windows

	faultsMu sync.Mutex
	faults   Faults
	dice     *rng

	received sync.Map // path -> *atomic.Int64
	mux      *http.ServeMux
}

// New builds a sandbox from cfg.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Seed == 0 {
		cfg.Seed = defaultSeed
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.PrivateLimit == (Limit{}) {
		cfg.PrivateLimit = Limit{Requests: 72, Per: 3 * time.Second}
	}
	if cfg.PublicLimit == (Limit{}) {
		cfg.PublicLimit = Limit{Requests: 800, Per: time.Second}
	}
	if cfg.PrivateLimit.Requests <= 0 || cfg.PrivateLimit.Per <= 0 || cfg.PublicLimit.Requests <= 0 || cfg.PublicLimit.Per <= 0 {
		return nil, errors.New("sandbox: limits must allow at least one request per positive interval")
	}
	s := &Sandbox{
		keys: map[string]Key{}, now: cfg.Now, levers: cfg.LeverRates, log: cfg.Logger,
		series:  map[string]*series{},
		private: newWindows(cfg.PrivateLimit), public: newWindows(cfg.PublicLimit),
		faults: cfg.Faults, dice: newRNG(cfg.Seed, 7),
	}
	for _, k := range cfg.Keys {
		if k.Access == "" || k.Secret == "" {
			return nil, errors.New("sandbox: every key needs an access key and a secret")
		}
		s.keys[k.Access] = k
	}
	for _, a := range assets {
		s.series[a.base] = newSeries(a, cfg.Seed)
	}
	s.mux = http.NewServeMux()
	s.mux.Handle("GET "+venueapi.PathKLine, s.public.guard(s.now, clientIP, venueapi.PathKLine, http.HandlerFunc(s.serveKLine)))
	s.mux.Handle("GET "+venueapi.PathTiers, s.signed(venueapi.PathTiers, http.HandlerFunc(s.serveTiers)))
	s.mux.Handle("GET "+venueapi.PathPositionLimit, s.signed(venueapi.PathPositionLimit, http.HandlerFunc(s.serveLimits)))
	s.mux.Handle("POST "+venueapi.PathPositionLimit, s.signed(venueapi.PathPositionLimit, http.HandlerFunc(s.serveLimits)))
	return s, nil
}

// ServeHTTP answers the venue's three paths.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.count(r.URL.Path)
	if s.injectFault(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Serve answers on ln until ctx ends, then shuts down gracefully.
func (s *Sandbox) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("sandbox serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("sandbox shutting down: %w", err)
	}
	return nil
}

// Markets lists the contracts listed now.
func (s *Sandbox) Markets() []Market { return markets(s.now()) }

// Received counts the requests that reached a venue path, faults included.
func (s *Sandbox) Received(path string) int64 {
	if c, ok := s.received.Load(path); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func (s *Sandbox) count(path string) {
	c, _ := s.received.LoadOrStore(path, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

// clientIP is the remote address's host: the sandbox sits behind no proxy.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// writeError answers the venue's error body for the path: the code envelope
// for endpoint 1, the status envelope for 2 and 3.
func (s *Sandbox) writeError(w http.ResponseWriter, path string, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(venueapi.ErrorBody(path, code, msg, s.now().UnixMilli()))
}

// writeParamError answers a rule broken by the request: 1030 naming the
// parameter, or 1013 for a well-formed contract that is not listed.
func (s *Sandbox) writeParamError(w http.ResponseWriter, path string, err error) {
	var nsc errNoSuchContract
	if errors.As(err, &nsc) {
		s.writeError(w, path, http.StatusOK, venueapi.CodeNoSuchContract, err.Error())
		return
	}
	s.writeError(w, path, http.StatusOK, venueapi.CodeInvalidInput, err.Error())
}
