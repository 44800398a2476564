package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// logLine is a request log line as the tests read it.
type logLine struct {
	Msg    string `json:"msg"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	Status int    `json:"status"`
	Path   string `json:"path"`
}

// logLines returns the log's lines with msg.
func (s *stack) logLines(t *testing.T, msg string) []logLine {
	t.Helper()
	var out []logLine
	for _, l := range strings.Split(strings.TrimSpace(s.logs.String()), "\n") {
		var line logLine
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("a log line that is not JSON: %q", l)
		}
		if line.Msg == msg {
			out = append(out, line)
		}
	}
	return out
}

// flood sends n GETs of path over one kept-alive connection, with the Host
// header host.
func (s *stack) flood(t *testing.T, n int, host, path string, header ...string) {
	t.Helper()
	tr := s.from("127.0.0.1")
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for range n {
		req, _ := http.NewRequest(http.MethodGet, s.url+path, nil)
		if host != "" {
			req.Host = host
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

func TestAFloodOfRefusedRequestsWritesAFewLinesThatCountThemAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, options{}) // the log's clock is the bubble's
		for range 10 {              // 10,000 refusals over one second
			s.flood(t, 1000, "rebind.evil.example", "/")
			time.Sleep(100 * time.Millisecond)
		}
		lines := s.logLines(t, "requests refused")
		if len(lines) == 0 || len(lines) > 3 {
			t.Fatalf("%d lines for 10,000 refusals in a second, want one to three", len(lines))
		}
		time.Sleep(time.Second)
		s.flood(t, 1, "rebind.evil.example", "/") // the next line carries what the flood left
		total := 0
		for _, l := range s.logLines(t, "requests refused") {
			if l.Reason != "host_name" || l.Status != http.StatusMisdirectedRequest || l.Path != "/" {
				t.Errorf("line %+v, want reason host_name, status 421, path /", l)
			}
			total += l.Count
		}
		if total != 10_001 {
			t.Fatalf("the lines count %d refusals, want 10,001", total)
		}
		if n := len(s.logLines(t, "request")); n != 0 {
			t.Fatalf("%d refusals were logged a line each", n)
		}
	})
}

func TestEachKindOfRefusalHasItsOwnLineAndAnswersStillOneEach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, options{gateway: func(c *gateway.Config) {
			c.Public, c.ViewerTokens, c.AllowedHosts = true, []venue.Secret{testViewer}, []string{"charts.example"}
			c.ClientRate, c.ClientBurst = 1, 130 // the private paths take 110, the candles 20, then 429s
			c.EmbedLinks, _ = embedlink.NewSigner([]byte(strings.Repeat("embed-key-", 4)))
		}})
		tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
		viewer := []string{"Authorization", "Bearer " + testViewer}
		s.flood(t, 50, "evil.example", tiers)
		s.flood(t, 50, "", tiers, append(viewer, "Sec-Fetch-Site", "cross-site")...)
		s.flood(t, 50, "", tiers) // no viewer token
		s.flood(t, 10, "", tiers, venueapi.EmbedHeader, "not-a-link")
		s.flood(t, 3, "", venueapi.PathContracts)
		s.flood(t, 50, "", venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2") // 30 past the burst
		got := map[string]int{}
		for _, l := range s.logLines(t, "requests refused") {
			got[l.Reason]++
		}
		for _, reason := range []string{"host_name", "cross_site", "viewer_token", "embed_link", "rate"} {
			if got[reason] != 1 {
				t.Errorf("%d lines for %s, want 1 (lines by reason: %v)", got[reason], reason, got)
			}
		}
		if n := len(s.logLines(t, "request")); n != 3+20 {
			t.Errorf("%d request lines, want one for each of the 23 answers", n)
		}
	})
}
