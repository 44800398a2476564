package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
	"golang.org/x/time/rate"
)

// config is everything the server reads from its environment: flags, and
// the RISKCHART_* variables for the flags not given. settings says where each
// field comes from; the summary printed at start shows every setting, secrets
// masked.
type config struct {
	Addr            string            // where browsers connect
	MetricsAddr     string            // a listener of its own for /metrics; "": /metrics on Addr
	VenueURL        string            // the real venue; empty starts the embedded sandbox
	AccessKey       string            // the venue account's access key
	SecretKey       venue.Secret      // its secret key, given or read from SecretKeyFile
	SecretKeyFile   string            // the file holding the secret key
	SandboxAddr     string            // where the embedded sandbox listens
	SandboxKeys     venue.Secret      // access:secret pairs the sandbox accepts
	SandboxSeed     uint64            // draws the sandbox's market; 0: the one every machine shows
	ViewerTokens    venue.Secret      // comma-separated tokens for private paths off loopback
	Contracts       []venueapi.Offer  // nil: the sandbox's markets, or defaultContracts for a real venue
	FrameAncestors  string            // origins allowed to embed the pages, space-separated
	PublicTiers     bool              // tier ladders served without a viewer token or embed link
	EmbedKey        venue.Secret      // signs embed links; empty: a key made at start
	Root            string            // the folder holding web/ and wasm_exec.js
	LogLevel        slog.Level        // the least level logged (docs/deploy.md#logs)
	PublicURL       *url.URL          // where browsers reach the server, as they see it; nil: unknown
	AllowedHosts    []string          // Host names answered besides PublicURL's and loopback's; "*": any
	EmbedMaxTTL     time.Duration     // the longest an embed link may last
	ReadTimeout     time.Duration     // a whole request, headers and body, from its first byte
	MaxConnsPerIP   int               // connections one client may hold open; 0: no bound
	MaxStreams      int               // candle streams open at once
	ClientStreams   int               // candle streams one client address may hold open
	TrustedProxies  []netip.Prefix    // peers whose ForwardedHeader names the client
	ForwardedHeader clientaddr.Header // the one header trusted proxies write: X-Forwarded-For or Forwarded
	ClientRate      rate.Limit        // requests per second per client address; rate.Inf: no limit
	ClientBurst     int
	RefreshInterval time.Duration
	StaleAfter      time.Duration // a refresh slower than this answers the cached data, marked stale
	ShutdownTimeout time.Duration
	RedisURL        string // the Redis replicas share state through; empty: this process alone
	Replicas        int    // the replicas sharing the venue budget: each spends 1/Replicas alone when Redis fails
	Egress          string // names the public budget: replicas leaving through one address share one

	summary []string          // the printed lines, secrets already masked
	from    map[string]string // how each setting given was given, by variable: its flag or the variable
}

// name is the setting of variable env as an error names it: the flag or the
// variable it was given by, or, when it was not given, both.
func (c config) name(env string) string {
	if from := c.from[env]; from != "" {
		return from
	}
	for _, s := range settings {
		if s.env == env {
			return env + " (-" + s.flag + ")"
		}
	}
	return env
}

// setting is one line of the configuration: its flag, its variable, its
// text when neither is given, and how that text becomes a field of config.
type setting struct {
	flag   string
	env    string
	def    string // the default text
	unset  string // what an empty value means, for the usage and the summary
	usage  string
	secret bool                            // masked in the summary
	mask   func(v string) string           // shows v with its secret part masked; nil: v, or **** if secret
	set    func(c *config, v string) error // parses v into c; its error names the rule, parseConfig adds the source
}

