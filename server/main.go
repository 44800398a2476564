// Command riskchart serves Riskchart: the front end, and the venue's three
// paths for browsers (validated, cached, budgeted, and signed with the
// server's own key). Without RISKCHART_VENUE_URL it starts an embedded
// sandbox venue and uses it over loopback HTTP, exactly as a real venue.
//
//	riskchart            serve (see -h for flags; each has a RISKCHART_* variable)
//	riskchart sandbox    run the sandbox venue alone, for other clients
//	riskchart embed-link -contracts BTC-USDT -panels tiers,limits -ttl 24h
//	                     print a signed embed link (needs RISKCHART_EMBED_KEY)
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/riskchart/riskchart/server/internal/bundle"
	"github.com/riskchart/riskchart/server/internal/cmdline"
	"github.com/riskchart/riskchart/server/internal/connlimit"
	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		// The first signal starts the shutdown; from then on a second one
		// ends the process the default way, without waiting out the grace
		// period. The signals are let go before the shutdown starts, never
		// after it: a second signal sent once "shutting down" is logged
		// must not land in a channel no one reads.
		signal.Stop(signals)
		cancel()
	}()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "riskchart:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only hands it the process's environment, so
// tests start the real server in-process. Asked for its usage (-h), it
// prints it and returns nil: help is not a failure.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var err error
	switch {
	case len(args) > 1 && args[1] == "sandbox":
		err = runSandbox(ctx, args[2:], getenv, stdout, stderr)
	case len(args) > 1 && args[1] == "embed-link":
		if err = runEmbedLink(args[2:], getenv, stdout, stderr); err != nil {
			err = fmt.Errorf("embed-link: %w", err)
		}
	default:
		err = runService(ctx, args[1:], getenv, stdout, stderr)
	}
	return cmdline.Result(err)
}

