// Package gateway is what browsers talk to: the venue's three paths,
// unsigned, with the venue's envelopes, validated, cached, coalesced,
// budgeted against the venue's limits, and signed with the server's key on
// the way out; the contracts on offer; health, readiness and metrics; and the
// front end for every other path. routes.go lists all of it.
package gateway

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/riskchart/riskchart/app/embedmsg"
	"github.com/riskchart/riskchart/server/internal/clientaddr"
	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// Config is everything the gateway depends on. Zero values are defaults.
type Config struct {
	Venue           *venue.Client     // the only way to the venue: its base URL and three paths, its quotas
	App             http.Handler      // the front end: every path routes.go does not list
	Contracts       []venueapi.Offer  // offered at GET venueapi.PathContracts
	Public          bool              // the listener is not loopback-only: private paths need a viewer token
	ViewerTokens    []venue.Secret    // tokens that grant the private paths when Public
	NoMetrics       bool              // /metrics is served on a listener of its own, not here
	FrameAncestors  []string          // origins allowed to frame the pages and talk to embeds; default 'self'
	ScriptSources   []string          // script-src sources, besides 'self', of the scripts App's pages carry inline (hashes)
	EmbedLinks      *embedlink.Signer // checks signed embed links; nil: embeds get no private data
	PublicTiers     bool              // the tier ladders (venue-wide) need no viewer token or embed link; limits stay private
	PublicURL       *url.URL          // where browsers reach the server, as they see it; nil: unknown
	AllowedHosts    []string          // Host names answered besides loopback's and PublicURL's (ParseAllowedHosts); "*": any
	RefreshInterval time.Duration     // current-candle refresh per series; 0: 1 s
	StaleAfter      time.Duration     // a refresh slower than this answers cached data, marked stale; 0: 1 s
	CacheBytes      int64             // candle cache bound; 0: 64 MiB
	// SharedBlockBytes bounds the history blocks put in Redis, by every
	// replica together, in an hour (blockTTL): Redis never holds more than
	// twice it of them. All replicas should have the same; 0: 256 MiB.
	SharedBlockBytes int64
	TierTTL          time.Duration        // 0: 5 min
	LimitTTL         time.Duration        // 0: 5 s
	TrustedProxies   []netip.Prefix       // peers whose ForwardedHeader names the client; nil: none
	ForwardedHeader  clientaddr.Header    // the one header trusted proxies name the client in; the other is ignored
	ClientRate       rate.Limit           // requests per second per client address on the limited paths; 0: 50; rate.Inf: no limit
	ClientBurst      int                  // 0: 100
	UpstreamTimeout  time.Duration        // a venue call, waiting for budget included; 0: 4 s
	MaxStreams       int                  // candle streams open at once; 0: 20,000
	ClientStreams    int                  // candle streams one client address may hold open; 0: 32
	Streams          *Streams             // the candle streams' lifetime, to close at shutdown; nil: never closed
	Detached         *Detached            // the lifetime of the venue calls and Redis writes detached from their requests, to close after the server's shutdown; nil: never closed
	Shared           *SharedState         // the state shared with other replicas through Redis; nil: this process alone
	Registry         *prometheus.Registry // served at /metrics; nil: a new one
	Logger           *slog.Logger         // nil: discard
	Now              func() time.Time     // the clock of refreshes, TTLs, rates and envelopes' ts; nil: time.Now
}

// ErrNoViewerTokens is New refusing a public listener without viewer tokens:
// the private paths would be open to everyone.
var ErrNoViewerTokens = errors.New("gateway: a listener off loopback needs viewer tokens, or private data is open to everyone")

// ErrNoHostNames is New refusing a public listener that knows no host name
// of its own: it would answer browsers only on loopback names, or, if it
// answered every name, to pages that rebind theirs to it.
var ErrNoHostNames = errors.New("gateway: a listener off loopback needs the host names it answers for (a public URL or allowed hosts)")

// server holds what the handlers share.
type server struct {
	cfg       Config
	tokenSums [][sha256.Size]byte // the viewer tokens' digests, compared in constant time (access.go)
	venue     *venue.Client
	log       *slog.Logger
	now       func() time.Time
	candles   *candleCache
	tiers     *ttlCache
	limits    *ttlCache
	listed    *listed      // the contracts the venue lists, to answer others 1013 from memory
	share     *fairShare   // each client's share of the private venue calls
	shared    *SharedState // nil: this process alone; else the fair share is kept in Redis
	shareName string       // names a client's fair share in Redis, by account
	clients   *clientaddr.Resolver
	perClient *ipLimiter // nil: no per-client limit
	metrics   *metrics
	headers   headers
	hosts     []hostRule         // the Host headers answered; nil: any
	origins   embedmsg.AllowList // besides the request's own, the origins private data may be asked from
	refused   *refusals          // the request log's thinning of refused requests
	streams   *streamHub         // the candle streams (stream.go)
	contracts []byte             // the contract path's answer, encoded once: the list is configuration
	ready     readyProbe         // what /readyz's venue calls learnt (ops.go)
}

// MinViewerTokenLen is the fewest characters a viewer token may have. A
// token is the whole of what stands between anyone who can reach the server
// and the account's private data, and the login form answers as fast as a
// guess can be sent; 16 random characters are out of reach of guessing.
const MinViewerTokenLen = 16

// CheckViewerToken reports why t cannot be a viewer token, as the end of a
// sentence naming the token ("viewer token 2 is empty"), or nil.
func CheckViewerToken(t venue.Secret) error {
	switch n := utf8.RuneCountInString(string(t)); {
	case n == 0: // its cookie would be the MAC of an empty key, which anyone can make
		return errors.New("is empty")
	case n < MinViewerTokenLen:
		return fmt.Errorf("has %d characters: a viewer token takes at least %d (for example: openssl rand -base64 18)", n, MinViewerTokenLen)
	}
	return nil
}

