package main

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
)

func TestParseConfig(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("from-file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, c config)
		wantErr string
	}{
		{
			name: "defaults serve loopback port 8080 on the embedded sandbox",
			check: func(t *testing.T, c config) {
				if c.Addr != "127.0.0.1:8080" || c.VenueURL != "" || c.SandboxAddr != "127.0.0.1:0" {
					t.Errorf("got addr %q venue %q sandbox %q", c.Addr, c.VenueURL, c.SandboxAddr)
				}
			},
		},
		{
			name: "environment variables fill the flags not given",
			env:  map[string]string{"RISKCHART_ADDR": "127.0.0.1:9999", "RISKCHART_SANDBOX_KEYS": "a:b"},
			check: func(t *testing.T, c config) {
				if c.Addr != "127.0.0.1:9999" || c.SandboxKeys != "a:b" {
					t.Errorf("got addr %q sandbox keys %q", c.Addr, c.SandboxKeys)
				}
			},
		},
		{
			name: "a flag wins over its environment variable",
			args: []string{"-addr", "127.0.0.1:7000"},
			env:  map[string]string{"RISKCHART_ADDR": "127.0.0.1:9999"},
			check: func(t *testing.T, c config) {
				if c.Addr != "127.0.0.1:7000" {
					t.Errorf("got addr %q", c.Addr)
				}
			},
		},
		{
			name: "the secret key file is read and trimmed",
			env:  map[string]string{"RISKCHART_VENUE_URL": "https://venue.example", "RISKCHART_ACCESS_KEY": "ak", "RISKCHART_SECRET_KEY_FILE": secretFile},
			check: func(t *testing.T, c config) {
				if c.SecretKey != "from-file-secret" {
					t.Errorf("secret key not read from the file")
				}
			},
		},
		{
			name:    "a secret key and a secret key file together are refused",
			env:     map[string]string{"RISKCHART_SECRET_KEY": "x", "RISKCHART_SECRET_KEY_FILE": secretFile},
			wantErr: "give one, not both",
		},
		{
			name:    "an access key without a secret for a real venue is refused",
			env:     map[string]string{"RISKCHART_VENUE_URL": "https://venue.example", "RISKCHART_ACCESS_KEY": "ak"},
			wantErr: "RISKCHART_ACCESS_KEY and RISKCHART_SECRET_KEY (-secret-key): give both or neither",
		},
		{
			name:    "an access key without a secret for the sandbox is refused",
			env:     map[string]string{"RISKCHART_ACCESS_KEY": "ak"},
			wantErr: "RISKCHART_ACCESS_KEY and RISKCHART_SECRET_KEY (-secret-key): give both or neither",
		},
		{
			name:    "a secret key without an access key for the sandbox is refused",
			env:     map[string]string{"RISKCHART_SECRET_KEY": "sk"},
			wantErr: "RISKCHART_ACCESS_KEY (-access-key) and RISKCHART_SECRET_KEY: give both or neither",
		},
		{
			name:    "a secret key file without an access key for the sandbox is refused",
			env:     map[string]string{"RISKCHART_SECRET_KEY_FILE": secretFile},
			wantErr: "RISKCHART_ACCESS_KEY (-access-key) and RISKCHART_SECRET_KEY_FILE: give both or neither",
		},
		{
			name:    "an access key given as a flag is named as the flag",
			args:    []string{"-access-key", "ak"},
			wantErr: "-access-key and RISKCHART_SECRET_KEY (-secret-key): give both or neither",
		},
		{
			name:    "a secret key file given as a flag beside a secret key variable: each named as it was given",
			args:    []string{"-secret-key-file", secretFile},
			env:     map[string]string{"RISKCHART_SECRET_KEY": "x"},
			wantErr: "RISKCHART_SECRET_KEY and -secret-key-file: give one, not both",
		},
		{
			name:    "a secret key file that cannot be read is named as the flag it was given by",
			args:    []string{"-secret-key-file", filepath.Join(t.TempDir(), "missing")},
			wantErr: "-secret-key-file: reading the secret key",
		},
		{
			name:    "a list's second value, unquoted, is refused, not dropped with the flags after it",
			args:    []string{"-frame-ancestors", "https://a.example", "https://b.example", "-addr", "0.0.0.0:9999"},
			wantErr: `unexpected argument "https://b.example": a list of several values is one argument, quoted`,
		},
		{
			name:    "a misspelt command is refused, not served",
			args:    []string{"sandbx"},
			wantErr: `unexpected argument "sandbx"`,
		},
		{
			name:    "an address without a port is refused naming the variable",
			env:     map[string]string{"RISKCHART_ADDR": "localhost"},
			wantErr: "RISKCHART_ADDR",
		},
		{
			name:    "an unknown log level names its variable and the levels",
			env:     map[string]string{"RISKCHART_LOG_LEVEL": "chatty"},
			wantErr: "RISKCHART_LOG_LEVEL: must be debug, info, warn or error",
		},
		{
			name: "the log level is read in any case",
			env:  map[string]string{"RISKCHART_LOG_LEVEL": "Debug"},
			check: func(t *testing.T, c config) {
				if c.LogLevel != slog.LevelDebug {
					t.Errorf("log level %v, want debug", c.LogLevel)
				}
			},
		},
		{
			name: "the sandbox's market is the default one unless a seed is given",
			check: func(t *testing.T, c config) {
				if c.SandboxSeed != 0 {
					t.Errorf("sandbox seed %d, want 0 (the sandbox's default market)", c.SandboxSeed)
				}
			},
		},
		{
			name: "a sandbox seed draws another market",
			env:  map[string]string{"RISKCHART_SANDBOX_SEED": "18446744073709551615"},
			check: func(t *testing.T, c config) {
				if c.SandboxSeed != 1<<64-1 {
					t.Errorf("sandbox seed %d, want the largest", c.SandboxSeed)
				}
			},
		},
		{
			name:    "a sandbox seed of 0 names its variable and the rule",
			env:     map[string]string{"RISKCHART_SANDBOX_SEED": "0"},
			wantErr: "RISKCHART_SANDBOX_SEED: must be a whole number from 1 to 18446744073709551615",
		},
		{
			name:    "a sandbox seed that is not a whole number names its flag and the rule",
			args:    []string{"-sandbox-seed", "-3"},
			wantErr: "-sandbox-seed: must be a whole number from 1",
		},
		{
			name: "trusted proxies are read by X-Forwarded-For unless told otherwise",
			check: func(t *testing.T, c config) {
				if c.ForwardedHeader != clientaddr.XForwardedFor {
					t.Errorf("forwarded header %v, want X-Forwarded-For", c.ForwardedHeader)
				}
			},
		},
		{
			name: "the forwarded header is read in any case",
			env:  map[string]string{"RISKCHART_FORWARDED_HEADER": "forwarded"},
			check: func(t *testing.T, c config) {
				if c.ForwardedHeader != clientaddr.Forwarded {
					t.Errorf("forwarded header %v, want Forwarded", c.ForwardedHeader)
				}
			},
		},
		{
			name: "the forwarded header's flag wins over its variable",
			args: []string{"-forwarded-header", "X-Forwarded-For"},
			env:  map[string]string{"RISKCHART_FORWARDED_HEADER": "Forwarded"},
			check: func(t *testing.T, c config) {
				if c.ForwardedHeader != clientaddr.XForwardedFor {
					t.Errorf("forwarded header %v, want X-Forwarded-For", c.ForwardedHeader)
				}
			},
		},
		{
			name:    "any other forwarded header names its variable and the two headers",
			env:     map[string]string{"RISKCHART_FORWARDED_HEADER": "X-Real-IP"},
			wantErr: "RISKCHART_FORWARDED_HEADER: must be X-Forwarded-For or Forwarded",
		},
		{
			name:    "any other forwarded header names its flag and the two headers",
			args:    []string{"-forwarded-header", "both"},
			wantErr: "-forwarded-header: must be X-Forwarded-For or Forwarded",
		},
		{
			name:    "a malformed duration names its variable",
			env:     map[string]string{"RISKCHART_REFRESH_INTERVAL": "soon"},
			wantErr: "RISKCHART_REFRESH_INTERVAL",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig("riskchart", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestPrintedConfigurationMasksEverySecret(t *testing.T) {
	env := map[string]string{
		"RISKCHART_VENUE_URL":     "https://gw:venue-password-value@venue.example",
		"RISKCHART_ACCESS_KEY":    "public-access-key",
		"RISKCHART_SECRET_KEY":    "very-secret-key-value",
		"RISKCHART_SANDBOX_KEYS":  "a:sandbox-secret-value",
		"RISKCHART_VIEWER_TOKENS": "viewer-token-value",
		"RISKCHART_REDIS_URL":     "rediss://riskchart:redis-password-value@redis.internal:6380/0",
	}
	c, err := parseEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c.print(&b)
	for _, secret := range []string{"very-secret-key-value", "venue-password-value", "sandbox-secret-value", "viewer-token-value", "redis-password-value"} {
		if strings.Contains(b.String(), secret) {
			t.Errorf("printed configuration shows a secret:\n%s", b.String())
		}
	}
	for _, shown := range []string{"public-access-key", "https://gw:xxxxx@venue.example", "rediss://riskchart:xxxxx@redis.internal:6380/0"} {
		if !strings.Contains(b.String(), shown) {
			t.Errorf("printed configuration hides %q, which is not secret:\n%s", shown, b.String())
		}
	}
}

// RISKCHART_VENUE_URL is checked where it is read, and a password in it is
// neither printed nor repeated in an error, whatever its shape.
func TestTheVenueURLNamesItsRuleAndNeverShowsItsPassword(t *testing.T) {
	tests := []struct {
		name, value string
		shown       string   // the summary's value, when accepted
		wantErr     []string // each in the error; none: accepted
	}{
		{"https", "https://api.venue.example", "https://api.venue.example", nil},
		{"http with a port and a path", "http://127.0.0.1:9000/venue", "http://127.0.0.1:9000/venue", nil},
		{"a user and password, masked", "https://gw-user:password-value@venue.example/base", "https://gw-user:xxxxx@venue.example/base", nil},
		{"no scheme", "venue.example.com", "", []string{"absolute http:// or https:// URL"}},
		{"another scheme", "ftp://venue.example.com", "", []string{"absolute http:// or https:// URL"}},
		{"no host", "https:///sapi", "", []string{"naming a host"}},
		{"a query", "https://venue.example.com/?a=1", "", []string{"no query or fragment"}},
		{"an empty query", "https://venue.example.com/?", "", []string{"no query or fragment"}},
		{"a fragment", "https://venue.example.com/#top", "", []string{"no query or fragment"}},
		{"a password with a bare '/' after digits", "https://gw-user:1/password-value@venue.example", "", []string{"percent-encoded"}},
		{"a password with a bare '/'", "https://gw-user:pass/password-value@venue.example", "", []string{"percent-encoded"}},
		{"a password with a bare '#'", "https://gw-user:pass#password-value@venue.example", "", []string{"percent-encoded"}},
		{"a password with a bare '?'", "https://gw-user:pass?password-value@venue.example", "", []string{"percent-encoded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseEnv(map[string]string{"RISKCHART_VENUE_URL": tt.value})
			var b strings.Builder
			c.print(&b)
			if strings.Contains(b.String(), "password-value") {
				t.Errorf("the summary shows the password:\n%s", b.String())
			}
			if tt.wantErr != nil {
				errorNames(t, err, append(tt.wantErr, "RISKCHART_VENUE_URL")...)
				if strings.Contains(err.Error(), "password-value") {
					t.Fatalf("error %v repeats the password", err)
				}
				return
			}
			if err != nil || c.VenueURL != tt.value {
				t.Fatalf("refused or changed (%q): %v", c.VenueURL, err)
			}
			if line := summaryLine(b.String(), "RISKCHART_VENUE_URL"); !strings.HasSuffix(line, " "+tt.shown) {
				t.Errorf("the summary shows %q, want %q", line, tt.shown)
			}
		})
	}
}

func TestEverySettingHasAFlagAVariableADefaultAndASummaryLine(t *testing.T) {
	// A distinct value for every setting, valid where it is parsed; a secret
	// is masked by the table whatever it looks like.
	values := map[string]string{}
	for _, s := range settings {
		values[s.env] = "value-of-" + s.flag
	}
	values["RISKCHART_ADDR"], values["RISKCHART_SANDBOX_ADDR"], values["RISKCHART_METRICS_ADDR"] = "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"
	values["RISKCHART_VENUE_URL"] = "https://venue.example/v1"
	values["RISKCHART_CONTRACTS"] = "BTC-USDT:0.001:1"
	values["RISKCHART_REFRESH_INTERVAL"], values["RISKCHART_SHUTDOWN_TIMEOUT"] = "3s", "4s"
	values["RISKCHART_PUBLIC_URL"], values["RISKCHART_STALE_AFTER"] = "https://charts.example.com", "2s"
	values["RISKCHART_TRUSTED_PROXIES"], values["RISKCHART_CLIENT_RATE"], values["RISKCHART_CLIENT_BURST"] = "10.0.0.0/8", "20", "40"
	values["RISKCHART_FORWARDED_HEADER"] = "Forwarded"
	values["RISKCHART_FRAME_ANCESTORS"], values["RISKCHART_ALLOWED_HOSTS"] = "https://partner.example", "charts.example.net"
	values["RISKCHART_READ_TIMEOUT"], values["RISKCHART_MAX_CONNS_PER_CLIENT"], values["RISKCHART_EMBED_MAX_TTL"] = "7s", "32", "720h"
	values["RISKCHART_REDIS_URL"], values["RISKCHART_REPLICAS"], values["RISKCHART_EGRESS"] = "redis://redis.internal:6379/0", "3", "nat-a"
	values["RISKCHART_MAX_STREAMS"], values["RISKCHART_MAX_STREAMS_PER_CLIENT"] = "500", "4"
	values["RISKCHART_LOG_LEVEL"] = "DEBUG"
	values["RISKCHART_PUBLIC_TIERS"], values["RISKCHART_SANDBOX_SEED"] = "true", "42"
	delete(values, "RISKCHART_SECRET_KEY_FILE") // with the secret key itself, refused
	summary := func(args []string, env map[string]string) string {
		t.Helper()
		c, err := parseConfig("riskchart", args, func(k string) string { return env[k] }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		c.print(&b)
		return b.String()
	}
	var args []string
	for _, s := range settings {
		if v, ok := values[s.env]; ok {
			args = append(args, "-"+s.flag+"="+v)
		}
	}
	fromEnv, fromFlags, defaults := summary(nil, values), summary(args, nil), summary(nil, nil)
	if fromEnv != fromFlags {
		t.Errorf("flags and variables give different configurations:\n%s\n%s", fromFlags, fromEnv)
	}
	if n := strings.Count(fromEnv, "\n  RISKCHART_"); n != len(settings) {
		t.Errorf("the summary has %d lines, the table %d settings:\n%s", n, len(settings), fromEnv)
	}
	seen := map[string]bool{}
	for _, s := range settings {
		t.Run(s.env, func(t *testing.T) {
			if want := "RISKCHART_" + strings.ToUpper(strings.ReplaceAll(s.flag, "-", "_")); s.env != want || seen[s.env] {
				t.Errorf("flag -%s has variable %s, want %s, once", s.flag, s.env, want)
			}
			seen[s.env] = true
			if s.usage == "" || s.set == nil || (s.def == "" && s.unset == "") {
				t.Errorf("%s lacks a usage, a parser, or a default or what unset means", s.env)
			}
			line := summaryLine(fromEnv, s.env)
			switch v := values[s.env]; {
			case line == "":
				t.Errorf("the summary has no line for %s:\n%s", s.env, fromEnv)
			case s.secret && (strings.Contains(fromEnv, v) || !strings.HasSuffix(line, " ****")):
				t.Errorf("the summary does not mask %s: %q", s.env, line)
			case !s.secret && v != "" && !strings.HasSuffix(line, " "+v):
				t.Errorf("the summary does not show %s: %q, want %q", s.env, line, v)
			}
			if line := summaryLine(defaults, s.env); line == "" || s.def != "" && !strings.HasSuffix(line, " "+s.def) {
				t.Errorf("the summary of the defaults shows %s as %q, want its default %q", s.env, line, s.def)
			}
		})
	}
}

// summaryLine is the summary's line for a variable, or "".
func summaryLine(summary, env string) string {
	for _, l := range strings.Split(summary, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == env {
			return l
		}
	}
	return ""
}

func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true,
		"0.0.0.0:8080": false, ":8080": false, "192.0.2.1:80": false,
	} {
		if got := loopbackOnly(addr); got != want {
			t.Errorf("loopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestFrameAncestorsAreOriginsThatCannotWidenTheContentSecurityPolicy(t *testing.T) {
	tests := []struct {
		name, value string
		wantErr     []string // each in the error; none: accepted
	}{
		{"an origin", "https://partner.example", nil},
		{"several, space-separated", "https://a.example.com  http://localhost:3000", nil},
		{"a wildcard subdomain", "https://*.partner.example", nil},
		{"a port", "https://a.com:8443", nil},
		{"an upper-case host", "https://Partner.Example", nil},
		{"'self', which is always there", "'self' https://partner.example", nil},
		{"a directive after a semicolon", "https://a.com; script-src *", []string{`"https://a.com;"`, "no ';'"}},
		{"a directive's name", "https://a.com script-src", []string{`"script-src"`, "https://"}},
		{"a comma list", "https://a.com,https://b.com", []string{`"https://a.com,https://b.com"`, "spaces"}},
		{"'none' beside the implied 'self'", "'none'", []string{"'none'", "'self'"}},
		{"another keyword", "'unsafe-inline'", []string{`"'unsafe-inline'"`, "origin"}},
		{"a quoted origin", `"https://a.com"`, []string{"quotes"}},
		{"a scheme alone", "https:", []string{`"https:"`, "scheme alone"}},
		{"a bare host", "partner.example", []string{`"partner.example"`, "https://"}},
		{"another scheme", "ftp://partner.example", []string{"https://"}},
		{"a path", "https://partner.example/embed", []string{"no path"}},
		{"a wildcard in a path", "https://partner.example/*", []string{"no path"}},
		{"any host", "https://*", []string{"host"}},
		{"a wildcard over a top-level domain", "https://*.com", []string{"two labels"}},
		{"a wildcard inside the host", "https://a*.example.com", []string{"host"}},
		{"a wildcard port", "https://a.com:*", []string{"port"}},
		{"a port out of range", "https://a.com:70000", []string{"port"}},
		{"a user", "https://me@a.com", []string{"no path, query or user"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseEnv(map[string]string{"RISKCHART_FRAME_ANCESTORS": tt.value})
			if tt.wantErr == nil {
				if err != nil || c.FrameAncestors != tt.value {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			errorNames(t, err, append(tt.wantErr, "RISKCHART_FRAME_ANCESTORS")...)
		})
	}
}

func TestTheHardeningSettingsNameTheirRule(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c config)
		wantErr []string
	}{
		{
			name: "the defaults",
			check: func(t *testing.T, c config) {
				if c.AllowedHosts != nil || c.ReadTimeout != 10*time.Second || c.MaxConnsPerIP != 64 || c.EmbedMaxTTL != 90*24*time.Hour {
					t.Errorf("hosts %v read timeout %s conns %d embed TTL %s", c.AllowedHosts, c.ReadTimeout, c.MaxConnsPerIP, c.EmbedMaxTTL)
				}
			},
		},
		{
			name: "allowed hosts with and without ports",
			env:  map[string]string{"RISKCHART_ALLOWED_HOSTS": "charts.example.com, 10.0.0.5:8080,[2001:db8::1]:8443 ,"},
			check: func(t *testing.T, c config) {
				if strings.Join(c.AllowedHosts, "|") != "charts.example.com|10.0.0.5:8080|[2001:db8::1]:8443" {
					t.Errorf("allowed hosts %q", c.AllowedHosts)
				}
			},
		},
		{name: "any host, said explicitly", env: map[string]string{"RISKCHART_ALLOWED_HOSTS": "*"},
			check: func(t *testing.T, c config) {
				if len(c.AllowedHosts) != 1 || c.AllowedHosts[0] != "*" {
					t.Errorf("allowed hosts %q", c.AllowedHosts)
				}
			}},
		{name: "an allowed host given as a URL", env: map[string]string{"RISKCHART_ALLOWED_HOSTS": "https://charts.example.com"},
			wantErr: []string{"RISKCHART_ALLOWED_HOSTS", `"https://charts.example.com"`, "not a URL"}},
		{name: "an allowed host with a bad port", env: map[string]string{"RISKCHART_ALLOWED_HOSTS": "charts.example.com:http"},
			wantErr: []string{"RISKCHART_ALLOWED_HOSTS", "port"}},
		{name: "an allowed host with an underscore", env: map[string]string{"RISKCHART_ALLOWED_HOSTS": "my_host"},
			wantErr: []string{"RISKCHART_ALLOWED_HOSTS", `"my_host"`, "letters, digits"}},
		{name: "any host beside names", env: map[string]string{"RISKCHART_ALLOWED_HOSTS": "*,charts.example.com"},
			wantErr: []string{"RISKCHART_ALLOWED_HOSTS", "stands alone"}},
		{name: "no read timeout", env: map[string]string{"RISKCHART_READ_TIMEOUT": "0s"},
			wantErr: []string{"RISKCHART_READ_TIMEOUT", "positive"}},
		{name: "a negative connection bound", env: map[string]string{"RISKCHART_MAX_CONNS_PER_CLIENT": "-1"},
			wantErr: []string{"RISKCHART_MAX_CONNS_PER_CLIENT", "whole number"}},
		{name: "no connection bound", env: map[string]string{"RISKCHART_MAX_CONNS_PER_CLIENT": "0"},
			check: func(t *testing.T, c config) {
				if c.MaxConnsPerIP != 0 {
					t.Errorf("conns %d", c.MaxConnsPerIP)
				}
			}},
		{name: "an embed lifetime of no length", env: map[string]string{"RISKCHART_EMBED_MAX_TTL": "0s"},
			wantErr: []string{"RISKCHART_EMBED_MAX_TTL", "1s or more"}},
		{name: "an embed lifetime under a second, which a link's expiry cannot keep", env: map[string]string{"RISKCHART_EMBED_MAX_TTL": "999ms"},
			wantErr: []string{"RISKCHART_EMBED_MAX_TTL", "1s or more"}},
		{name: "an embed lifetime of a second", env: map[string]string{"RISKCHART_EMBED_MAX_TTL": "1s"},
			check: func(t *testing.T, c config) {
				if c.EmbedMaxTTL != time.Second {
					t.Errorf("embed TTL %s", c.EmbedMaxTTL)
				}
			}},
		{name: "a metrics address without a port", env: map[string]string{"RISKCHART_METRICS_ADDR": "10.0.0.5"},
			wantErr: []string{"RISKCHART_METRICS_ADDR: must be host:port"}},
		{name: "a metrics address", env: map[string]string{"RISKCHART_METRICS_ADDR": "10.0.0.5:9100"},
			check: func(t *testing.T, c config) {
				if c.MetricsAddr != "10.0.0.5:9100" {
					t.Errorf("metrics address %q", c.MetricsAddr)
				}
			}},
		{name: "a viewer token too short to be out of reach of guessing", env: map[string]string{"RISKCHART_VIEWER_TOKENS": "long-enough-viewer-token, guessable"},
			wantErr: []string{"RISKCHART_VIEWER_TOKENS: token 2 has 9 characters", "at least 16"}},
		{name: "a viewer token of many bytes and few characters", env: map[string]string{"RISKCHART_VIEWER_TOKENS": "ｇｕｅｓｓａｂｌｅ"},
			wantErr: []string{"RISKCHART_VIEWER_TOKENS: token 1 has 9 characters", "at least 16"}},
		{name: "viewer tokens of 16 characters", env: map[string]string{"RISKCHART_VIEWER_TOKENS": "exactly-16-chars,ｔｏｋｅｎ-ｏｆ-１６-ｃｈａｒ"},
			check: func(t *testing.T, c config) {
				if got := splitSecrets(c.ViewerTokens); len(got) != 2 {
					t.Errorf("viewer tokens %d, want 2", len(got))
				}
			}},
		{name: "a public URL with a path", env: map[string]string{"RISKCHART_PUBLIC_URL": "https://charts.example.com/riskchart/"},
			check: func(t *testing.T, c config) {
				if got := c.PublicURL.String(); got != "https://charts.example.com/riskchart" {
					t.Errorf("public URL %q", got)
				}
			}},
		{name: "a public URL with a query", env: map[string]string{"RISKCHART_PUBLIC_URL": "https://charts.example.com/?a=1"},
			wantErr: []string{"RISKCHART_PUBLIC_URL", "no user, query or fragment"}},
		{name: "a public URL with an empty query, which links would keep", env: map[string]string{"RISKCHART_PUBLIC_URL": "https://charts.example.com/?"},
			wantErr: []string{"RISKCHART_PUBLIC_URL", "no user, query or fragment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseEnv(tt.env)
			if tt.wantErr != nil {
				errorNames(t, err, tt.wantErr...)
				if strings.Contains(err.Error(), "guessable") || strings.Contains(err.Error(), "ｇｕｅｓｓ") {
					t.Errorf("error %q shows the token", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// TestOffLoopbackTheServerNeedsTheHostNamesItAnswersFor: the refusal names
// the address as it was given (its variable or its flag) and both ways of
// giving each setting that would fix it.
func TestOffLoopbackTheServerNeedsTheHostNamesItAnswersFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		vars map[string]string
		want []string
	}{
		{"the address as a variable", nil, map[string]string{"RISKCHART_ADDR": "0.0.0.0:0", "RISKCHART_VIEWER_TOKENS": "a-viewer-token-of-this-test"},
			[]string{"RISKCHART_ADDR 0.0.0.0:0 is not loopback-only", "RISKCHART_PUBLIC_URL (-public-url)", "RISKCHART_ALLOWED_HOSTS (-allowed-hosts)"}},
		{"the address and the tokens as flags", []string{"-addr", "0.0.0.0:0", "-viewer-tokens", "a-viewer-token-of-this-test"}, nil,
			[]string{"-addr 0.0.0.0:0 is not loopback-only", "RISKCHART_PUBLIC_URL (-public-url)", "RISKCHART_ALLOWED_HOSTS (-allowed-hosts)"}},
		{"no tokens, the address as a flag", []string{"-addr", "0.0.0.0:0", "-public-url", "https://charts.example"}, nil,
			[]string{"-addr 0.0.0.0:0 is not loopback-only: set RISKCHART_VIEWER_TOKENS (-viewer-tokens)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"RISKCHART_ROOT": ".."}
			maps.Copy(vars, tc.vars)
			err := run(t.Context(), append([]string{"riskchart"}, tc.args...), func(k string) string { return vars[k] }, io.Discard, io.Discard)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("run: %v, want an error saying %q", err, w)
				}
			}
		})
	}
}

func TestEmbedLinksLastNoLongerThanTheServerAccepts(t *testing.T) {
	key := strings.Repeat("embed-key-", 4)
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr []string // none: a link is printed
	}{
		{"a day, by default", nil, nil, nil},
		{"90 days, the default limit", nil, []string{"-ttl", "2160h"}, nil},
		{"a hundred years", nil, []string{"-ttl", "876000h"}, []string{"-ttl 876000h", "RISKCHART_EMBED_MAX_TTL 2160h"}},
		{"past a lowered limit", map[string]string{"RISKCHART_EMBED_MAX_TTL": "1h"}, []string{"-ttl", "2h"}, []string{"-ttl 2h", "RISKCHART_EMBED_MAX_TTL 1h"}},
		{"within a raised limit", map[string]string{"RISKCHART_EMBED_MAX_TTL": "8760h"}, []string{"-ttl", "8000h"}, nil},
		{"a malformed limit", map[string]string{"RISKCHART_EMBED_MAX_TTL": "forever"}, nil, []string{"RISKCHART_EMBED_MAX_TTL", "1s or more"}},
		{"a limit under a second", map[string]string{"RISKCHART_EMBED_MAX_TTL": "500ms"}, []string{"-ttl", "500ms"}, []string{"RISKCHART_EMBED_MAX_TTL", "1s or more"}},
		{"past a limit given as the server's flag", nil, []string{"-embed-max-ttl", "1h", "-ttl", "2h"}, []string{"-ttl 2h", "-embed-max-ttl 1h"}},
		{"within a limit given as the server's flag", nil, []string{"-embed-max-ttl", "8760h", "-ttl", "8000h"}, nil},
		{"the server's flag over its variable", map[string]string{"RISKCHART_EMBED_MAX_TTL": "8760h"}, []string{"-embed-max-ttl", "1h", "-ttl", "2h"}, []string{"-embed-max-ttl 1h"}},
		{"a malformed limit as the server's flag", nil, []string{"-embed-max-ttl", "forever"}, []string{"-embed-max-ttl", "1s or more"}},
		{"a second", nil, []string{"-ttl", "1s"}, nil},
		{"under a second, which the link's expiry cannot keep", nil, []string{"-ttl", "999ms"}, []string{"-ttl 999ms", "1s or more"}},
		{"a list's second contract, unquoted", nil, []string{"ETH-USDT", "-ttl", "1h", "-panels", "tiers"},
			[]string{`unexpected argument "ETH-USDT"`, "one argument, quoted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"RISKCHART_EMBED_KEY": key}
			for k, v := range tt.env {
				env[k] = v
			}
			var out strings.Builder
			args := append([]string{"riskchart", "embed-link", "-contracts", "BTC-USDT"}, tt.args...)
			err := run(t.Context(), args, func(k string) string { return env[k] }, &out, io.Discard)
			if tt.wantErr == nil {
				if err != nil || !strings.Contains(out.String(), ".") {
					t.Fatalf("run: %v, printed %q", err, out.String())
				}
				return
			}
			for _, w := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("run: %v, want an error naming %q", err, w)
				}
			}
			// main prints "riskchart: " before it: the command's own name once.
			if !strings.HasPrefix(err.Error(), "embed-link: ") {
				t.Errorf("run: %q, want it to begin with the command's name alone, embed-link:", err)
			}
		})
	}
}

func TestTheSharedStateSettingsNameTheirRule(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c config)
		wantErr []string
		hidden  string // never in the error
	}{
		{name: "the defaults: no Redis, two replicas, one egress",
			check: func(t *testing.T, c config) {
				if c.RedisURL != "" || c.Replicas != 2 || c.Egress != "default" {
					t.Errorf("redis %q replicas %d egress %q", c.RedisURL, c.Replicas, c.Egress)
				}
			}},
		{name: "a TLS Redis with a password", env: map[string]string{"RISKCHART_REDIS_URL": "rediss://u:p@redis.internal:6380/1", "RISKCHART_REPLICAS": "5", "RISKCHART_EGRESS": "eu-west_1.nat"},
			check: func(t *testing.T, c config) {
				if c.RedisURL != "rediss://u:p@redis.internal:6380/1" || c.Replicas != 5 || c.Egress != "eu-west_1.nat" {
					t.Errorf("redis %q replicas %d egress %q", c.RedisURL, c.Replicas, c.Egress)
				}
			}},
		{name: "another scheme", env: map[string]string{"RISKCHART_REDIS_URL": "https://redis.internal"},
			wantErr: []string{"RISKCHART_REDIS_URL", "redis://"}},
		{name: "a URL without a host, its password not repeated", env: map[string]string{"RISKCHART_REDIS_URL": "redis://:hunter2-secret@/0"},
			wantErr: []string{"RISKCHART_REDIS_URL", "host"}, hidden: "hunter2-secret"},
		{name: "no replicas", env: map[string]string{"RISKCHART_REPLICAS": "0"},
			wantErr: []string{"RISKCHART_REPLICAS", "1 to 72"}},
		{name: "more replicas than private calls to share", env: map[string]string{"RISKCHART_REPLICAS": "73"},
			wantErr: []string{"RISKCHART_REPLICAS", "1 to 72"}},
		{name: "an egress that would change the Redis key's shape", env: map[string]string{"RISKCHART_EGRESS": "a{b}"},
			wantErr: []string{"RISKCHART_EGRESS", "letters, digits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseEnv(tt.env)
			if tt.wantErr != nil {
				errorNames(t, err, tt.wantErr...)
				if tt.hidden != "" && strings.Contains(err.Error(), tt.hidden) {
					t.Fatalf("error %v repeats the password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestTheStreamCapsNameTheirRule(t *testing.T) {
	for _, env := range []string{"RISKCHART_MAX_STREAMS", "RISKCHART_MAX_STREAMS_PER_CLIENT"} {
		for _, v := range []string{"0", "-1", "many"} {
			_, err := parseEnv(map[string]string{env: v})
			if err == nil || !strings.Contains(err.Error(), env) || !strings.Contains(err.Error(), "1 or more") {
				t.Errorf("%s=%s: %v, want an error naming it and the rule", env, v, err)
			}
		}
	}
	c, err := parseEnv(nil)
	if err != nil || c.MaxStreams != 20000 || c.ClientStreams != 32 {
		t.Errorf("defaults: %d streams, %d per client (%v); want 20000 and 32", c.MaxStreams, c.ClientStreams, err)
	}
}

// parseEnv parses the configuration that env alone gives, without flags.
func parseEnv(env map[string]string) (config, error) {
	return parseConfig("riskchart", nil, func(k string) string { return env[k] }, io.Discard)
}

// errorNames fails t unless err names every one of want.
func errorNames(t *testing.T, err error, want ...string) {
	t.Helper()
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("error %v, want one naming %q", err, w)
		}
	}
}

func TestAskingForTheUsageIsNotAFailure(t *testing.T) {
	tests := []struct {
		args     []string
		wantFlag string // a flag the usage names
	}{
		{[]string{"riskchart", "-h"}, "-addr"},
		{[]string{"riskchart", "-help"}, "-venue-url"},
		{[]string{"riskchart", "sandbox", "-h"}, "-sandbox-keys"},
		{[]string{"riskchart", "embed-link", "-h"}, "-ttl"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(t.Context(), tt.args, func(string) string { return "" }, &stdout, &stderr)
			if err != nil {
				t.Fatalf("run: %v, want nil: the usage was asked for", err)
			}
			if !strings.Contains(stderr.String(), tt.wantFlag) {
				t.Errorf("usage printed: %q, want it to name %s", stderr.String(), tt.wantFlag)
			}
		})
	}
	// A flag the command does not have is still a failure, named.
	err := run(t.Context(), []string{"riskchart", "embed-link", "-contract", "BTC-USDT"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-contract") || !strings.HasPrefix(err.Error(), "embed-link: ") {
		t.Errorf("run with an unknown flag: %v, want an error naming -contract, from embed-link", err)
	}
}

func TestTheDurationsThatMustBePositiveNameTheirRule(t *testing.T) {
	for _, env := range []string{"RISKCHART_REFRESH_INTERVAL", "RISKCHART_SHUTDOWN_TIMEOUT"} {
		for _, v := range []string{"0s", "-5s", "soon"} {
			t.Run(env+"="+v, func(t *testing.T) {
				_, err := parseEnv(map[string]string{env: v})
				errorNames(t, err, env, "positive duration")
			})
		}
	}
}

// A password with a character a URL reserves ('/', '#', '?') must be
// percent-encoded; written bare, url.Parse reads part of it as the path or
// the fragment, which no redaction masks.
func TestARedisPasswordNotPercentEncodedIsRefusedAndNeverShown(t *testing.T) {
	for _, raw := range []string{
		"redis://default:12/hunter2-secret@redis.internal:6379/0",
		"redis://default:12#hunter2-secret@redis.internal:6379/0",
		"redis://:6379?hunter2-secret@redis.internal:6379/0",
		// A password whose part before the bare character is no port number:
		// url.Parse fails on it, and the error must still name this rule.
		"redis://default:pass/hunter2-secret@redis.internal:6379/0",
		"redis://:pass#hunter2-secret@redis.internal:6379/0",
		"rediss://riskchart:pa?hunter2-secret@redis.internal:6380/0",
	} {
		t.Run(raw, func(t *testing.T) {
			c, err := parseEnv(map[string]string{"RISKCHART_REDIS_URL": raw})
			var b strings.Builder
			c.print(&b)
			if strings.Contains(b.String(), "hunter2-secret") {
				t.Errorf("the summary shows the password:\n%s", b.String())
			}
			errorNames(t, err, "RISKCHART_REDIS_URL", "percent-encoded")
			if strings.Contains(err.Error(), "hunter2-secret") {
				t.Fatalf("error %v repeats the password", err)
			}
		})
	}
}

// A secret key file that holds nothing but white space is refused naming the
// file: read as no key it would start a real venue without private data
// when no access key is given either, or be refused as an access key given
// alone, which names neither the file nor what is wrong with it.
func TestAnEmptySecretKeyFileIsRefusedNamingIt(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"with an access key", nil,
			map[string]string{"RISKCHART_VENUE_URL": "https://venue.example", "RISKCHART_ACCESS_KEY": "ak", "RISKCHART_SECRET_KEY_FILE": empty},
			"RISKCHART_SECRET_KEY_FILE: " + empty + " holds no secret key"},
		{"without an access key", nil,
			map[string]string{"RISKCHART_VENUE_URL": "https://venue.example", "RISKCHART_SECRET_KEY_FILE": empty},
			"RISKCHART_SECRET_KEY_FILE: " + empty + " holds no secret key"},
		{"given as a flag", []string{"-secret-key-file", empty},
			map[string]string{"RISKCHART_ACCESS_KEY": "ak"},
			"-secret-key-file: " + empty + " holds no secret key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig("riskchart", tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// A Redis URL that url.Parse takes but go-redis does not (a database that is
// no number, an option it does not know) is refused at start-up naming the
// setting as it was given, flag or variable, as every other refusal does
// (docs/deploy.md#what-a-refusal-means), and never its password.
func TestARedisURLGoRedisRefusesIsNamedAsGiven(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"a database that is no number, as a flag", []string{"-redis-url", "redis://:hunter2-secret@127.0.0.1:1/x"}, nil, "-redis-url: "},
		{"an option go-redis does not know, as a flag", []string{"-redis-url", "redis://:hunter2-secret@127.0.0.1:1/0?tls=yes"}, nil, "-redis-url: "},
		{"a database that is no number, as a variable", nil, map[string]string{"RISKCHART_REDIS_URL": "redis://:hunter2-secret@127.0.0.1:1/x"}, "RISKCHART_REDIS_URL: "},
		// A '/' in the password: go-redis would read the rest as the path
		// and repeat it; the stray-userinfo rule refuses it first.
		{"a password with a bare '/', as a flag", []string{"-redis-url", "redis://default:/hunter2-secret@127.0.0.1:1/0"}, nil, "-redis-url: must have its password percent-encoded"},
		{"a password with a bare '/' before the database", []string{"-redis-url", "redis://:12/hunter2-secret@127.0.0.1:1"}, nil, "-redis-url: must have its password percent-encoded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(t.Context(), append([]string{"riskchart"}, tc.args...), func(k string) string { return tc.env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("run: %v, want an error starting %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("run: %v shows the password", err)
			}
		})
	}
}

// With the embedded sandbox (no RISKCHART_VENUE_URL), the access key and
// secret key must be one of the sandbox's pairs (README.md#configuration):
// any other pair is refused by the sandbox on every signed call, and the
// private panels would show no access with nothing said at start-up.
func TestWithTheEmbeddedSandboxTheKeyPairIsOneOfItsKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string // each in run's error
	}{
		{"a pair beside a generated sandbox key", nil,
			map[string]string{"RISKCHART_ACCESS_KEY": "ak", "RISKCHART_SECRET_KEY": "sk-secret-value"},
			[]string{"RISKCHART_ACCESS_KEY", "RISKCHART_SANDBOX_KEYS"}},
		{"an access key the sandbox does not have", nil,
			map[string]string{"RISKCHART_ACCESS_KEY": "ak", "RISKCHART_SECRET_KEY": "sk-secret-value", "RISKCHART_SANDBOX_KEYS": "other:sk-secret-value"},
			[]string{"RISKCHART_ACCESS_KEY", "RISKCHART_SANDBOX_KEYS"}},
		{"a secret key that is not the sandbox's for the access key", []string{"-secret-key", "not-it-secret-value"},
			map[string]string{"RISKCHART_ACCESS_KEY": "ak", "RISKCHART_SANDBOX_KEYS": "ak:sk-secret-value"},
			[]string{"-secret-key", "RISKCHART_SANDBOX_KEYS"}},
		// Past the check: the server goes on to read its front end, missing here.
		{"one of the sandbox's pairs", nil,
			map[string]string{"RISKCHART_ACCESS_KEY": "ak", "RISKCHART_SECRET_KEY": "sk-secret-value", "RISKCHART_SANDBOX_KEYS": "other:x-secret-value,ak:sk-secret-value"},
			[]string{"RISKCHART_ROOT"}},
		{"no pair: the sandbox's own is used", nil, nil, []string{"RISKCHART_ROOT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": t.TempDir()}
			maps.Copy(vars, tc.env)
			err := run(t.Context(), append([]string{"riskchart"}, tc.args...), func(k string) string { return vars[k] }, io.Discard, io.Discard)
			errorNames(t, err, tc.want...)
			if strings.Contains(err.Error(), "-secret-value") {
				t.Errorf("error %v shows a secret key", err)
			}
		})
	}
}

// A port is a number from 1 to 65535 (0, for a listener, takes a free
// one), and a URL names a host: RISKCHART_ALLOWED_HOSTS and
// RISKCHART_FRAME_ANCESTORS refuse anything else at start-up, and so must
// the addresses and the URLs, whose bad port would otherwise fail only
// when the server listens, calls the venue, or, for Redis, never: the
// replicas would run degraded on a Redis no one can reach.
func TestAddressesAndURLsNameAHostAndAPortInRange(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr []string // each in the error; none: accepted
	}{
		{"a listener on a free port", nil, map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_METRICS_ADDR": "10.0.0.5:0", "RISKCHART_SANDBOX_ADDR": "[::1]:0"}, nil},
		{"URLs with ports", nil, map[string]string{"RISKCHART_VENUE_URL": "https://venue.example:8443", "RISKCHART_PUBLIC_URL": "https://charts.example.com:65535",
			"RISKCHART_REDIS_URL": "redis://:pw@redis.internal:6380/0"}, nil},
		{"the address's port past 65535", nil, map[string]string{"RISKCHART_ADDR": "127.0.0.1:70000"}, []string{"RISKCHART_ADDR", "port"}},
		{"the address's port negative", []string{"-addr", "127.0.0.1:-1"}, nil, []string{"-addr", "port"}},
		{"the metrics address's port past 65535", nil, map[string]string{"RISKCHART_METRICS_ADDR": "10.0.0.5:65536"}, []string{"RISKCHART_METRICS_ADDR", "port"}},
		{"the sandbox's port past 65535", nil, map[string]string{"RISKCHART_SANDBOX_ADDR": "127.0.0.1:99999"}, []string{"RISKCHART_SANDBOX_ADDR", "port"}},
		{"the sandbox's address without a port", nil, map[string]string{"RISKCHART_SANDBOX_ADDR": "localhost"}, []string{"RISKCHART_SANDBOX_ADDR", "host:port"}},
		// net.Listen("tcp", "") listens on every interface.
		{"the sandbox's address empty, as a flag", []string{"-sandbox-addr", ""}, nil, []string{"-sandbox-addr", "host:port"}},
		{"the venue's port past 65535", nil, map[string]string{"RISKCHART_VENUE_URL": "https://venue.example:99999"}, []string{"RISKCHART_VENUE_URL", "port"}},
		{"the venue's port 0", nil, map[string]string{"RISKCHART_VENUE_URL": "https://venue.example:0"}, []string{"RISKCHART_VENUE_URL", "port"}},
		{"the venue's host a port alone", nil, map[string]string{"RISKCHART_VENUE_URL": "https://:443"}, []string{"RISKCHART_VENUE_URL", "host"}},
		{"the public URL's port past 65535", nil, map[string]string{"RISKCHART_PUBLIC_URL": "https://charts.example.com:70000"}, []string{"RISKCHART_PUBLIC_URL", "port"}},
		{"the public URL's host a port alone", nil, map[string]string{"RISKCHART_PUBLIC_URL": "https://:8443"}, []string{"RISKCHART_PUBLIC_URL", "host"}},
		{"Redis's port past 65535", nil, map[string]string{"RISKCHART_REDIS_URL": "redis://:hunter2-secret@redis.internal:70000/0"}, []string{"RISKCHART_REDIS_URL", "port"}},
		// go-redis would dial localhost.
		{"Redis's host a port alone", nil, map[string]string{"RISKCHART_REDIS_URL": "redis://:hunter2-secret@:6379/0"}, []string{"RISKCHART_REDIS_URL", "host"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig("riskchart", tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			errorNames(t, err, tc.wantErr...)
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %v shows the password", err)
			}
		})
	}
}

// `riskchart sandbox` reads the sandbox's settings alone: its usage shows
// its own defaults (127.0.0.1:9000, keys required), and a server flag such
// as -addr, which it would ignore, is refused rather than dropped.
func TestTheSandboxCommandTakesTheSandboxSettingsAlone(t *testing.T) {
	var usage strings.Builder
	if err := run(t.Context(), []string{"riskchart", "sandbox", "-h"}, func(string) string { return "" }, io.Discard, &usage); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-sandbox-addr", "127.0.0.1:9000", "-sandbox-keys", "-sandbox-seed", "-log-level"} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("the usage does not say %q:\n%s", want, usage.String())
		}
	}
	for _, not := range []string{"127.0.0.1:0", "one generated at start", "  -addr ", "-venue-url", "-redis-url"} {
		if strings.Contains(usage.String(), not) {
			t.Errorf("the usage says %q, which is not the sandbox command's:\n%s", not, usage.String())
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // were the flag taken, the sandbox would stop at once
	env := map[string]string{"RISKCHART_SANDBOX_KEYS": "a:b"}
	for _, args := range [][]string{{"-addr", "0.0.0.0:9000"}, {"-venue-url", "https://venue.example"}} {
		err := run(ctx, append([]string{"riskchart", "sandbox", "-sandbox-addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, io.Discard, io.Discard)
		errorNames(t, err, args[0])
	}
}

// `riskchart embed-link` reads the server's embed settings alone: an
// operator issuing links from a shell with the server's environment need
// not be able to read the venue's secret key file.
func TestEmbedLinkReadsTheEmbedSettingsAlone(t *testing.T) {
	env := map[string]string{
		"RISKCHART_EMBED_KEY":       strings.Repeat("embed-key-", 4),
		"RISKCHART_EMBED_MAX_TTL":   "48h",
		"RISKCHART_ACCESS_KEY":      "ak",
		"RISKCHART_SECRET_KEY_FILE": filepath.Join(t.TempDir(), "readable-by-the-service-alone"),
	}
	var out strings.Builder
	err := run(t.Context(), []string{"riskchart", "embed-link", "-contracts", "BTC-USDT"}, func(k string) string { return env[k] }, &out, io.Discard)
	if err != nil || !strings.Contains(out.String(), ".") {
		t.Fatalf("run: %v, printed %q", err, out.String())
	}
	// The server's own limit still applies.
	err = run(t.Context(), []string{"riskchart", "embed-link", "-contracts", "BTC-USDT", "-ttl", "72h"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	errorNames(t, err, "-ttl 72h", "RISKCHART_EMBED_MAX_TTL 48h")
}