// settings is every setting the server reads, in the order of the summary.
// Flags, variables, defaults, validation and the summary all come from here.
var settings = []setting{
	{flag: "addr", env: "RISKCHART_ADDR", def: "127.0.0.1:8080", usage: "address browsers connect to",
		set: func(c *config, v string) error {
			if err := checkListenAddr(v); err != nil {
				return err
			}
			c.Addr = v
			return nil
		}},
	{flag: "metrics-addr", env: "RISKCHART_METRICS_ADDR", unset: "/metrics on RISKCHART_ADDR, for its host names",
		usage: "address of a listener of its own for /metrics, which RISKCHART_ADDR then does not serve",
		set: func(c *config, v string) error {
			if v != "" {
				if err := checkListenAddr(v); err != nil {
					return err
				}
			}
			c.MetricsAddr = v
			return nil
		}},
	{flag: "venue-url", env: "RISKCHART_VENUE_URL", unset: "the embedded sandbox venue",
		usage: "base URL of the venue, http:// or https://, e.g. https://api.venue.example; a user and password in it are masked when printed",
		mask:  maskURL,
		set: func(c *config, v string) error {
			if v != "" {
				if err := checkVenueURL(v); err != nil {
					return err
				}
			}
			c.VenueURL = v
			return nil
		}},
	{flag: "access-key", env: "RISKCHART_ACCESS_KEY", unset: "no key: a real venue's private data is off", usage: "access key of the venue account, given with its secret key or not at all",
		set: func(c *config, v string) error { c.AccessKey = v; return nil }},
	{flag: "secret-key", env: "RISKCHART_SECRET_KEY", unset: "the content of RISKCHART_SECRET_KEY_FILE, if given", secret: true,
		usage: "secret key of the venue account (prefer -secret-key-file)",
		set:   func(c *config, v string) error { c.SecretKey = venue.Secret(v); return nil }},
	{flag: "secret-key-file", env: "RISKCHART_SECRET_KEY_FILE", unset: "no file", usage: "file holding the secret key",
		set: func(c *config, v string) error { c.SecretKeyFile = v; return nil }},
	{flag: "sandbox-addr", env: "RISKCHART_SANDBOX_ADDR", def: "127.0.0.1:0", usage: "address of the embedded sandbox venue",
		set: func(c *config, v string) error {
			// An empty address would listen on every interface.
			if err := checkListenAddr(v); err != nil {
				return err
			}
			c.SandboxAddr = v
			return nil
		}},
	{flag: "sandbox-keys", env: "RISKCHART_SANDBOX_KEYS", unset: "one generated at start", secret: true,
		usage: "access:secret pairs the sandbox accepts, comma-separated",
		set:   func(c *config, v string) error { c.SandboxKeys = venue.Secret(v); return nil }},
	{flag: "sandbox-seed", env: "RISKCHART_SANDBOX_SEED", unset: "the market every machine shows",
		usage: "draws the sandbox's market: another number, another two years of prices",
		set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return fmt.Errorf("must be a whole number from 1 to %d", uint64(math.MaxUint64))
			}
			c.SandboxSeed = n
			return nil
		}},
	{flag: "viewer-tokens", env: "RISKCHART_VIEWER_TOKENS", unset: "private paths answer loopback only", secret: true,
		usage: "tokens that grant browsers the private paths, comma-separated",
		set: func(c *config, v string) error {
			c.ViewerTokens = venue.Secret(v)
			for i, t := range splitSecrets(c.ViewerTokens) {
				if err := gateway.CheckViewerToken(t); err != nil {
					return fmt.Errorf("token %d %w", i+1, err) // the token itself is never named
				}
			}
			return nil
		}},
	{flag: "contracts", env: "RISKCHART_CONTRACTS", unset: "the sandbox's markets, or a built-in list for a real venue",
		usage: "contracts offered, code:face_value:price_decimals, comma-separated",
		set: func(c *config, v string) (err error) {
			if v != "" {
				c.Contracts, err = parseContracts(v)
			}
			return err
		}},
	{flag: "frame-ancestors", env: "RISKCHART_FRAME_ANCESTORS", unset: "only the pages' own origin may embed them",
		usage: "origins allowed to embed the pages, space-separated, e.g. https://partner.example https://*.partner.example",
		set: func(c *config, v string) error {
			// Copied into the Content-Security-Policy: an entry such as
			// "https://a.com; script-src *" would widen it.
			if _, err := gateway.ParseFrameAncestors(v); err != nil {
				return err
			}
			c.FrameAncestors = v
			return nil
		}},
	{flag: "public-tiers", env: "RISKCHART_PUBLIC_TIERS", def: "false",
		usage: "serve the venue-wide tier ladders to every page and embed without a token or signed link (limits stay private)",
		set: func(c *config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.PublicTiers = b
			return nil
		}},
	{flag: "embed-key", env: "RISKCHART_EMBED_KEY", unset: "one made at start; links die with the process", secret: true,
		usage: "key (32+ characters) that signs embed links",
		set:   func(c *config, v string) error { c.EmbedKey = venue.Secret(v); return nil }},
	{flag: "embed-max-ttl", env: "RISKCHART_EMBED_MAX_TTL", def: "2160h", usage: "the longest an embed link may last, issued or accepted",
		set: func(c *config, v string) (err error) { c.EmbedMaxTTL, err = parseEmbedMaxTTL(v); return err }},
	{flag: "root", env: "RISKCHART_ROOT", def: ".", usage: "folder holding web/ and wasm_exec.js",
		set: func(c *config, v string) error { c.Root = v; return nil }},
	{flag: "log-level", env: "RISKCHART_LOG_LEVEL", def: "info", usage: "the least level logged: debug (a line per request and venue call), info, warn or error",
		set: func(c *config, v string) error {
			if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
				return errors.New("must be debug, info, warn or error")
			}
			return nil
		}},
	{flag: "public-url", env: "RISKCHART_PUBLIC_URL", unset: "pages carry no absolute links", usage: "the URL browsers reach the server at, e.g. https://charts.example.com",
		set: func(c *config, v string) (err error) {
			if v != "" {
				c.PublicURL, err = parsePublicURL(v)
			}
			return err
		}},
	{flag: "allowed-hosts", env: "RISKCHART_ALLOWED_HOSTS", unset: "RISKCHART_PUBLIC_URL's host and the loopback names",
		usage: "more host names browsers reach the server by, comma-separated, each with an optional port; * for any (not advised)",
		set:   func(c *config, v string) (err error) { c.AllowedHosts, err = gateway.ParseAllowedHosts(v); return err }},
	{flag: "trusted-proxies", env: "RISKCHART_TRUSTED_PROXIES", unset: "none: the client is the connection's peer",
		usage: "reverse proxies, as CIDR prefixes or addresses, comma-separated, whose forwarding header (RISKCHART_FORWARDED_HEADER) names the client",
		set:   func(c *config, v string) (err error) { c.TrustedProxies, err = clientaddr.ParsePrefixes(v); return err }},
	{flag: "forwarded-header", env: "RISKCHART_FORWARDED_HEADER", def: "X-Forwarded-For",
		usage: "the header the trusted proxies write the client into, X-Forwarded-For or Forwarded; the other is ignored",
		set:   func(c *config, v string) (err error) { c.ForwardedHeader, err = clientaddr.ParseHeader(v); return err }},
	{flag: "client-rate", env: "RISKCHART_CLIENT_RATE", def: "50", usage: "requests per second one client address may make to the venue paths, pages rendered included; 0: no limit",
		set: func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return errors.New("must be a number of requests per second, 0 for no limit")
			}
			c.ClientRate = rate.Limit(f)
			if f == 0 {
				c.ClientRate = rate.Inf
			}
			return nil
		}},
	{flag: "client-burst", env: "RISKCHART_CLIENT_BURST", def: "100", usage: "requests one client address may make at once, above its rate",
		set: func(c *config, v string) (err error) {
			c.ClientBurst, err = strconv.Atoi(v)
			if err != nil || c.ClientBurst < 1 {
				err = errors.New("must be a whole number of requests, 1 or more")
			}
			return err
		}},
	{flag: "refresh-interval", env: "RISKCHART_REFRESH_INTERVAL", def: "1s", usage: "how often the current candle of a series is refreshed",
		set: func(c *config, v string) (err error) {
			c.RefreshInterval, err = parsePositiveDuration(v, "1s")
			return err
		}},
	{flag: "stale-after", env: "RISKCHART_STALE_AFTER", def: "1s", usage: "how long a browser waits for a refresh before it gets the cached answer, marked stale",
		set: func(c *config, v string) (err error) { c.StaleAfter, err = parsePositiveDuration(v, "1s"); return err }},
	{flag: "shutdown-timeout", env: "RISKCHART_SHUTDOWN_TIMEOUT", def: "10s", usage: "how long in-flight requests get at shutdown",
		set: func(c *config, v string) (err error) {
			c.ShutdownTimeout, err = parsePositiveDuration(v, "10s")
			return err
		}},
	{flag: "read-timeout", env: "RISKCHART_READ_TIMEOUT", def: "10s", usage: "how long a client has to send a whole request, headers and body",
		set: func(c *config, v string) (err error) {
			c.ReadTimeout, err = parsePositiveDuration(v, "10s")
			return err
		}},
	{flag: "redis-url", env: "RISKCHART_REDIS_URL", unset: "this process alone: no state shared with other replicas",
		usage: "Redis (or Valkey) the replicas share the venue budget and the caches through, e.g. redis://redis:6379/0 or rediss://user:password@host:6380/0",
		mask:  maskURL,
		set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			// First, as for RISKCHART_VENUE_URL: a bare '/', '?' or '#' in the
			// password usually leaves url.Parse a host part it cannot read.
			if strayUserinfo(v) {
				return errors.New(strayUserinfoRule) // not repeated
			}
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
				return errors.New("must be a redis:// or rediss:// URL naming a host, e.g. redis://redis:6379/0") // v may hold a password: not repeated
			}
			// go-redis dials localhost for a host that is a port alone, and a
			// port it cannot dial leaves the replicas degraded for good.
			if err := checkURLHostPort(u); err != nil {
				return err
			}
			// What go-redis refuses too (a database that is no number, an
			// option it does not know), here, where the error names the
			// setting as it was given. Its errors name the part: a password
			// it would read as the path, and repeat, strayUserinfo refused.
			if _, err := redis.ParseURL(v); err != nil {
				return fmt.Errorf("must be a Redis URL go-redis reads: %s", strings.TrimPrefix(err.Error(), "redis: "))
			}
			c.RedisURL = v
			return nil
		}},
	{flag: "replicas", env: "RISKCHART_REPLICAS", def: "2",
		usage: "replicas sharing RISKCHART_REDIS_URL, at least as many as run: each spends this part of the venue budget alone while Redis is out of reach",
		set: func(c *config, v string) (err error) {
			c.Replicas, err = strconv.Atoi(v)
			if l := venueapi.PrivateLimit(); err != nil || c.Replicas < 1 || c.Replicas > l.Requests {
				err = fmt.Errorf("must be a whole number from 1 to %d, so that each replica has a share of the venue's %d private calls per %s",
					l.Requests, l.Requests, l.Per)
			}
			return err
		}},
	{flag: "egress", env: "RISKCHART_EGRESS", def: "default",
		usage: "names the venue's public budget (800 calls/s per client address) in Redis: replicas leaving through one address share one name",
		set: func(c *config, v string) error {
			if !validEgress(v) {
				return errors.New("must be 1 to 32 letters, digits, '.', '_' or '-'")
			}
			c.Egress = v
			return nil
		}},
	{flag: "max-conns-per-client", env: "RISKCHART_MAX_CONNS_PER_CLIENT", def: "64", usage: "connections one client address (an IPv6 /64) may hold open; 0: no bound",
		set: func(c *config, v string) (err error) {
			c.MaxConnsPerIP, err = strconv.Atoi(v)
			if err != nil || c.MaxConnsPerIP < 0 {
				err = errors.New("must be a whole number, 0 for no bound")
			}
			return err
		}},
	{flag: "max-streams", env: "RISKCHART_MAX_STREAMS", def: "20000", usage: "candle streams (live charts) open at once; past it, a new one is refused with 429",
		set: func(c *config, v string) (err error) { c.MaxStreams, err = parseStreamCap(v); return err }},
	{flag: "max-streams-per-client", env: "RISKCHART_MAX_STREAMS_PER_CLIENT", def: "32", usage: "candle streams one client address (an IPv6 /64) may hold open; past it, 429",
		set: func(c *config, v string) (err error) { c.ClientStreams, err = parseStreamCap(v); return err }},
}

