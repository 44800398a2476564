package main

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// firstTiersServer is a running server that holds BTC-USDT's tiers (someone
// asked the tier path for them), and a GET of its pages.
type firstTiersServer struct {
	*testServer
	t *testing.T
}

func startFirstTiersServer(t *testing.T, env map[string]string) firstTiersServer {
	s := firstTiersServer{startServer(t, env), t}
	if body, _ := s.get(venueapi.PathTiers+"?contract_code=BTC-USDT", nil); !strings.Contains(body, `"code":200`) {
		t.Fatalf("the tier path answered %s", body)
	}
	return s
}

func (s firstTiersServer) get(path string, header map[string]string) (string, http.Header) {
	s.t.Helper()
	res, b := s.do(s.t, http.MethodGet, path, header)
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
	return string(b), res.Header
}

var (
	firstTiersContract = regexp.MustCompile(`id="tiers-first" data-contract="([^"]*)"`)
	firstTiersAnswer   = regexp.MustCompile(`<script[^>]* id="tiers-first"[^>]*>([^<]*)</script>`)
)

// firstTiersCase is a page request, and the contract whose tiers its page
// must carry ("": none).
type firstTiersCase struct {
	name   string
	path   string
	header map[string]string
	want   string
}

// check asks for each page and compares what it carries with what it should.
func (s firstTiersServer) check(tests []firstTiersCase) {
	for _, tt := range tests {
		s.t.Run(tt.name, func(t *testing.T) {
			page, header := s.get(tt.path, tt.header)
			rows := strings.Count(page, "data-tier=")
			got := ""
			if m := firstTiersContract.FindStringSubmatch(page); m != nil {
				got = m[1]
			}
			if got != tt.want || (tt.want != "") != (rows > 0) {
				t.Errorf("the page holds %d tier rows and the answer for %q; want the tiers of %q", rows, got, tt.want)
			}
			// The app reads the tiers in Go's first run, in one pass (docs/startup.md#the-lists-read-in-one-pass).
			if tt.want != "" {
				m := firstTiersAnswer.FindStringSubmatch(page)
				if m == nil {
					t.Fatalf("the page holds no tiers-first script")
				}
				if _, ok := venueapi.FastTiers([]byte(m[1])); !ok {
					t.Errorf("the page's tiers %s are not what venueapi.FastTiers reads: the app would read them with encoding/json", m[1])
				}
			}
			if tt.want != "" && !strings.Contains(header.Get("Cache-Control"), "private") {
				t.Errorf("a page with a viewer's tiers is cacheable by others: Cache-Control %q", header.Get("Cache-Control"))
			}
		})
	}
}