// runService runs the server, and the sandbox venue it needs, until ctx ends.
func runService(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("riskchart", args, getenv, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))

	venueCfg := venue.Config{BaseURL: cfg.VenueURL, AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey, Logger: log}
	contracts := cfg.Contracts
	if cfg.VenueURL == "" {
		// The sandbox outlives the shutdown's drain: a request in flight
		// may still call it (stopped when run returns).
		sbCtx, stopSandbox := context.WithCancel(context.WithoutCancel(ctx))
		sb, url, key, stopped, err := startSandbox(sbCtx, cfg, log)
		if err != nil {
			stopSandbox()
			return err
		}
		defer func() { stopSandbox(); <-stopped }()
		venueCfg.BaseURL = url
		cfg.showInSummary("RISKCHART_SANDBOX_ADDR", strings.TrimPrefix(url, "http://")+" (the embedded sandbox venue, from "+cfg.SandboxAddr+")")
		if cfg.AccessKey == "" {
			venueCfg.AccessKey, venueCfg.SecretKey = key.Access, venue.Secret(key.Secret)
		}
		if contracts == nil {
			contracts = contractsOf(sb.Markets())
		}
	} else {
		cfg.showInSummary("RISKCHART_SANDBOX_ADDR", "(not used: RISKCHART_VENUE_URL is set)")
		if contracts == nil {
			contracts = defaultContracts()
		}
	}
	cfg.print(stdout)
	var rep *replica // nil: this process alone
	var shared *gateway.SharedState
	if cfg.RedisURL != "" {
		// go-redis logs through a global, which the process's one run points
		// at its own log, at RISKCHART_LOG_LEVEL.
		redis.SetLogger(redisLog{log.With("component", "redis")})
		if rep, err = joinReplicas(cfg, venueCfg.AccessKey, log); err != nil {
			return err
		}
		defer rep.close()
		venueCfg.PrivateBudget, venueCfg.PublicBudget, shared = rep.private, rep.public, rep.shared
	}
	client, err := venue.New(venueCfg)
	if err != nil {
		return fmt.Errorf("configuring the venue client: %w", err)
	}
	// Once the requests are over: nothing run started keeps a connection.
	defer client.CloseIdleConnections()
	links, err := embedSigner(cfg)
	if err != nil {
		return err
	}
	registry := prometheus.NewRegistry()
	build, err := serverBuild()
	if err != nil {
		return err
	}
	front, err := bundle.New(bundle.Config{Root: cfg.Root, ShellSalt: cfg.FrameAncestors + "\x00" + build, PublicURL: cfg.PublicURL, Registry: registry})
	if errors.Is(err, fs.ErrNotExist) {
		// The setting that fixes it, not only the file missing: a service
		// started from another working directory reads the default ".".
		return fmt.Errorf("%s %s: must be the folder holding web/ and wasm_exec.js: %w", cfg.name("RISKCHART_ROOT"), cfg.Root, err)
	}
	if err != nil {
		return err
	}
	var demo *embedlink.Signer // the embed demo's own link: sandbox only (front.go)
	if demoLinks(cfg) {
		demo = links
	}
	front = withFrontExtras(front, cfg.Root, demo, cfg.EmbedMaxTTL)
	streams := gateway.NewStreams() // closed by serve at shutdown: http.Server.Shutdown does not end them
	// Closed by serve once the requests are over, before the Redis client
	// and the sandbox close (deferred above): the venue calls a request
	// detached for its sharers would otherwise spend them after run returned.
	detached := gateway.NewDetached()
	handler, err := gateway.New(gateway.Config{
		Venue:           client,
		App:             front,
		Contracts:       contracts,
		Public:          !loopbackOnly(cfg.Addr),
		ViewerTokens:    splitSecrets(cfg.ViewerTokens),
		NoMetrics:       cfg.MetricsAddr != "",
		FrameAncestors:  strings.Fields(cfg.FrameAncestors),
		ScriptSources:   bundle.ScriptSources(),
		PublicTiers:     cfg.PublicTiers,
		EmbedLinks:      links,
		PublicURL:       cfg.PublicURL,
		AllowedHosts:    cfg.AllowedHosts,
		TrustedProxies:  cfg.TrustedProxies,
		ForwardedHeader: cfg.ForwardedHeader,
		ClientRate:      cfg.ClientRate,
		ClientBurst:     cfg.ClientBurst,
		Registry:        registry,
		RefreshInterval: cfg.RefreshInterval,
		StaleAfter:      cfg.StaleAfter,
		MaxStreams:      cfg.MaxStreams,
		ClientStreams:   cfg.ClientStreams,
		Streams:         streams,
		Detached:        detached,
		Shared:          shared,
		Logger:          log,
	})
	if errors.Is(err, gateway.ErrNoViewerTokens) {
		return fmt.Errorf("%s %s is not loopback-only: set %s: %w", cfg.name("RISKCHART_ADDR"), cfg.Addr, cfg.name("RISKCHART_VIEWER_TOKENS"), err)
	}
	if errors.Is(err, gateway.ErrNoHostNames) {
		return fmt.Errorf("%s %s is not loopback-only: set %s to the URL browsers use, "+
			"or %s to the host names they reach the server by (* for any, which lets pages "+
			"that rebind their name to this server read it): %w",
			cfg.name("RISKCHART_ADDR"), cfg.Addr, cfg.name("RISKCHART_PUBLIC_URL"), cfg.name("RISKCHART_ALLOWED_HOSTS"), err)
	}
	if err != nil {
		return err
	}
	if rep != nil {
		rep.start(ctx, log)
	}
	if cfg.MetricsAddr != "" {
		addr, stop, err := serveMetrics(ctx, cfg.MetricsAddr, registry, log)
		if err != nil {
			return fmt.Errorf("%s %s: %w", cfg.name("RISKCHART_METRICS_ADDR"), cfg.MetricsAddr, err)
		}
		defer stop()
		fmt.Fprintf(stdout, "Metrics are served on http://%s/metrics\n", addr)
	}
	tcp, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s %s: %w", cfg.name("RISKCHART_ADDR"), cfg.Addr, err)
	}
	// The log's summary runs while the server serves, and has stopped when
	// run returns (docs/deploy.md#logs).
	summaryCtx, stopSummary := context.WithCancel(ctx)
	summaryDone := make(chan struct{})
	go func() {
		defer close(summaryDone)
		gateway.NewLogSummary(registry, log).Run(summaryCtx, logSummaryEvery)
	}()
	defer func() { stopSummary(); <-summaryDone }()
	ln := connlimit.New(tcp, cfg.MaxConnsPerIP, cfg.TrustedProxies...) // a proxy carries every browser's connections
	registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_connections_open", Help: "Connections open to browsers and clients."},
			func() float64 { return float64(ln.Open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "riskchart_connections_refused_total",
			Help: "Connections closed on arrival: their client held RISKCHART_MAX_CONNS_PER_CLIENT already."},
			func() float64 { return float64(ln.Refused()) }),
	)
	fmt.Fprintf(stdout, "Riskchart is serving on http://%s/\n", ln.Addr())
	return serve(ctx, ln, handler, streams, detached, cfg, log)
}

