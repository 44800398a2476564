package bundle

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	webjs "github.com/riskchart/riskchart/web"
)

// TestTheChartPageReadsItsAnswerInline: the head of the chart page and of
// a chart embed carries web/chart-answer.js inline, right after the <link>
// that preloads the KLine answer and before every stylesheet and script
// file, and the hash of what the page carries is one of ScriptSources (the
// gateway's Content-Security-Policy allows it by that hash alone). Pages
// that preload no answer carry no inline script.
func TestTheChartPageReadsItsAnswerInline(t *testing.T) {
	root := builtRoot(t)
	inline := regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/", true},
		{"/?contract_code=ETH-USDT&period=5min", true},
		{"/tiers", false},
		{"/limits", false},
		{"/embed/chart", true},
		{"/embed/chart?contract_code=SOL-USDT&period=1day&theme=dark", true},
		{"/embed/tiers", false},
		{"/embed/limits", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, tc.path)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			head, _, _ := strings.Cut(body, "</head>")
			scripts := inline.FindAllStringSubmatchIndex(head, -1)
			if !tc.want {
				if len(scripts) != 0 {
					t.Errorf("the page carries %d inline scripts, want none", len(scripts))
				}
				return
			}
			if len(scripts) != 1 {
				t.Fatalf("the page carries %d inline scripts, want 1", len(scripts))
			}
			at, text := scripts[0][0], head[scripts[0][2]:scripts[0][3]]
			if text != webjs.ChartAnswerJS {
				t.Errorf("the inline script is %.80q…, want web/chart-answer.js", text)
			}
			before := head[:at]
			link := strings.LastIndex(before, "<link")
			if link < 0 || !strings.Contains(before[link:], `rel="preload"`) || !strings.Contains(before[link:], `href="/sapi/v1/market/history/kline?`) || !strings.HasSuffix(before, ">") {
				t.Errorf("the inline script does not follow the answer's preload: %q", before[max(0, len(before)-200):])
			}
			if strings.Contains(before, "stylesheet") || strings.Contains(before, "<script") {
				t.Error("a stylesheet or a script precedes the inline script")
			}
			sum := sha256.Sum256([]byte(text))
			if hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !slices.Contains(ScriptSources(), hash) {
				t.Errorf("ScriptSources %q lacks the inline script's hash %s", ScriptSources(), hash)
			}
		})
	}
}

// TestWithAnswerReadLeavesOtherPagesAsTheyAre: only a preload <link> in the
// head gets the script.
func TestWithAnswerReadLeavesOtherPagesAsTheyAre(t *testing.T) {
	for _, page := range []string{
		`<html><head><title>x</title></head><body></body></html>`,
		`<html><head><link rel="preload" as="fetch" href="/api/v1/contracts"></head><body></body></html>`,
		`<html><head></head><body><a href="/sapi/v1/market/history/kline?contract_code=X">rel="preload"</a></body></html>`,
		`<html><head><a href="/sapi/v1/market/history/kline?contract_code=X">answer</a></head></html>`,
		`<html><head><link rel="preload" as="fetch" href="/sapi/v1/market/history/kline?contract_code=X"`,
	} {
		if got := string(withAnswerRead([]byte(page))); got != page {
			t.Errorf("withAnswerRead(%q) = %q, want it unchanged", page, got)
		}
	}
	page := `<head><link crossorigin="anonymous" href="/sapi/v1/market/history/kline?contract_code=X&amp;period=1min" as="fetch" rel="preload"><title>x</title></head>`
	want := `<head><link crossorigin="anonymous" href="/sapi/v1/market/history/kline?contract_code=X&amp;period=1min" as="fetch" rel="preload"><script>` + webjs.ChartAnswerJS + `</script><title>x</title></head>`
	if got := string(withAnswerRead([]byte(page))); got != want {
		t.Errorf("withAnswerRead(%q) = %q, want %q", page, got, want)
	}
}

// TestAChartPageWithoutItsTiersNamesWhereTheyAreRead: a chart page of a
// swap carries, in its head, the tier path's URL its head script reads the
// tiers from once the first paint has drawn (web.ChartAnswerJS); no other
// page does: not a future's, not an embed's, not /tiers (which has no such
// script). A page with the tiers written in carries none either (page.go
// writes it only when withFirstTiers did not; TestTheChartPageReadsItsTiersForTheApp
// in server/e2e sees both in a browser).
func TestAChartPageWithoutItsTiersNamesWhereTheyAreRead(t *testing.T) {
	root := builtRoot(t)
	meta := regexp.MustCompile(`<meta name="riskchart-tiers" content="([^"]*)">`)
	for _, tc := range []struct{ path, want string }{
		{"/", "/sapi/v1/position/risk/limit_tier?contract_code=BTC-USDT"},
		{"/?contract_code=eth-usdt&period=5min", "/sapi/v1/position/risk/limit_tier?contract_code=ETH-USDT"},
		{"/?contract_code=BTC-USDT-CQ", ""},
		{"/tiers?contract_code=ETH-USDT", ""},
		{"/limits", ""},
		{"/embed/chart?contract_code=BTC-USDT", ""},
		{"/embed/tiers?contract_code=BTC-USDT", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, tc.path)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			head, _, _ := strings.Cut(body, "</head>")
			got := ""
			if m := meta.FindStringSubmatch(head); m != nil {
				got = m[1]
			}
			if got != tc.want {
				t.Errorf("the page names %q as its tiers' source, want %q", got, tc.want)
			}
			if n := strings.Count(body, `<meta name="riskchart-tiers"`); n > 1 || (n == 1 && tc.want == "") {
				t.Errorf("the page carries %d such names", n)
			}
		})
	}
}
