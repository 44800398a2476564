package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
)

// config is everything the server reads from its environment: flags, and
// the RISKCHART_* variables for the flags not given. It is printed at start
// with every secret masked.
type config struct {
	Addr            string       // RISKCHART_ADDR: where browsers connect
	VenueURL        string       // RISKCHART_VENUE_URL: the real venue; empty starts the embedded sandbox
	AccessKey       string       // RISKCHART_ACCESS_KEY
	SecretKey       venue.Secret // RISKCHART_SECRET_KEY, or the content of RISKCHART_SECRET_KEY_FILE
	SecretKeyFile   string       // RISKCHART_SECRET_KEY_FILE
	SandboxAddr     string       // RISKCHART_SANDBOX_ADDR: where the sandbox listens
	SandboxKeys     venue.Secret // RISKCHART_SANDBOX_KEYS: access:secret pairs the sandbox accepts
	ViewerTokens    venue.Secret // RISKCHART_VIEWER_TOKENS: comma-separated tokens for private paths off loopback
	Contracts       string       // RISKCHART_CONTRACTS: code:face_value:price_decimals, comma-separated
	FrameAncestors  string       // RISKCHART_FRAME_ANCESTORS: origins allowed to embed the pages
	EmbedKey        venue.Secret // RISKCHART_EMBED_KEY: signs embed links; unset: a key made at start
	Root            string       // RISKCHART_ROOT: the folder holding web/ and wasm_exec.js
	RefreshInterval time.Duration
	ShutdownTimeout time.Duration
}

// envNames maps each flag to its environment variable.
var envNames = map[string]string{
	"addr":             "RISKCHART_ADDR",
	"venue-url":        "RISKCHART_VENUE_URL",
	"access-key":       "RISKCHART_ACCESS_KEY",
	"secret-key":       "RISKCHART_SECRET_KEY",
	"secret-key-file":  "RISKCHART_SECRET_KEY_FILE",
	"sandbox-addr":     "RISKCHART_SANDBOX_ADDR",
	"sandbox-keys":     "RISKCHART_SANDBOX_KEYS",
	"viewer-tokens":    "RISKCHART_VIEWER_TOKENS",
	"contracts":        "RISKCHART_CONTRACTS",
	"frame-ancestors":  "RISKCHART_FRAME_ANCESTORS",
	"embed-key":        "RISKCHART_EMBED_KEY",
	"root":             "RISKCHART_ROOT",
	"refresh-interval": "RISKCHART_REFRESH_INTERVAL",
	"shutdown-timeout": "RISKCHART_SHUTDOWN_TIMEOUT",
}

// parseConfig reads flags from args and, for every flag not given, its
// environment variable through getenv.
func parseConfig(name string, args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var secretKey, sandboxKeys, viewerTokens, embedKey string
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "address browsers connect to")
	fs.StringVar(&c.VenueURL, "venue-url", "", "base URL of the venue; empty starts the embedded sandbox venue")
	fs.StringVar(&c.AccessKey, "access-key", "", "access key of the venue account")
	fs.StringVar(&secretKey, "secret-key", "", "secret key of the venue account (prefer -secret-key-file)")
	fs.StringVar(&c.SecretKeyFile, "secret-key-file", "", "file holding the secret key")
	fs.StringVar(&c.SandboxAddr, "sandbox-addr", "127.0.0.1:0", "address of the embedded sandbox venue")
	fs.StringVar(&sandboxKeys, "sandbox-keys", "", "access:secret pairs the sandbox accepts, comma-separated; empty generates one")
	fs.StringVar(&viewerTokens, "viewer-tokens", "", "tokens that grant browsers the private paths, comma-separated")
	fs.StringVar(&c.Contracts, "contracts", "", "contracts offered, code:face_value:price_decimals, comma-separated")
	fs.StringVar(&c.FrameAncestors, "frame-ancestors", "", "origins allowed to embed the pages, space-separated")
	fs.StringVar(&embedKey, "embed-key", "", "key (32+ characters) that signs embed links; empty: one made at start")
	fs.StringVar(&c.Root, "root", ".", "folder holding web/ and wasm_exec.js")
	fs.DurationVar(&c.RefreshInterval, "refresh-interval", time.Second, "how often the current candle of a series is refreshed")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "how long in-flight requests get at shutdown")
	given := map[string]bool{}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		env := envNames[f.Name]
		if given[f.Name] || env == "" || getenv(env) == "" {
			return
		}
		if err := f.Value.Set(getenv(env)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", env, err))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	c.SecretKey, c.SandboxKeys, c.ViewerTokens = venue.Secret(secretKey), venue.Secret(sandboxKeys), venue.Secret(viewerTokens)
	c.EmbedKey = venue.Secret(embedKey)
	if c.SecretKeyFile != "" {
		if c.SecretKey != "" {
			return c, errors.New("RISKCHART_SECRET_KEY and RISKCHART_SECRET_KEY_FILE: give one, not both")
		}
		b, err := os.ReadFile(c.SecretKeyFile)
		if err != nil {
			return c, fmt.Errorf("RISKCHART_SECRET_KEY_FILE: reading the secret key: %w", err)
		}
		c.SecretKey = venue.Secret(strings.TrimSpace(string(b)))
	}
	if c.VenueURL != "" && (c.AccessKey == "") != (c.SecretKey == "") {
		return c, errors.New("RISKCHART_ACCESS_KEY and RISKCHART_SECRET_KEY: give both or neither")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return c, fmt.Errorf("RISKCHART_ADDR: must be host:port: %w", err)
	}
	return c, nil
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

// print writes the configuration, secrets masked.
func (c config) print(w io.Writer) {
	venueURL := c.VenueURL
	if venueURL == "" {
		venueURL = "(embedded sandbox on " + c.SandboxAddr + ")"
	}
	rows := [][2]string{
		{"RISKCHART_ADDR", c.Addr},
		{"RISKCHART_VENUE_URL", venueURL},
		{"RISKCHART_ACCESS_KEY", c.AccessKey},
		{"RISKCHART_SECRET_KEY", c.SecretKey.String()},
		{"RISKCHART_SECRET_KEY_FILE", c.SecretKeyFile},
		{"RISKCHART_SANDBOX_KEYS", c.SandboxKeys.String()},
		{"RISKCHART_VIEWER_TOKENS", c.ViewerTokens.String()},
		{"RISKCHART_CONTRACTS", c.Contracts},
		{"RISKCHART_FRAME_ANCESTORS", c.FrameAncestors},
		{"RISKCHART_EMBED_KEY", c.EmbedKey.String()},
		{"RISKCHART_ROOT", c.Root},
		{"RISKCHART_REFRESH_INTERVAL", c.RefreshInterval.String()},
	}
	fmt.Fprintln(w, "configuration:")
	for _, r := range rows {
		v := r[1]
		if v == "" {
			v = "(unset)"
		}
		fmt.Fprintf(w, "  %-27s %s\n", r[0], v)
	}
}
