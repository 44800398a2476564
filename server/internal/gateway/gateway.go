// Package gateway is what browsers talk to: the venue's three paths,
// unsigned, with the venue's envelopes, validated, cached, coalesced,
// budgeted against the venue's limits, and signed with the server's key on
// the way out; the contracts on offer; health, readiness and metrics; and the
// front end for every other path. routes.go lists all of it.
package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// Config is everything the gateway depends on. Zero values are defaults.
type Config struct {
	Venue           *venue.Client        // the only way to the venue: its base URL and three paths, its quotas
	App             http.Handler         // the front end: every path routes.go does not list
	Contracts       []Contract           // offered at GET /api/v1/contracts
	Public          bool                 // the listener is not loopback-only: private paths need a viewer token
	ViewerTokens    []venue.Secret       // tokens that grant the private paths when Public
	FrameAncestors  []string             // origins allowed to frame the pages and talk to embeds; default 'self'
	EmbedLinks      *embedlink.Signer    // checks signed embed links; nil: embeds get no private data
	RefreshInterval time.Duration        // current-candle refresh per series; 0: 1 s
	CacheBytes      int64                // candle cache bound; 0: 64 MiB
	TierTTL         time.Duration        // 0: 5 min
	LimitTTL        time.Duration        // 0: 5 s
	PerIPRate       float64              // requests per second per client IP; 0: 50
	PerIPBurst      int                  // 0: 100
	UpstreamTimeout time.Duration        // a venue call, waiting for budget included; 0: 4 s
	Registry        *prometheus.Registry // served at /metrics; nil: a new one
	Logger          *slog.Logger         // nil: discard
	Now             func() time.Time     // the clock of refreshes, TTLs, rates and envelopes' ts; nil: time.Now
}

// Contract is a contract the UI offers, with what the venue does not list.
type Contract struct {
	Code          string          `json:"contract_code"`
	FaceValue     decimal.Decimal `json:"face_value"`
	PriceDecimals int32           `json:"price_decimals"`
}

// ParseContracts reads RISKCHART_CONTRACTS: code:face_value:price_decimals,
// comma-separated, e.g. "BTC-USDT:0.001:1,ETH-USDT:0.01:2". Errors name the
// variable, the item and the rule.
func ParseContracts(s string) ([]Contract, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("RISKCHART_CONTRACTS must list at least one contract as code:face_value:price_decimals")
	}
	var out []Contract
	seen := map[string]bool{}
	for i, item := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(item), ":")
		bad := func(rule string) error {
			return fmt.Errorf("RISKCHART_CONTRACTS: item %d (%q) %s", i+1, item, rule)
		}
		if len(parts) != 3 {
			return nil, bad("must be code:face_value:price_decimals")
		}
		if _, err := venueapi.ParseContractCode(parts[0]); err != nil {
			return nil, bad(err.Error())
		}
		if seen[parts[0]] {
			return nil, bad("lists " + parts[0] + " more than once")
		}
		seen[parts[0]] = true
		face, err := decimal.NewFromString(parts[1])
		if err != nil || !face.IsPositive() {
			return nil, bad("face value must be a positive decimal")
		}
		dec, err := strconv.Atoi(parts[2])
		if err != nil || dec < 0 || dec > 12 {
			return nil, bad("price decimals must be an integer from 0 to 12")
		}
		out = append(out, Contract{Code: parts[0], FaceValue: face, PriceDecimals: int32(dec)})
	}
	return out, nil
}

// DefaultContracts is the built-in table of the common USDT swaps, offered
// for a real venue when RISKCHART_CONTRACTS is unset.
func DefaultContracts() []Contract {
	c, _ := ParseContracts("BTC-USDT:0.001:1,ETH-USDT:0.01:2,SOL-USDT:1:3,XRP-USDT:10:4,DOGE-USDT:100:6,LTC-USDT:0.1:2") // a constant that parses
	return c
}

// server holds what the handlers share.
type server struct {
	cfg     Config
	venue   *venue.Client
	log     *slog.Logger
	now     func() time.Time
	candles *candleCache
	tiers   *ttlCache
	limits  *ttlCache
	perIP   *ipLimiter
	metrics *metrics
	headers headers
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
		return nil, errors.New("RISKCHART_ADDR is not loopback-only: set RISKCHART_VIEWER_TOKENS so that private data is not open to everyone")
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = time.Second
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	if cfg.TierTTL <= 0 {
		cfg.TierTTL = 5 * time.Minute
	}
	if cfg.LimitTTL <= 0 {
		cfg.LimitTTL = 5 * time.Second
	}
	if cfg.PerIPRate <= 0 {
		cfg.PerIPRate = 50
	}
	if cfg.PerIPBurst <= 0 {
		cfg.PerIPBurst = 100
	}
	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = 4 * time.Second
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
	s := &server{cfg: cfg, venue: cfg.Venue, log: cfg.Logger, now: cfg.Now}
	s.metrics = newMetrics(cfg.Registry, cfg.Venue)
	s.candles = newCandleCache(cfg.Venue, cfg.RefreshInterval, cfg.UpstreamTimeout, cfg.CacheBytes, cfg.Now, s.metrics)
	cfg.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_cache_bytes",
		Help: "Bytes the candle cache holds: candles and encoded answers."}, s.candles.bytesHeld))
	s.tiers = newTTLCache(cfg.TierTTL, cfg.UpstreamTimeout, cfg.Now)
	s.limits = newTTLCache(cfg.LimitTTL, cfg.UpstreamTimeout, cfg.Now)
	s.perIP = newIPLimiter(cfg.PerIPRate, cfg.PerIPBurst, cfg.Now)
	s.headers = newHeaders(contentSecurityPolicy(cfg.FrameAncestors), cfg.RefreshInterval)
	return s.routes(), nil
}
