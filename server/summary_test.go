package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// The summary `make run` prints is read by an operator: every row of the
// settings table, the sandbox where it really listens, and no secret.
func TestTheStartupSummaryShowsEverySettingTheSandboxsRealAddressAndNoSecret(t *testing.T) {
	const embedKey = "embed-key-that-must-not-be-printed-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": embedKey, "RISKCHART_SANDBOX_KEYS": "lead:sandbox-secret-not-printed"})
	out := s.Out.String()
	for _, st := range settings {
		if summaryLine(out, st.env) == "" {
			t.Errorf("the start-up summary has no line for %s:\n%s", st.env, out)
		}
	}
	for _, secret := range []string{embedKey, "sandbox-secret-not-printed"} {
		if strings.Contains(out, secret) {
			t.Errorf("the start-up summary shows a secret:\n%s", out)
		}
	}
	line := summaryLine(out, "RISKCHART_SANDBOX_ADDR")
	f := strings.Fields(line)
	if len(f) < 2 || strings.HasSuffix(f[1], ":0") {
		t.Fatalf("the summary shows the sandbox at %q, want the port it got", line)
	}
	res, err := http.Get("http://" + f[1] + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2")
	if err != nil {
		t.Fatalf("the sandbox is not where the summary says (%q): %v", line, err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"ch":"market.BTC-USDT.kline.1min"`) {
		t.Fatalf("%s answered %s", f[1], body)
	}
}

func TestWithARealVenueTheSummarySaysTheSandboxIsNotUsed(t *testing.T) {
	sandboxURL := startStandaloneSandbox(t)
	s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": sandboxURL})
	if line := summaryLine(s.Out.String(), "RISKCHART_SANDBOX_ADDR"); !strings.Contains(line, "not used") {
		t.Fatalf("with a venue URL the summary shows the sandbox as %q", line)
	}
}

// startStandaloneSandbox runs `riskchart sandbox` in-process on a free
// loopback port, as a real venue the server is pointed at, and returns its
// base URL.
func startStandaloneSandbox(t testing.TB) string {
	t.Helper()
	env := map[string]string{"RISKCHART_SANDBOX_KEYS": "a:b", "RISKCHART_SANDBOX_ADDR": "127.0.0.1:0"}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(t.Context(), []string{"riskchart", "sandbox"}, func(k string) string { return env[k] }, pw, io.Discard)
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() { <-done })
	return strings.TrimSuffix(servertest.ServingURL(t, pr, nil), "/")
}
