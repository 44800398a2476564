package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			wantErr: "give both or neither",
		},
		{
			name:    "an address without a port is refused naming the variable",
			env:     map[string]string{"RISKCHART_ADDR": "localhost"},
			wantErr: "RISKCHART_ADDR",
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
		"RISKCHART_VENUE_URL":     "https://venue.example",
		"RISKCHART_ACCESS_KEY":    "public-access-key",
		"RISKCHART_SECRET_KEY":    "very-secret-key-value",
		"RISKCHART_SANDBOX_KEYS":  "a:sandbox-secret-value",
		"RISKCHART_VIEWER_TOKENS": "viewer-token-value",
	}
	c, err := parseConfig("riskchart", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c.print(&b)
	for _, secret := range []string{"very-secret-key-value", "sandbox-secret-value", "viewer-token-value"} {
		if strings.Contains(b.String(), secret) {
			t.Errorf("printed configuration shows a secret:\n%s", b.String())
		}
	}
	if !strings.Contains(b.String(), "public-access-key") {
		t.Errorf("printed configuration hides the access key, which is not secret:\n%s", b.String())
	}
}

func TestEverySettingHasAFlagAVariableADefaultAndASummaryLine(t *testing.T) {
	// A distinct value for every setting, valid where it is parsed; a secret
	// is masked by the table whatever it looks like.
	values := map[string]string{}
	for _, s := range settings {
		values[s.env] = "value-of-" + s.flag
	}
	values["RISKCHART_ADDR"], values["RISKCHART_SANDBOX_ADDR"] = "127.0.0.1:1", "127.0.0.1:2"
	values["RISKCHART_CONTRACTS"] = "BTC-USDT:0.001:1"
	values["RISKCHART_REFRESH_INTERVAL"], values["RISKCHART_SHUTDOWN_TIMEOUT"] = "3s", "4s"
	values["RISKCHART_PUBLIC_URL"], values["RISKCHART_STALE_AFTER"] = "https://charts.example.com", "2s"
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