// serve answers on ln until ctx ends, then lets in-flight requests finish
// within cfg.ShutdownTimeout, and closes the connections of those that do
// not. A client has cfg.ReadTimeout to send a whole request, so one that stops
// sending ties a connection up, and shutdown, for no longer than that
// (docs/decisions.md#slow-clients). The gateway's detached work ends last,
// within the same grace period.
func serve(ctx context.Context, ln net.Listener, h http.Handler, streams *gateway.Streams, detached *gateway.Detached, cfg config, log *slog.Logger) error {
	grace := cfg.ShutdownTimeout
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(5*time.Second, cfg.ReadTimeout),
		// From a request's first byte to its body's last; net/http lifts it
		// once the request is read, so a slow answer is not cut.
		ReadTimeout: cfg.ReadTimeout,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// A listener that fails stops Serve but not the requests it took, the
	// streams or the detached work: they end as at a shutdown, before serve
	// returns and runService closes what they spend.
	var serveErr error
	select {
	case err := <-errc:
		serveErr = fmt.Errorf("serving on %s: %w", ln.Addr(), err)
		errc <- http.ErrServerClosed // Serve's return, read again below
		log.Info("shutting down", "grace", grace.String(), "because", "the listener failed")
	case <-ctx.Done():
		log.Info("shutting down", "grace", grace.String())
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// The gateway's detached work ends last, once Shutdown has returned and
	// the streams' pumps have stopped: until then, a request may be waiting
	// for it. It ends before serve returns, so before runService closes the
	// Redis client and stops the sandbox, which it would otherwise spend.
	defer func() {
		if err := detached.Close(sctx); err != nil {
			log.Warn("detached venue calls still running", "err", err)
		}
	}()
	// The streams end, each with a retry hint, while the listener closes and
	// the requests in flight finish: a stream whose browser stopped reading
	// may hold its write until the grace period ends, and must not keep the
	// listener taking requests meanwhile, nor take the grace period from the
	// requests in flight (docs/deploy.md#behind-a-reverse-proxy).
	streamsClosed := make(chan error, 1)
	go func() { streamsClosed <- streams.Close(sctx) }()
	shutErr := srv.Shutdown(sctx)
	if err := <-streamsClosed; err != nil {
		log.Warn("candle streams still open", "err", err)
	}
	if err := shutErr; err != nil {
		// Requests still running past the grace period: their connections
		// are closed, which ends their contexts, so that a process that does
		// not exit (a test, an embedder) keeps no connection and no handler
		// that watches its context.
		srv.Close()
		<-errc
		return errors.Join(serveErr, fmt.Errorf("shutting down: requests still running after the grace period of %s, their connections closed: %w", grace, err))
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return serveErr
}

// startSandbox starts the embedded sandbox venue on its own loopback port,
// serving until ctx ends, and returns its base URL, the key the server signs
// with, and a channel closed once it has stopped.
func startSandbox(ctx context.Context, cfg config, log *slog.Logger) (*sandbox.Sandbox, string, sandbox.Key, <-chan struct{}, error) {
	keys, err := sandboxKeys(cfg)
	if err != nil {
		return nil, "", sandbox.Key{}, nil, err
	}
	// A key pair given must be one the sandbox accepts: it refuses any other
	// on every signed call, which would leave the private panels with no
	// access and nothing said here.
	if cfg.AccessKey != "" && !slices.ContainsFunc(keys, func(k sandbox.Key) bool {
		return k.Access == cfg.AccessKey && venue.Secret(k.Secret) == cfg.SecretKey
	}) {
		return nil, "", sandbox.Key{}, nil, fmt.Errorf("%s and %s: with the embedded sandbox venue (%s unset), must be one of the access:secret pairs of %s, which it accepts",
			cfg.name("RISKCHART_ACCESS_KEY"), cfg.secretKeyName(), cfg.name("RISKCHART_VENUE_URL"), cfg.name("RISKCHART_SANDBOX_KEYS"))
	}
	sb, err := sandbox.New(sandbox.Config{Keys: keys, Seed: cfg.SandboxSeed, Logger: log.With("component", "sandbox")})
	if err != nil {
		return nil, "", sandbox.Key{}, nil, fmt.Errorf("starting the sandbox venue: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.SandboxAddr)
	if err != nil {
		return nil, "", sandbox.Key{}, nil, fmt.Errorf("listening on %s %s: %w", cfg.name("RISKCHART_SANDBOX_ADDR"), cfg.SandboxAddr, err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if err := sb.Serve(ctx, ln); err != nil {
			log.Error("sandbox venue stopped", "err", err)
		}
	}()
	return sb, "http://" + ln.Addr().String(), keys[0], stopped, nil
}

// sandboxKeys parses RISKCHART_SANDBOX_KEYS, or generates one key.
func sandboxKeys(cfg config) ([]sandbox.Key, error) {
	if cfg.SandboxKeys == "" {
		k, err := sandbox.GenerateKey()
		if err != nil {
			return nil, fmt.Errorf("generating a sandbox key: %w", err)
		}
		return []sandbox.Key{k}, nil
	}
	keys, err := sandbox.ParseKeys(string(cfg.SandboxKeys))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.name("RISKCHART_SANDBOX_KEYS"), err)
	}
	return keys, nil
}

// runSandbox runs the sandbox venue alone, so that other clients can be
// tried against it. It needs RISKCHART_SANDBOX_KEYS: a generated secret
// could not be told to anyone without printing it.
func runSandbox(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseSettings("riskchart sandbox", sandboxSettings(), args, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.SandboxKeys == "" {
		return fmt.Errorf("riskchart sandbox: set %s (access:secret pairs, comma-separated) so that clients can sign", cfg.name("RISKCHART_SANDBOX_KEYS"))
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	keys, err := sandboxKeys(cfg)
	if err != nil {
		return err
	}
	sb, err := sandbox.New(sandbox.Config{Keys: keys, Seed: cfg.SandboxSeed, Logger: log})
	if err != nil {
		return fmt.Errorf("starting the sandbox venue: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.SandboxAddr)
	if err != nil {
		return fmt.Errorf("listening on %s %s: %w", cfg.name("RISKCHART_SANDBOX_ADDR"), cfg.SandboxAddr, err)
	}
	fmt.Fprintf(stdout, "Sandbox venue is serving on http://%s/ with %d key(s)\n", ln.Addr(), len(keys))
	return sb.Serve(ctx, ln)
}

func splitSecrets(s venue.Secret) []venue.Secret {
	var out []venue.Secret
	for _, t := range strings.Split(string(s), ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, venue.Secret(t))
		}
	}
	return out
}

// embedSigner signs embed links with RISKCHART_EMBED_KEY, or with a key made
// now (links then die with the process), for at most RISKCHART_EMBED_MAX_TTL ahead.
func embedSigner(cfg config) (*embedlink.Signer, error) {
	key, maxTTL := cfg.EmbedKey, cfg.EmbedMaxTTL
	if key == "" {
		b := make([]byte, embedlink.MinKeyLen)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("making an embed key: %w", err)
		}
		return embedlink.New(embedlink.Config{Key: b, MaxTTL: maxTTL})
	}
	s, err := embedlink.New(embedlink.Config{Key: []byte(key), MaxTTL: maxTTL})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.name("RISKCHART_EMBED_KEY"), err)
	}
	return s, nil
}

// runEmbedLink prints a signed embed link for the operator to hand out; run
// names the command in its errors.
func runEmbedLink(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("riskchart embed-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	contracts := fs.String("contracts", "", "contract codes the link grants, comma-separated")
	panels := fs.String("panels", "tiers,limits", "panels the link grants: tiers, limits")
	ttl := fs.Duration("ttl", 24*time.Hour, "how long the link lasts, 1s or more")
	maxTTL := fs.String("embed-max-ttl", "", "the server's -embed-max-ttl, for a server given it as a flag (default RISKCHART_EMBED_MAX_TTL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := noStrayArgument(fs); err != nil {
		return err
	}
	// The server's own settings, read as the server reads them: the key, and
	// the longest lifetime it accepts.
	var server []string
	maxFrom := "RISKCHART_EMBED_MAX_TTL"
	if *maxTTL != "" {
		server, maxFrom = []string{"-embed-max-ttl", *maxTTL}, "-embed-max-ttl"
	}
	cfg, err := parseSettings("riskchart embed-link", embedLinkSettings(), server, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.EmbedKey == "" {
		return errors.New("set RISKCHART_EMBED_KEY to the key the server signs with")
	}
	if *ttl < minEmbedTTL {
		return fmt.Errorf("-ttl %s: must be %s or more: a link keeps its expiry to the second", *ttl, minEmbedTTL)
	}
	if *ttl > cfg.EmbedMaxTTL {
		return fmt.Errorf("-ttl %s is longer than the server accepts, %s %s", *ttl, maxFrom, cfg.EmbedMaxTTL)
	}
	s, err := embedSigner(cfg)
	if err != nil {
		return err
	}
	tok, err := s.Issue(embedlink.Scope{Contracts: splitList(*contracts), Panels: splitList(*panels), Expires: time.Now().Add(*ttl)})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