// parseConfig reads flags from args and, for every flag not given, its
// environment variable through getenv. Errors name the flag or the variable
// the bad value came from.
func parseConfig(name string, args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	return parseSettings(name, settings, args, getenv, stderr)
}

// sandboxSettings are the settings `riskchart sandbox` reads: the sandbox's
// own, with the defaults of a venue other clients are told of. The server's
// others would be ignored, so they are no flags of it.
func sandboxSettings() []setting {
	list := settingsOf("RISKCHART_SANDBOX_ADDR", "RISKCHART_SANDBOX_KEYS", "RISKCHART_SANDBOX_SEED", "RISKCHART_LOG_LEVEL")
	for i := range list {
		switch list[i].env {
		case "RISKCHART_SANDBOX_ADDR":
			list[i].def, list[i].usage = "127.0.0.1:9000", "address the sandbox venue listens on"
		case "RISKCHART_SANDBOX_KEYS":
			list[i].unset = "none: required, so that clients can sign"
		}
	}
	return list
}

// embedLinkSettings are the server's settings `riskchart embed-link` reads:
// the key links are signed with, and the longest they may last.
func embedLinkSettings() []setting {
	return settingsOf("RISKCHART_EMBED_KEY", "RISKCHART_EMBED_MAX_TTL")
}

