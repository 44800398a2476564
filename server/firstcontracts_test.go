package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// The pages with a contract picker (the chart page, /tiers, /limits) carry
// the contract list, the contract path's answer, to whoever the path answers
// (it is public) on every page load a browser shows, and an embed its
// contract's entry of it; the service worker's shells do not
// (docs/architecture.md).
func TestThePagesWithAPickerCarryTheContractList(t *testing.T) {
	// Behind a trusted proxy, with viewer tokens: private data needs one,
	// the contract list does not.
	s := startServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1/32", "RISKCHART_VIEWER_TOKENS": "first-contracts-viewer-token"})
	get := func(path string, header map[string]string) string {
		t.Helper()
		res, b := s.do(t, http.MethodGet, path, header)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
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
		want   string // "list", "entry" (ETH-USDT's), or "" for nothing
	}{
		{"on loopback", "/?contract_code=ETH-USDT&period=5min", nil, "list"},
		{"the default view", "/", nil, "list"},
		{"through the proxy, without a viewer token", "/?contract_code=ETH-USDT", map[string]string{"X-Forwarded-For": "203.0.113.7"}, "list"},
		{"a page load in a browser", "/", map[string]string{"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"}, "list"},
		{"the shell the service worker keeps", "/", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}, ""},
		{"a view the service worker sends on to the network", "/?contract_code=ETH-USDT", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors", firstdata.NavigationHeader: "1"}, "list"},
		{"the tiers page", "/tiers?contract_code=ETH-USDT", nil, "list"},
		{"the limits page, the shell the service worker keeps", "/limits", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}, ""},
		{"a tiers embed", "/embed/tiers?contract_code=ETH-USDT", nil, "entry"},
		{"a chart embed", "/embed/chart?contract_code=eth-usdt&period=5min", nil, "entry"},
		{"a chart embed, the shell the service worker keeps", "/embed/chart?contract_code=ETH-USDT", map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := get(tt.path, tt.header)
			m := script.FindStringSubmatch(page)
			listed := strings.Count(options.FindString(page), "<option")
			if (tt.want != "") != (m != nil) || (tt.want == "list") != (listed == len(list.Data)) {
				t.Fatalf("the page carries an answer: %v, its picker lists %d contracts; want %q (the list: %d)", m != nil, listed, tt.want, len(list.Data))
			}
			carried := ""
			switch tt.want {
			case "":
				return
			case "list":
				carried = strings.TrimSpace(answer)
			case "entry":
				for _, o := range list.Data {
					if o.Code == "ETH-USDT" {
						b, err := json.Marshal(struct {
							Data []venueapi.Offer `json:"data"`
						}{[]venueapi.Offer{o}})
						if err != nil {
							t.Fatal(err)
						}
						carried = string(b)
					}
				}
			}
			if m[1] != carried {
				t.Errorf("the page carries %s, want %s", m[1], carried)
			}
			// The app reads it in Go's first run, in one pass (docs/startup.md#the-lists-read-in-one-pass).
			if _, ok := venueapi.FastContracts([]byte(m[1])); !ok {
				t.Errorf("the page's answer is not one venueapi.FastContracts reads: the app would read it with encoding/json")
			}
		})
	}
}

// A HEAD of a page answers what its GET would (RFC 9110, 9.3.2): the same
// ETag and Content-Length, the contract list written in as for a GET; and a
// HEAD that revalidates with the GET's ETag is answered 304.
func TestAHeadOfAPageAnswersTheHeadersOfItsGet(t *testing.T) {
	s := startServer(t, nil)
	do := func(method, path string, header map[string]string) *http.Response {
		t.Helper()
		res, _ := s.do(t, method, path, header)
		return res
	}
	for _, path := range []string{"/", "/?contract_code=ETH-USDT&period=5min", "/tiers?contract_code=ETH-USDT", "/limits", "/embed/chart?contract_code=ETH-USDT"} {
		for _, accept := range []string{"identity", "br"} {
			t.Run(path+" "+accept, func(t *testing.T) {
				header := map[string]string{"Accept-Encoding": accept, "Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"}
				get, head := do(http.MethodGet, path, header), do(http.MethodHead, path, header)
				if get.StatusCode != http.StatusOK || head.StatusCode != http.StatusOK {
					t.Fatalf("GET: HTTP %d, HEAD: HTTP %d, want 200", get.StatusCode, head.StatusCode)
				}
				for _, k := range []string{"ETag", "Content-Length", "Content-Encoding", "Cache-Control"} {
					if g, h := get.Header.Get(k), head.Header.Get(k); g != h {
						t.Errorf("%s: GET %q, HEAD %q", k, g, h)
					}
				}
				header["If-None-Match"] = get.Header.Get("ETag")
				if again := do(http.MethodHead, path, header); again.StatusCode != http.StatusNotModified {
					t.Errorf("a HEAD with the GET's ETag %s: HTTP %d, want 304", get.Header.Get("ETag"), again.StatusCode)
				}
			})
		}
	}
}