// The pages with a tier ladder (the chart page, /tiers, the tiers embed)
// carry the tiers the server holds for their contract, for a viewer the
// tier path would answer, and nothing else (docs/architecture.md).
func TestTheChartPageCarriesTheTiersTheServerHolds(t *testing.T) {
	const token, key = "first-tiers-viewer-token", "first-tiers-embed-key-0123456789-0123456789"
	// Behind a trusted proxy (the loopback peer, with X-Forwarded-For), a
	// request needs a viewer token for private data.
	s := startFirstTiersServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1/32",
		"RISKCHART_VIEWER_TOKENS": token, "RISKCHART_EMBED_KEY": key})
	signer, err := embedlink.NewSigner([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	link := func(panel string, contracts ...string) string {
		tok, err := signer.Issue(embedlink.Scope{Contracts: contracts, Panels: []string{panel}, Expires: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return url.QueryEscape(tok)
	}
	btcTiers := link(embedlink.PanelTiers, "BTC-USDT")
	proxied := map[string]string{"X-Forwarded-For": "203.0.113.7"}
	viewer := map[string]string{"X-Forwarded-For": "203.0.113.7", "Authorization": "Bearer " + token}
	shell := map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}
	framed := map[string]string{"X-Forwarded-For": "203.0.113.7", "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "same-origin"}
	crossSite := map[string]string{"X-Forwarded-For": "203.0.113.7", "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "cross-site"}
	s.check([]firstTiersCase{
		{"a held contract, on loopback", "/?contract_code=BTC-USDT&period=5min", nil, "BTC-USDT"},
		{"the default contract, held", "/", nil, "BTC-USDT"},
		{"a held contract, to a viewer with a token", "/?contract_code=BTC-USDT", viewer, "BTC-USDT"},
		{"a held contract, to a viewer without access", "/?contract_code=BTC-USDT", proxied, ""},
		{"a contract not held", "/?contract_code=ETH-USDT", nil, ""},
		{"the shell the service worker keeps", "/", shell, ""},
		{"a page load in a browser", "/", map[string]string{"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"}, "BTC-USDT"},
		{"a view the service worker sends on to the network", "/?contract_code=BTC-USDT&period=5min",
			map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors", firstdata.NavigationHeader: "1"}, "BTC-USDT"},
		{"a view the service worker sends on, to a viewer without access", "/?contract_code=BTC-USDT",
			map[string]string{"X-Forwarded-For": "203.0.113.7", "Sec-Fetch-Dest": "empty", firstdata.NavigationHeader: "1"}, ""},

		{"/tiers: a held contract, on loopback", "/tiers?contract_code=BTC-USDT", nil, "BTC-USDT"},
		{"/tiers: its default contract", "/tiers", nil, "BTC-USDT"},
		{"/tiers: the code in lower case, read as the page reads it", "/tiers?contract_code=btc-usdt", nil, "BTC-USDT"},
		{"/tiers: to a viewer with a token", "/tiers?contract_code=BTC-USDT", viewer, "BTC-USDT"},
		{"/tiers: to a viewer without access", "/tiers?contract_code=BTC-USDT", proxied, ""},
		{"/tiers: a contract not held", "/tiers?contract_code=ETH-USDT", nil, ""},
		{"/tiers: a malformed contract", "/tiers?contract_code=btc", nil, ""},
		{"/tiers: the shell the service worker keeps", "/tiers?contract_code=BTC-USDT", shell, ""},
		{"/limits shows no tiers", "/limits?contract_code=BTC-USDT", nil, ""},

		{"embed: a link for its tiers, off loopback without a token", "/embed/tiers?contract_code=BTC-USDT&embed=" + btcTiers, proxied, "BTC-USDT"},
		{"embed: a link for its tiers, framed by this server's page", "/embed/tiers?contract_code=btc-usdt&embed=" + btcTiers, framed, "BTC-USDT"},
		{"embed: a link for its tiers, framed by another site's page", "/embed/tiers?contract_code=BTC-USDT&embed=" + btcTiers, crossSite, "BTC-USDT"},
		{"embed: another site's page fetching it", "/embed/tiers?contract_code=BTC-USDT&embed=" + btcTiers,
			map[string]string{"X-Forwarded-For": "203.0.113.7", "Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "cross-site"}, ""},
		{"embed: no link, on loopback", "/embed/tiers?contract_code=BTC-USDT", nil, ""},
		{"embed: no link, with a viewer token", "/embed/tiers?contract_code=BTC-USDT", viewer, ""},
		{"embed: a link for another contract", "/embed/tiers?contract_code=BTC-USDT&embed=" + link(embedlink.PanelTiers, "ETH-USDT"), nil, ""},
		{"embed: a link for the limits alone", "/embed/tiers?contract_code=BTC-USDT&embed=" + link(embedlink.PanelLimits, "BTC-USDT"), nil, ""},
		{"embed: a tampered link", "/embed/tiers?contract_code=BTC-USDT&embed=" + btcTiers + "x", nil, ""},
		{"embed: the shell the service worker keeps", "/embed/tiers?contract_code=BTC-USDT&embed=" + btcTiers, shell, ""},
		{"embed: the limits embed", "/embed/limits?contract_code=BTC-USDT&embed=" + link(embedlink.PanelLimits, "BTC-USDT"), nil, ""},
		{"embed: the chart embed", "/embed/chart?contract_code=BTC-USDT&embed=" + btcTiers, nil, ""},
	})
}

// With public tiers, the tiers embed carries them without a link, as the
// tier path answers its calls, in another site's frame too; another site's
// page fetching it gets none, and the server's own pages keep the chart
// page's rule (a viewer token off loopback).
func TestPublicTiersReachTheFirstPaintOfEmbeds(t *testing.T) {
	s := startFirstTiersServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1/32",
		"RISKCHART_VIEWER_TOKENS": "public-tiers-viewer-token", "RISKCHART_PUBLIC_TIERS": "true"})
	proxied := map[string]string{"X-Forwarded-For": "203.0.113.7"}
	s.check([]firstTiersCase{
		{"embed without a link", "/embed/tiers?contract_code=BTC-USDT", proxied, "BTC-USDT"},
		{"embed with a bad link", "/embed/tiers?contract_code=BTC-USDT&embed=not-a-link", proxied, "BTC-USDT"},
		{"embed framed by another site's page", "/embed/tiers?contract_code=BTC-USDT",
			map[string]string{"X-Forwarded-For": "203.0.113.7", "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "cross-site"}, "BTC-USDT"},
		{"another site's page fetching the embed", "/embed/tiers?contract_code=BTC-USDT",
			map[string]string{"X-Forwarded-For": "203.0.113.7", "Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "cross-site"}, ""},
		{"embed of a contract not held", "/embed/tiers?contract_code=ETH-USDT", proxied, ""},
		{"/tiers without a token", "/tiers?contract_code=BTC-USDT", proxied, ""},
	})
}