// settingsOf is a copy of the settings of the variables envs, in settings'
// order.
func settingsOf(envs ...string) []setting {
	var out []setting
	for _, s := range settings {
		if slices.Contains(envs, s.env) {
			out = append(out, s)
		}
	}
	return out
}

// parseSettings is parseConfig for the settings in list alone.
func parseSettings(name string, list []setting, args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	text := make([]*string, len(list))
	for i, s := range list {
		usage := s.usage + " (" + s.env + ")"
		if s.unset != "" {
			usage += "; unset: " + s.unset
		}
		text[i] = fs.String(s.flag, s.def, usage)
	}
	var c config
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := noStrayArgument(fs); err != nil {
		return c, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	c.from = map[string]string{}
	var errs []error
	for i, s := range list {
		v, from := *text[i], "-"+s.flag
		if !given[s.flag] {
			if e := getenv(s.env); e != "" {
				v, from = e, s.env
			}
		}
		if from == s.env || given[s.flag] {
			c.from[s.env] = from
		}
		if err := s.set(&c, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", from, err))
		}
		c.summary = append(c.summary, summaryRow(s.env, s.show(v)))
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	if c.SecretKeyFile != "" {
		if c.SecretKey != "" {
			return c, fmt.Errorf("%s and %s: give one, not both", c.name("RISKCHART_SECRET_KEY"), c.name("RISKCHART_SECRET_KEY_FILE"))
		}
		b, err := os.ReadFile(c.SecretKeyFile)
		if err != nil {
			return c, fmt.Errorf("%s: reading the secret key: %w", c.name("RISKCHART_SECRET_KEY_FILE"), err)
		}
		// An empty file (a secret not mounted yet) is no key: read as none,
		// it would be refused below as an access key given alone, or start a
		// real venue without its private data.
		if c.SecretKey = venue.Secret(strings.TrimSpace(string(b))); c.SecretKey == "" {
			return c, fmt.Errorf("%s: %s holds no secret key", c.name("RISKCHART_SECRET_KEY_FILE"), c.SecretKeyFile)
		}
	}
	// With the sandbox too: a key given alone would be replaced by the
	// sandbox's own, or refused by the venue client without naming either.
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return c, fmt.Errorf("%s and %s: give both or neither", c.name("RISKCHART_ACCESS_KEY"), c.secretKeyName())
	}
	return c, nil
}

// secretKeyName names the secret key as it was given: its file's setting
// when it came from one.
func (c config) secretKeyName() string {
	if c.SecretKeyFile != "" {
		return c.name("RISKCHART_SECRET_KEY_FILE")
	}
	return c.name("RISKCHART_SECRET_KEY")
}

// noStrayArgument refuses a word left after the flags. Flag parsing stops at
// the first word that is not a flag, and would drop it and every flag after
// it: "-frame-ancestors https://a.example https://b.example -addr :9999"
// would start on the default address with one origin.
func noStrayArgument(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: a list of several values is one argument, quoted", fs.Arg(0))
	}
	return nil
}