// New builds the gateway's handler. It refuses to serve private data off
// loopback without viewer tokens.
func New(cfg Config) (http.Handler, error) {
	if cfg.Venue == nil {
		return nil, errors.New("gateway: a venue client is required")
	}
	if cfg.App == nil {
		cfg.App = http.NotFoundHandler()
	}
	if cfg.Public && len(cfg.ViewerTokens) == 0 {
		return nil, ErrNoViewerTokens
	}
	for i, t := range cfg.ViewerTokens {
		if err := CheckViewerToken(t); err != nil {
			return nil, fmt.Errorf("gateway: viewer token %d %w", i+1, err)
		}
	}
	if cfg.Public && cfg.PublicURL == nil && len(cfg.AllowedHosts) == 0 {
		return nil, ErrNoHostNames
	}
	hosts, err := hostRules(cfg)
	if err != nil {
		return nil, err
	}
	for _, a := range cfg.FrameAncestors {
		if err := checkFrameAncestor(a); err != nil { // copied into the CSP: nothing may widen it
			return nil, fmt.Errorf("gateway: %w", err)
		}
	}
	for _, src := range cfg.ScriptSources {
		if !scriptHash.MatchString(src) { // copied into the CSP too: a hash allows one script, nothing else
			return nil, fmt.Errorf("gateway: script source %q: want a hash source, 'sha256-', 'sha384-' or 'sha512-' and base64, quotes included", src)
		}
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = time.Second
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = time.Second
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	if cfg.SharedBlockBytes <= 0 {
		cfg.SharedBlockBytes = 256 << 20
	}
	if cfg.TierTTL <= 0 {
		cfg.TierTTL = 5 * time.Minute
	}
	if cfg.LimitTTL <= 0 {
		cfg.LimitTTL = 5 * time.Second
	}
	if cfg.ClientRate <= 0 {
		cfg.ClientRate = 50
	}
	if cfg.ClientBurst <= 0 {
		cfg.ClientBurst = 100
	}
	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = 4 * time.Second
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 20_000
	}
	if cfg.ClientStreams <= 0 {
		cfg.ClientStreams = 32
	}
	if cfg.Streams == nil {
		cfg.Streams = NewStreams()
	}
	if cfg.Detached == nil {
		cfg.Detached = NewDetached()
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &server{cfg: cfg, venue: cfg.Venue, log: cfg.Logger, now: cfg.Now,
		hosts: hosts, origins: originAllowList(cfg), refused: newRefusals(), ready: readyProbe{calls: sharedCalls{life: cfg.Detached}}}
	for _, t := range cfg.ViewerTokens {
		s.tokenSums = append(s.tokenSums, sha256.Sum256([]byte(t)))
	}
	// What the contract path answers, and the chart page carries (firstcontracts.go).
	if s.contracts, err = json.Marshal(map[string]any{"data": cfg.Contracts, "private": cfg.Venue.HasKey()}); err != nil {
		return nil, fmt.Errorf("gateway: encoding the contract list: %w", err)
	}
	s.metrics = newMetrics(cfg.Registry, cfg.Venue)
	s.candles = newCandleCache(cfg.Venue, cfg.RefreshInterval, cfg.UpstreamTimeout, cfg.StaleAfter, cfg.CacheBytes, cfg.Now, s.metrics, cfg.Detached)
	cfg.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_cache_bytes",
		Help: "Bytes the candle cache holds: candles and encoded answers."}, s.candles.bytesHeld))
	s.streams = newStreamHub(s.candles, cfg, cfg.Registry)
	s.tiers = newTTLCache(cfg.TierTTL, cfg.UpstreamTimeout, cfg.StaleAfter, cfg.Now, cfg.Detached)
	s.limits = newTTLCache(cfg.LimitTTL, cfg.UpstreamTimeout, cfg.StaleAfter, cfg.Now, cfg.Detached)
	if sh := cfg.Shared; sh != nil {
		if err := sh.attach(cfg.Logger, cfg.Registry); err != nil {
			return nil, err
		}
		s.candles.cluster, s.candles.blockPool = sh, cfg.SharedBlockBytes
		sh.on("kline:latest:", s.candles.changed)
		// The tiers are venue-wide; the limits are the account's, shared only
		// with servers of the same key (none: "nokey", which puts nothing).
		s.tiers.share(sh, "", "tiers", decodeAs[venueapi.TierEnvelope])
		s.limits.share(sh, "acct-"+cmp.Or(cfg.Venue.Account(), "nokey")+":", "limits", decodeAs[venueapi.LimitEnvelope])
		s.shared, s.shareName = sh, "fair-share:acct-"+cmp.Or(cfg.Venue.Account(), "nokey")+":"
	}
	s.listed = newListed(cfg.Venue, cfg.UpstreamTimeout, cfg.Now, s.metrics, cfg.Logger, cfg.Detached)
	private, _ := cfg.Venue.QuotaStatus()
	s.share = newFairShare(private.Quota)
	s.clients = clientaddr.New(cfg.TrustedProxies, cfg.ForwardedHeader)
	if cfg.ClientRate != rate.Inf {
		s.perClient = newIPLimiter(cfg.ClientRate, cfg.ClientBurst, cfg.Now)
	}
	s.headers = newHeaders(contentSecurityPolicy(cfg.FrameAncestors, cfg.ScriptSources), cfg.RefreshInterval)
	return s.routes(), nil
}

// decodeAs reads a venue answer the venue client returned as a *T, from the
// JSON it encodes to.
func decodeAs[T any](b []byte) (any, error) {
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, err
	}
	return v, nil
}
