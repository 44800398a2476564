package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// The pages with a contract picker (the chart page, /tiers, /limits) carry
// the contract list, the contract path's answer, to whoever the path answers
// (it is public) on every page load a browser shows; the service worker's
// shells and the embeds do not (docs/architecture.md).
func TestThePagesWithAPickerCarryTheContractList(t *testing.T) {
	// Behind a trusted proxy, with viewer tokens: private data needs one,
	// the contract list does not.
	s := startServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1/32", "RISKCHART_VIEWER_TOKENS": "first-contracts-viewer-token"})
	get := func(path string, header map[string]string) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
		return string(b)
	}
	answer := get(venueapi.PathContracts, nil)
	var list struct {
		Data []venueapi.Offer `json:"data"`
	}
	if err := json.Unmarshal([]byte(answer), &list); err != nil || len(list.Data) < 2 {
		t.Fatalf("the contract path answered %s (%v)", answer, err)
	}
	script := regexp.MustCompile(`<script type="application/json" id="contracts-first">([^<]*)</script>`)
	options := regexp.MustCompile(`(?s)<select[^>]* id="contract-select".*?</select>`)
	tests := []struct {
		name   string
		path   string
		header map[string]string
		want   bool
	}{
		{"on loopback", "/?contract_code=ETH-USDT&period=5min", nil, true},
		{"the default view", "/", nil, true},
		{"through the proxy, without a viewer token", "/?contract_code=ETH-USDT", map[string]string{"X-Forwarded-For": "203.0.113.7"}, true},
		{"a page load in a browser", "/", map[string]string{"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"}, true},
		{"the shell the service worker keeps", "/", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}, false},
		{"a view the service worker sends on to the network", "/?contract_code=ETH-USDT", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors", firstdata.NavigationHeader: "1"}, true},
		{"the tiers page", "/tiers?contract_code=ETH-USDT", nil, true},
		{"the limits page, the shell the service worker keeps", "/limits", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}, false},
		{"an embed", "/embed/tiers?contract_code=ETH-USDT", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := get(tt.path, tt.header)
			m := script.FindStringSubmatch(page)
			listed := strings.Count(options.FindString(page), "<option")
			if tt.want != (m != nil) || tt.want != (listed == len(list.Data)) {
				t.Fatalf("the page carries the answer: %v, its picker lists %d contracts; want the answer and all %d: %v", m != nil, listed, len(list.Data), tt.want)
			}
			if tt.want && m[1] != strings.TrimSpace(answer) {
				t.Errorf("the page carries %s, want the contract path's answer %s", m[1], answer)
			}
			// The app reads it in Go's first run, in one pass (docs/performance.md#the-lists-read-in-one-pass).
			if _, ok := venueapi.FastContracts([]byte(answer)); tt.want && !ok {
				t.Errorf("the contract path's answer is not one venueapi.FastContracts reads: the app would read it with encoding/json")
			}
		})
	}
}