// show is v as the summary prints it: masked if secret, and saying what it
// means if empty.
func (s setting) show(v string) string {
	switch {
	case v == "":
		return "(unset: " + s.unset + ")"
	case s.mask != nil:
		return s.mask(v)
	case s.secret:
		return venue.Secret(v).String()
	}
	return v
}

// maskURL is a URL with its password masked; an unreadable one is masked whole.
func maskURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || strayUserinfo(v) {
		return venue.Secret(v).String()
	}
	return u.Redacted()
}

// strayUserinfoRule is the error of a URL that strayUserinfo refuses.
const strayUserinfoRule = "must have its password percent-encoded: a '/', '?' or '#' in it ends the host part, and the rest would be read as the path"

// strayUserinfo reports whether a URL has an '@' past its host part: a
// password holding '/', '?' or '#' not percent-encoded, which url.Parse
// reads as the path, query or fragment, and no redaction masks.
func strayUserinfo(v string) bool {
	_, rest, _ := strings.Cut(v, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return strings.Contains(rest[i:], "@")
	}
	return false
}

// checkListenAddr checks an address to listen on: host:port, the port a
// number from 0 (any free port) to 65535. net.Listen takes "" as every
// interface, and refuses a port out of range only once the server starts.
func checkListenAddr(v string) error {
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("must be host:port, e.g. 127.0.0.1:8080: %w", err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("must be host:port with a port from 0 (any free port) to 65535, not %q", port)
	}
	return nil
}

