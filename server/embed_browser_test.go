package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/server/embedlink"
)

// parentPage is a customer's page on another origin (another loopback
// port) that frames an embed route and records the messages it receives.
type parentPage struct {
	srv *httptest.Server
	mu  sync.Mutex
	src string
}

func newParentPage(t *testing.T) *parentPage {
	p := &parentPage{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		src := p.src
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><body>
<iframe id="embed" src="%s" style="width:900px;height:500px"></iframe>
<script>
window.msgs = [];
window.addEventListener("message", e => window.msgs.push({origin: e.origin, data: e.data}));
</script></body></html>`, src)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *parentPage) frame(src string) { p.mu.Lock(); p.src = src; p.mu.Unlock() }

func TestEmbedChartInAnIframeOfAnotherOrigin(t *testing.T) {
	parent := newParentPage(t)
	s := startServer(t, map[string]string{"RISKCHART_FRAME_ANCESTORS": parent.srv.URL})
	parent.frame(s.URL + "/embed/chart?contract_code=BTC-USDT&period=1min&controls=0&parent=" + parent.srv.URL)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(parent.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:ready" && m.data.route === "chart" && m.data.period === "1min")`)
	waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:height" && m.data.height > 100)`)
	if origin := evalJS[string](t, ctx, `window.msgs[0].origin`); origin != s.URL {
		t.Fatalf("message from %q, want the embed's origin %q", origin, s.URL)
	}
	// The parent changes the period without a reload.
	chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`document.getElementById("embed").contentWindow.postMessage({type: "riskchart:set", period: "5min", contract_code: "ETH-USDT"}, %q)`, s.URL), nil))
	waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:ready" && m.data.period === "5min" && m.data.contract_code === "ETH-USDT")`)
	// The candle under the pointer reaches the parent, with the venue's digits.
	if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 450, 200)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:candle" && m.data.candle.id > 0 && typeof m.data.candle.close === "string")`)
	screenshot(t, ctx, "embed-chart-cross-origin")
}

func TestEmbedPanelsInAnIframeOfAnotherOrigin(t *testing.T) {
	parent := newParentPage(t)
	s := startServer(t, map[string]string{"RISKCHART_FRAME_ANCESTORS": parent.srv.URL})
	ctx := newBrowser(t)
	for _, route := range []string{"tiers", "limits"} {
		parent.frame(s.URL + "/embed/" + route + "?contract_code=BTC-USDT&locale=de&parent=" + parent.srv.URL)
		if err := chromedp.Run(ctx, chromedp.Navigate(parent.srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, fmt.Sprintf(`window.msgs.some(m => m.data.type === "riskchart:ready" && m.data.route === %q) && window.msgs.some(m => m.data.type === "riskchart:height")`, route))
	}
	// The locale sets the embed's language (read from the iframe's own origin).
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/tiers?contract_code=BTC-USDT&locale=pt-BR")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.documentElement.lang === "pt-BR"`)
}

func TestEmbedRefusesADisallowedParent(t *testing.T) {
	parent := newParentPage(t)
	s := startServer(t, nil) // frame-ancestors: 'self' only
	parent.frame(s.URL + "/embed/chart?contract_code=BTC-USDT&parent=" + parent.srv.URL)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(parent.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if n := evalJS[int](t, ctx, `window.msgs.length`); n != 0 {
		t.Fatalf("a disallowed parent received %d messages", n)
	}
	res, err := http.Get(s.URL + "/embed/chart")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") || strings.Contains(csp, parent.srv.URL) {
		t.Fatalf("CSP %q", csp)
	}
}

func TestSignedEmbedLinksGrantExactlyTheirScope(t *testing.T) {
	key := strings.Repeat("embed-key-", 4)
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": key})
	var out strings.Builder
	if err := run(context.Background(), []string{"riskchart", "embed-link", "-contracts", "BTC-USDT", "-panels", "tiers", "-ttl", "1h"},
		func(k string) string { return map[string]string{"RISKCHART_EMBED_KEY": key}[k] }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(out.String())
	signer, _ := embedlink.NewSigner([]byte(key))
	expired, _ := signer.Issue(embedlink.Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{"tiers"}, Expires: time.Now().Add(-time.Minute)})
	body, sig, _ := strings.Cut(token, ".")
	tampered := body + "." + strings.Map(func(r rune) rune {
		if r == 'A' {
			return 'B'
		}
		return 'A'
	}, sig[:4]) + sig[4:]
	ctx := newBrowser(t)
	tests := []struct {
		name, path string
		granted    bool
	}{
		{"the link's contract and panel", "/embed/tiers?contract_code=BTC-USDT&embed=" + token, true},
		{"another panel", "/embed/limits?contract_code=BTC-USDT&embed=" + token, false},
		{"another contract", "/embed/tiers?contract_code=ETH-USDT&embed=" + token, false},
		{"an expired link", "/embed/tiers?contract_code=BTC-USDT&embed=" + expired, false},
		{"a tampered link", "/embed/tiers?contract_code=BTC-USDT&embed=" + tampered, false},
		{"no link", "/embed/tiers?contract_code=BTC-USDT", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+tt.path)); err != nil {
				t.Fatal(err)
			}
			if tt.granted {
				waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0`)
				return
			}
			waitFor(t, ctx, `!!document.getElementById("risk-noaccess")`)
			if n := evalJS[int](t, ctx, `document.querySelectorAll("#tier-table tbody tr, #limits-table tbody tr").length`); n != 0 {
				t.Fatalf("%d private rows shown", n)
			}
		})
	}
}

func TestTheEmbedDialogAndTheDemoPage(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=ETH-USDT&period=15min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|15min")
	chromedp.Run(ctx, chromedp.Click("#embed-open", chromedp.ByQuery))
	waitFor(t, ctx, `!!document.getElementById("embed-chart")`)
	snippet := evalJS[string](t, ctx, `document.getElementById("embed-chart").value`)
	if !strings.Contains(snippet, `/embed/chart?contract_code=ETH-USDT&amp;period=15min`) || !strings.HasPrefix(snippet, "<iframe") {
		t.Fatalf("snippet %q", snippet)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/demo")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById("demo-log").textContent.includes("riskchart:ready")`)
	chromedp.Run(ctx, chromedp.Click(`[data-period="1day"]`, chromedp.ByQuery))
	waitFor(t, ctx, `document.getElementById("demo-log").textContent.includes('"period":"1day"')`)
	screenshot(t, ctx, "embed-demo")
}
