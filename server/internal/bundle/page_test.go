package bundle

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

var tagRE = regexp.MustCompile(`<[a-z]+[^<>]*>`)

// inAnyAttrOrder is page with each tag's attributes sorted: go-app writes
// them in no fixed order, so two renders of a page differ in nothing else.
func inAnyAttrOrder(page string) string {
	return tagRE.ReplaceAllStringFunc(page, func(tag string) string {
		return "<" + sortedAttrs([]string{tag})[0] + ">"
	})
}

// A page comes in the coding the browser weighs highest, the same page once
// decoded, with a weak ETag of what it is made of and its coding: asked again
// with it (alone, in a list, or weakly), a 304 with the page's own headers; asked with go-app's ETag (its version, which every page
// shares) or once its first data has moved, the page. A page with the
// viewer's tiers, whose age it writes as of now, has no ETag.
func TestPagesComeCompressedAndValidatedByWhatTheyHold(t *testing.T) {
	cfg := Config{Root: builtRoot(t)}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	version := `"` + versionServed(t, cfg) + `"`
	const view = "/?contract_code=ETH-USDT&period=5min"
	list := func(codes ...string) firstdata.ContractsLookup {
		var offers []string
		for _, c := range codes {
			offers = append(offers, `{"contract_code":"`+c+`","face_value":"0.01","price_decimals":2}`)
		}
		answer := `{"data":[` + strings.Join(offers, ",") + `],"private":false}`
		return func() ([]byte, bool) { return []byte(answer), true }
	}
	tiers := firstdata.TiersLookup(func(page firstdata.TiersPage) (venueapi.TierEnvelope, bool) {
		return venueapi.TierEnvelope{Code: 200, Ts: time.Now().Add(-time.Minute).UnixMilli(), Data: []venueapi.Tier{{
			ContractCode: page.Contract, MarginMode: "cross", Tier: 1, MaxLever: decimal.NewFromInt(100),
			MaintenanceMarginRate: decimal.RequireFromString("0.005"), MaxVolume: decimal.NewFromInt(1000), VolumeUnit: "contract",
		}}}, true
	})
	serve := func(contracts firstdata.ContractsLookup, tiers firstdata.TiersLookup, headers map[string]string) *httptest.ResponseRecorder {
		return getWith(withFirstData(h, contracts, tiers), view, headers)
	}
	before, after := list("BTC-USDT", "ETH-USDT"), list("BTC-USDT", "ETH-USDT", "SOL-USDT")
	raw := serve(before, nil, nil)
	if raw.Code != http.StatusOK || raw.Header().Get("Content-Encoding") != "" || !strings.Contains(raw.Body.String(), "</html>") {
		t.Fatalf("no Accept-Encoding: HTTP %d, Content-Encoding %q", raw.Code, raw.Header().Get("Content-Encoding"))
	}
	page := inAnyAttrOrder(raw.Body.String())
	etags := map[string]string{}
	for _, tt := range []struct{ accept, want string }{
		{"", ""},
		{"gzip, deflate, br, zstd", "br"},
		{"gzip", "gzip"},
		{"br;q=0.5, gzip", "gzip"},
		{"identity", ""},
	} {
		t.Run("Accept-Encoding "+tt.accept, func(t *testing.T) {
			headers := func(ifNoneMatch string) map[string]string {
				return map[string]string{"Accept-Encoding": tt.accept, "If-None-Match": ifNoneMatch}
			}
			got := serve(before, nil, headers(""))
			hd := got.Header()
			if got.Code != http.StatusOK || hd.Get("Content-Encoding") != tt.want {
				t.Fatalf("HTTP %d, Content-Encoding %q, want 200 and %q", got.Code, hd.Get("Content-Encoding"), tt.want)
			}
			if !strings.Contains(hd.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary %q does not name Accept-Encoding", hd.Get("Vary"))
			}
			if ct := hd.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q, want text/html; charset=utf-8", ct)
			}
			if n := hd.Get("Content-Length"); n != strconv.Itoa(got.Body.Len()) {
				t.Errorf("Content-Length %s for %d bytes", n, got.Body.Len())
			}
			if tt.want != "" && got.Body.Len() > len(page)/2 {
				t.Errorf("%s: %d bytes for a page of %d", tt.want, got.Body.Len(), len(page))
			}
			if body := inAnyAttrOrder(decoded(t, tt.want, got.Body.Bytes())); body != page {
				t.Fatalf("the page decoded differs from the page sent raw (%d bytes against %d)", len(body), len(page))
			}
			etag := hd.Get("ETag")
			if etag == "" || etag == version {
				t.Fatalf("ETag %q: want one of the page's own, not go-app's version %s, which every page shares", etag, version)
			}
			if !strings.HasPrefix(etag, `W/"`) {
				t.Errorf("ETag %s is strong: two renders of a page differ in the order of attributes", etag)
			}
			ranged := serve(before, nil, map[string]string{"Accept-Encoding": tt.accept, "Range": "bytes=0-9", "If-Range": etag})
			if ranged.Code != http.StatusOK || inAnyAttrOrder(decoded(t, tt.want, ranged.Body.Bytes())) != page {
				t.Errorf("a range If-Range its weak ETag: HTTP %d, want 200 and the whole page", ranged.Code)
			}
			if other, ok := etags[etag]; ok && other != tt.want {
				t.Fatalf("ETag %s serves both %q and %q", etag, other, tt.want)
			}
			etags[etag] = tt.want
			again := serve(before, nil, headers(etag))
			if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("the same page with its ETag: HTTP %d, %d bytes, want 304", again.Code, again.Body.Len())
			}
			// The 304 comes before the page is rendered (notModified), with the
			// headers the page carries.
			for _, k := range []string{"ETag", "Cache-Control", "Vary"} {
				if a, b := again.Header().Values(k), hd.Values(k); strings.Join(a, ",") != strings.Join(b, ",") {
					t.Errorf("the 304's %s %q, the page's %q", k, a, b)
				}
			}
			for _, list := range []string{`"x", ` + etag, `"x",` + strings.TrimPrefix(etag, "W/"), "*"} {
				if got := serve(before, nil, headers(list)); got.Code != http.StatusNotModified {
					t.Errorf("If-None-Match %s: HTTP %d, want 304", list, got.Code)
				}
			}
			if shared := serve(before, nil, headers(version)); shared.Code != http.StatusOK || inAnyAttrOrder(decoded(t, tt.want, shared.Body.Bytes())) != page {
				t.Errorf("with go-app's shared ETag %s: HTTP %d, want the page", version, shared.Code)
			}
			moved := serve(after, nil, headers(etag))
			if moved.Code != http.StatusOK || !strings.Contains(decoded(t, tt.want, moved.Body.Bytes()), ">SOL-USDT</option>") {
				t.Errorf("the contract list moved, the old ETag: HTTP %d, want the page with the new list", moved.Code)
			}
			if e := moved.Header().Get("ETag"); e == etag || e == "" {
				t.Errorf("the contract list moved, the ETag from %s to %q", etag, e)
			}
			withTiers := serve(before, tiers, headers(etag))
			if withTiers.Code != http.StatusOK || !strings.Contains(decoded(t, tt.want, withTiers.Body.Bytes()), `id="tiers-first"`) {
				t.Fatalf("with the viewer's tiers: HTTP %d, want the page with them", withTiers.Code)
			}
			if e, cc := withTiers.Header().Get("ETag"), withTiers.Header().Get("Cache-Control"); e != "" || cc != "private, no-cache" {
				t.Errorf("with the viewer's tiers: ETag %q, Cache-Control %q, want none and private, no-cache", e, cc)
			}
		})
	}
}