// checkURLHostPort checks that a URL names a host, not only a port (the
// clients would dial localhost), and that a port given is a number from 1
// to 65535, which url.Parse does not check. Its errors never repeat the
// URL, which may hold a password.
func checkURLHostPort(u *url.URL) error {
	if u.Hostname() == "" {
		return errors.New("must name a host before its port, e.g. https://host.example:8443")
	}
	if _, port, err := net.SplitHostPort(u.Host); err == nil {
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return errors.New("must have a port from 1 to 65535, or none")
		}
	}
	return nil
}

// parsePositiveDuration reads a duration that must be longer than zero;
// example is one, for the error.
func parsePositiveDuration(v, example string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("must be a positive duration, e.g. %s", example)
	}
	return d, nil
}

// validEgress reports whether v can name the public budget: it becomes part
// of a Redis key.
func validEgress(v string) bool {
	if v == "" || len(v) > 32 {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// checkVenueURL checks RISKCHART_VENUE_URL as the venue client reads it
// (venue.ParseBaseURL), and first that a password in it is percent-encoded.
// A user and password in it are sent to the venue, so no error repeats v.
func checkVenueURL(v string) error {
	if strayUserinfo(v) {
		return errors.New(strayUserinfoRule)
	}
	u, err := venue.ParseBaseURL(v)
	if err != nil {
		return err
	}
	return checkURLHostPort(u)
}

// parsePublicURL reads RISKCHART_PUBLIC_URL: an absolute http or https URL
// with a host and nothing after the path.
func parsePublicURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return nil, fmt.Errorf("must be an absolute URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("must start with http:// or https://")
	case u.Host == "":
		return nil, errors.New("must name a host, e.g. https://charts.example.com")
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "": // "https://host/?" keeps its '?' when printed
		return nil, errors.New("must have no user, query or fragment")
	}
	if err := checkURLHostPort(u); err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// parseStreamCap reads a cap on open streams: 0 would refuse every chart
// its live updates, so there is no "no bound".
func parseStreamCap(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, errors.New("must be a whole number of streams, 1 or more")
	}
	return n, nil
}

// minEmbedTTL is the shortest an embed link may last: a link keeps its
// expiry to the second, rounded down, so a shorter one may have expired
// when it is handed out.
const minEmbedTTL = time.Second

// parseEmbedMaxTTL reads RISKCHART_EMBED_MAX_TTL, which the server and the
// embed-link command both read.
func parseEmbedMaxTTL(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < minEmbedTTL {
		return 0, fmt.Errorf("must be a duration of %s or more, e.g. 2160h for 90 days: a link keeps its expiry to the second", minEmbedTTL)
	}
	return d, nil
}

// loopbackOnly reports whether addr listens on loopback alone.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// summaryRow is one setting's line of the summary.
func summaryRow(env, shown string) string { return fmt.Sprintf("  %-32s %s", env, shown) }

// showInSummary replaces env's line of the summary, for a setting whose
// meaning is known only once the server runs (the port a :0 address got).
func (c *config) showInSummary(env, shown string) {
	for i, line := range c.summary {
		if f := strings.Fields(line); len(f) > 0 && f[0] == env {
			c.summary[i] = summaryRow(env, shown)
		}
	}
}

// print writes the configuration, secrets masked.
func (c config) print(w io.Writer) {
	fmt.Fprintln(w, "configuration:")
	for _, line := range c.summary {
		fmt.Fprintln(w, line)
	}
}
