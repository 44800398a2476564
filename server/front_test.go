package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestTheFaviconIsServedAsAnImage(t *testing.T) {
	s := startServer(t, nil)
	res, err := http.Get(s.URL + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") || !strings.HasPrefix(string(body), "\x89PNG") {
		t.Fatalf("GET /favicon.ico: %d %q, %d bytes", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
}

// The embed demo works out of the box under `make run`, and only there:
// the link the server signs itself is for its made-up sandbox data.
func TestTheEmbedDemoGetsALinkOfItsOwnOnlyWithTheSandbox(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      func(t *testing.T) map[string]string
		wantLink bool
	}{
		{"the embedded sandbox and no embed key", func(*testing.T) map[string]string { return nil }, true},
		{"a real venue", func(t *testing.T) map[string]string {
			return map[string]string{"RISKCHART_VENUE_URL": startStandaloneSandbox(t), "RISKCHART_ACCESS_KEY": "a", "RISKCHART_SECRET_KEY": "b"}
		}, false},
		{"an embed key of the operator's", func(*testing.T) map[string]string {
			return map[string]string{"RISKCHART_EMBED_KEY": "operator-embed-key-0123456789-0123456789"}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.env(t))
			res, err := http.Get(s.URL + demoLinkPath)
			if err != nil {
				t.Fatal(err)
			}
			var got struct{ Link string }
			json.NewDecoder(res.Body).Decode(&got)
			res.Body.Close()
			if !tc.wantLink {
				if res.StatusCode == http.StatusOK || got.Link != "" {
					t.Fatalf("GET %s: %d with link %q, want no link", demoLinkPath, res.StatusCode, got.Link)
				}
				return
			}
			if res.StatusCode != http.StatusOK || got.Link == "" {
				t.Fatalf("GET %s: %d, link %q", demoLinkPath, res.StatusCode, got.Link)
			}
			// The link opens the demo's private panels, as an embed sends it.
			for _, p := range []string{venueapi.PathTiers + "?contract_code=ETH-USDT", venueapi.PathPositionLimit + "?contract_code=BTC-USDT"} {
				req, _ := http.NewRequest(http.MethodGet, s.URL+p, nil)
				req.Header.Set(venueapi.EmbedHeader, got.Link)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if !strings.Contains(string(body), `"data":[{"`) {
					t.Errorf("%s with the demo's link: %s", p, body)
				}
			}
		})
	}
}
