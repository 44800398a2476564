package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/venueapi"
)

// The embeds in a real browser, framed as a customer frames them: by a page
// of another origin (another loopback port) that records every message.

// parentPage is a customer's page on its own origin. "/" frames src in
// iframe#embed and keeps the messages it receives in window.msgs; with
// ?intruders=1, once the embed is ready, it also loads two frames that try to
// command the embed: one of its own origin (not the embed's parent) and one
// of a third origin.
type parentPage struct {
	srv      *httptest.Server
	intruder *httptest.Server // the third origin
	mu       sync.Mutex
	src      string
}

// intruderScript commands the embed (the first frame of the page that frames
// it) to show SOL-USDT 1day, then tells that page it has done so.
const intruderScript = `<!doctype html><script>
parent.frames[0].postMessage({type: "riskchart:set", contract_code: "SOL-USDT", period: "1day"}, "*");
parent.postMessage({type: "intruder:sent", from: location.origin}, "*");
</script>`

func newParentPage(t *testing.T) *parentPage {
	p := &parentPage{}
	p.intruder = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, intruderScript)
	}))
	t.Cleanup(p.intruder.Close)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/intruder" {
			io.WriteString(w, intruderScript)
			return
		}
		p.mu.Lock()
		src := p.src
		p.mu.Unlock()
		intruders := ""
		if r.URL.Query().Get("intruders") == "1" {
			intruders = p.srv.URL + "/intruder " + p.intruder.URL + "/"
		}
		fmt.Fprintf(w, `<!doctype html><html><body>
<iframe id="embed" src="%s" style="width:900px;height:500px"></iframe>
<script>
window.msgs = [];
window.embedLoaded = false;
document.getElementById("embed").addEventListener("load", () => { window.embedLoaded = true; });
const intruders = %q.split(" ").filter(Boolean);
window.addEventListener("message", (e) => {
  window.msgs.push({origin: e.origin, data: e.data});
  if (e.data && e.data.type === "riskchart:ready" && intruders.length) {
    for (const u of intruders.splice(0)) {
      const f = document.createElement("iframe");
      f.src = u;
      document.body.appendChild(f);
    }
  }
});
</script></body></html>`, src, intruders)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// show frames src and opens the parent page in the browser.
func (p *parentPage) show(t *testing.T, ctx context.Context, src, query string) {
	t.Helper()
	p.mu.Lock()
	p.src = src
	p.mu.Unlock()
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/?"+query)); err != nil {
		t.Fatal(err)
	}
}

// tell posts msg (a JavaScript object literal) from the parent to the embed.
func tell(t *testing.T, ctx context.Context, embedOrigin, msg string) {
	t.Helper()
	js := fmt.Sprintf(`document.getElementById("embed").contentWindow.postMessage(%s, %q)`, msg, embedOrigin)
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, nil)); err != nil {
		t.Fatal(err)
	}
}

// waitInFrame waits until js is true inside the framed embed.
func waitInFrame(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	pollInFrame(t, ctx, js, nil)
}

// pollInFrame waits until js is truthy inside the framed embed, and stores
// its value in res (unless nil).
func pollInFrame(t *testing.T, ctx context.Context, js string, res any) {
	t.Helper()
	var frames []*cdp.Node
	if err := chromedp.Run(ctx, chromedp.Nodes("iframe#embed", &frames, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(js, res, chromedp.WithPollingInFrame(frames[0]), chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		t.Fatalf("inside the embed, waiting for %s: %v", js, err)
	}
}

// readyWhere is a JavaScript test that a ready message matching cond (of m) came.
func readyWhere(cond string) string {
	return `window.msgs.some(m => m.data && m.data.type === "riskchart:ready" && (` + cond + `))`
}

// issueLink makes a signed embed link with the server's CLI subcommand.
func issueLink(t *testing.T, key string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(runCommand(t, map[string]string{"RISKCHART_EMBED_KEY": key}, append([]string{"embed-link"}, args...)...))
}

func TestEmbeds(t *testing.T) {
	// One server and one browser for every case: the allowed parent's origin
	// is on the server's list, the other parent's is not.
	parent, stranger := newParentPage(t), newParentPage(t)
	key := strings.Repeat("embed-key-", 4)
	s := startServer(t, map[string]string{"RISKCHART_FRAME_ANCESTORS": parent.srv.URL, "RISKCHART_EMBED_KEY": key})
	link := issueLink(t, key, "-contracts", "BTC-USDT,ETH-USDT", "-panels", "tiers,limits", "-ttl", "1h")
	ctx := newBrowser(t)

	t.Run("each route draws in an iframe of another origin, says ready and its height, and obeys its parent", func(t *testing.T) {
		tests := []struct {
			route, query    string
			ready           string // condition on the first ready message
			drawn           string // inside the embed
			set             string // the parent's command
			readyAfter      string
			drawnAfter      string
			bad, badMessage string // a wrong command and the field its error names
		}{
			{
				route: "chart", query: "period=1min&controls=0",
				ready:      `m.data.route === "chart" && m.data.contract_code === "BTC-USDT" && m.data.period === "1min"`,
				drawn:      `document.querySelector(".kchart").dataset.drawn === "BTC-USDT|1min" && !document.querySelector(".embed-controls")`,
				set:        `{type: "riskchart:set", contract_code: "ETH-USDT", period: "5min", theme: "dark", indicators: "rsi", scale: "log"}`,
				readyAfter: `m.data.contract_code === "ETH-USDT" && m.data.period === "5min"`,
				drawnAfter: `document.querySelector(".kchart").dataset.drawn === "ETH-USDT|5min" && document.documentElement.dataset.theme === "dark" &&
					(o => o.yAxis[0].type === "log" && o.series.some(s => s.name === "RSI 14"))(` + jsChart + `.getOption())`,
				bad: `{type: "riskchart:set", period: "2min"}`, badMessage: "period",
			},
			{
				route: "tiers", query: "controls=0&embed=" + url.QueryEscape(link),
				ready:      `m.data.route === "tiers" && m.data.contract_code === "BTC-USDT" && m.data.access === true`,
				drawn:      `document.querySelectorAll("#tier-table tbody tr").length > 0 && !document.getElementById("risk-noaccess") && !document.getElementById("calculator")`,
				set:        `{type: "riskchart:set", contract_code: "ETH-USDT", theme: "dark"}`,
				readyAfter: `m.data.contract_code === "ETH-USDT" && m.data.access === true`,
				drawnAfter: `!!document.querySelector('aside.risk[aria-label="Risk limits of ETH-USDT"] #tier-table tbody tr') && document.documentElement.dataset.theme === "dark"`,
				bad:        `{type: "riskchart:set", contract_code: "eth-usdt"}`, badMessage: "contract_code",
			},
			{
				route: "limits", query: "embed=" + url.QueryEscape(link),
				ready:      `m.data.route === "limits" && m.data.contract_code === "BTC-USDT" && m.data.access === true`,
				drawn:      `!!document.querySelector('#limits-table tr[data-contract="BTC-USDT"]') && !!document.getElementById("limit-filter")`,
				set:        `{type: "riskchart:set", contract_code: "ETH-USDT"}`,
				readyAfter: `m.data.contract_code === "ETH-USDT" && m.data.access === true`,
				drawnAfter: `!!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]')`,
				bad:        `{type: "riskchart:set", theme: "sepia"}`, badMessage: "theme",
			},
		}
		for _, tt := range tests {
			t.Run(tt.route, func(t *testing.T) {
				parent.show(t, ctx, s.URL+"/embed/"+tt.route+"?contract_code=BTC-USDT&"+tt.query, "")
				waitFor(t, ctx, readyWhere(tt.ready))
				waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:height" && m.data.height > 50)`)
				if bad := evalJS[int](t, ctx, fmt.Sprintf(`window.msgs.filter(m => m.origin !== %q).length`, s.URL)); bad != 0 {
					t.Fatalf("%d messages from another origin than the embed's", bad)
				}
				waitInFrame(t, ctx, tt.drawn)
				// Messages JSON cannot write, and one over the commands'
				// bound, are dropped: before, JSON.stringify's error on the
				// first ended the app, which then obeyed nothing.
				for _, msg := range []string{
					`(() => { const m = {type: "riskchart:set", contract_code: "ETH-USDT"}; m.self = m; return m; })()`,
					`{type: "riskchart:set", contract_code: "ETH-USDT", n: 1n}`,
					`{type: "riskchart:set", contract_code: "ETH-USDT", pad: "x".repeat(1 << 20)}`,
				} {
					tell(t, ctx, s.URL, msg)
				}
				tell(t, ctx, s.URL, tt.set)
				waitFor(t, ctx, readyWhere(tt.readyAfter))
				waitInFrame(t, ctx, tt.drawnAfter)
				tell(t, ctx, s.URL, tt.bad)
				waitFor(t, ctx, fmt.Sprintf(`window.msgs.some(m => m.data.type === "riskchart:error" && m.data.message.includes(%q))`, tt.badMessage))
				screenshot(t, ctx, "embed-"+tt.route+"-cross-origin")
			})
		}
	})

	t.Run("the chart tells its parent the candle under the pointer, in the venue's digits", func(t *testing.T) {
		parent.show(t, ctx, s.URL+"/embed/chart?contract_code=BTC-USDT&period=1min&controls=0", "")
		waitFor(t, ctx, readyWhere(`m.data.route === "chart"`))
		if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 450, 250)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:candle" && m.data.clicked === false && m.data.candle.id > 0)`)
		c := evalJS[map[string]any](t, ctx, `window.msgs.find(m => m.data.type === "riskchart:candle").data.candle`)
		id := int64(c["id"].(float64))
		var want venueapi.Candle
		for _, k := range apiCandles(t, s.URL, "contract_code=BTC-USDT&period=1min&size=300") {
			if k.ID == id {
				want = k
			}
		}
		if want.ID == 0 || c["close"] != want.Close.String() || c["open"] != want.Open.String() || c["trade_turnover"] != want.TradeTurnover.String() {
			t.Fatalf("candle message %v, the venue's candle %+v", c, want)
		}
		// Click the newest candle's body, found through ECharts in the frame.
		var at struct{ X, Y float64 }
		pollInFrame(t, ctx, `(() => {
			const el = document.getElementById("chart"), r = el.getBoundingClientRect(), c = echarts.getInstanceByDom(el);
			const d = c.getOption().series[0].data, i = d.length - 1, v = d[i].value || d[i]; // the newest: ECharts' hidden copy
			const p = c.convertToPixel({seriesIndex: 0}, [i, (v[0] + v[1]) / 2]);
			return p && {X: r.left + p[0], Y: r.top + p[1]};
		})()`, &at)
		off := evalJS[struct{ X, Y float64 }](t, ctx, `(() => { const f = document.getElementById("embed"), r = f.getBoundingClientRect(); return {X: r.left + f.clientLeft, Y: r.top + f.clientTop}; })()`)
		if err := chromedp.Run(ctx, chromedp.MouseClickXY(off.X+at.X, off.Y+at.Y)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `window.msgs.some(m => m.data.type === "riskchart:candle" && m.data.clicked === true)`)
	})

	t.Run("an embed obeys its parent only, not another frame of the parent's or a third origin", func(t *testing.T) {
		parent.show(t, ctx, s.URL+"/embed/chart?contract_code=BTC-USDT&period=1min", "intruders=1")
		waitFor(t, ctx, `window.msgs.filter(m => m.data.type === "intruder:sent").length === 2`)
		tell(t, ctx, s.URL, `{type: "riskchart:set", contract_code: "ETH-USDT"}`)
		// Messages of one page are handled in order: had an intruder been
		// obeyed, this ready would name its period.
		waitFor(t, ctx, readyWhere(`m.data.contract_code === "ETH-USDT"`))
		if got := evalJS[string](t, ctx, readyList); got != "BTC-USDT 1min,ETH-USDT 1min" {
			t.Fatalf("ready messages %q: an intruder was obeyed", got)
		}
		waitInFrame(t, ctx, `document.querySelector(".kchart").dataset.drawn === "ETH-USDT|1min"`)
	})

	t.Run("a parent not on the list cannot frame an embed", func(t *testing.T) {
		stranger.show(t, ctx, s.URL+"/embed/chart?contract_code=BTC-USDT&parent="+url.QueryEscape(stranger.srv.URL), "")
		waitFor(t, ctx, `window.embedLoaded`)
		var tree *page.FrameTree
		if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) (err error) {
			tree, err = page.GetFrameTree().Do(ctx)
			return err
		})); err != nil {
			t.Fatal(err)
		}
		if len(tree.ChildFrames) != 1 || strings.HasPrefix(tree.ChildFrames[0].Frame.URL, s.URL) {
			t.Fatalf("the framed document is %q: the browser showed the embed", tree.ChildFrames[0].Frame.URL)
		}
		if n := evalJS[int](t, ctx, `window.msgs.length`); n != 0 {
			t.Fatalf("a disallowed parent received %d messages", n)
		}
		res, err := http.Get(s.URL + "/embed/chart")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self' "+parent.srv.URL) || strings.Contains(csp, stranger.srv.URL) {
			t.Fatalf("CSP %q", csp)
		}
	})

	t.Run("a signed embed link grants exactly its scope, and nothing once expired or tampered with", func(t *testing.T) {
		narrow := issueLink(t, key, "-contracts", "BTC-USDT", "-panels", "tiers", "-ttl", "1h")
		signer, err := embedlink.NewSigner([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		expired, err := signer.Issue(embedlink.Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{"tiers"}, Expires: time.Now().Add(-time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		body, sig, _ := strings.Cut(narrow, ".")
		widened, _, _ := strings.Cut(link, ".")
		otherKey, _ := embedlink.NewSigner([]byte(strings.Repeat("other-key-", 4)))
		foreign, _ := otherKey.Issue(embedlink.Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{"tiers"}, Expires: time.Now().Add(time.Hour)})
		tests := []struct {
			name, route, contract, token string
			granted                      bool
		}{
			{"its contract and panel", "tiers", "BTC-USDT", narrow, true},
			{"another panel", "limits", "BTC-USDT", narrow, false},
			{"another contract", "tiers", "ETH-USDT", narrow, false},
			{"an expired link", "tiers", "BTC-USDT", expired, false},
			{"a tampered signature", "tiers", "BTC-USDT", body + "." + flipFirst(sig), false},
			{"a wider scope under its signature", "limits", "BTC-USDT", widened + "." + sig, false},
			{"another key's link", "tiers", "BTC-USDT", foreign, false},
			{"no link", "tiers", "BTC-USDT", "", false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				// The server's answer to the embed's own call.
				req, _ := http.NewRequest(http.MethodGet, s.URL+venueapi.PathTiers+"?contract_code="+tt.contract, nil)
				if tt.route == "limits" {
					req, _ = http.NewRequest(http.MethodPost, s.URL+venueapi.PathPositionLimit, strings.NewReader(`{"contract_code":"`+tt.contract+`"}`))
					req.Header.Set("Content-Type", "application/json")
				}
				req.Header.Set("X-Riskchart-Embed", tt.token)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				answer, _ := io.ReadAll(res.Body)
				res.Body.Close()
				// A refusal is the venue's: HTTP 200 with code 403 in the envelope.
				var env struct {
					Code   int    `json:"code"`
					Status string `json:"status"`
				}
				json.Unmarshal(answer, &env)
				if granted := res.StatusCode == http.StatusOK && (env.Code == venueapi.CodeOK || env.Status == venueapi.StatusOK); granted != tt.granted {
					t.Fatalf("HTTP %d %s, granted %v", res.StatusCode, answer, tt.granted)
				}
				// What the framed panel shows.
				parent.show(t, ctx, s.URL+"/embed/"+tt.route+"?contract_code="+tt.contract+"&embed="+url.QueryEscape(tt.token), "")
				waitFor(t, ctx, readyWhere(fmt.Sprintf(`m.data.route === %q && m.data.access === %v`, tt.route, tt.granted)))
				if tt.granted {
					waitInFrame(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && !document.getElementById("risk-noaccess")`)
					return
				}
				waitInFrame(t, ctx, `!!document.getElementById("risk-noaccess") && document.querySelectorAll("#tier-table tbody tr, #limits-table tbody tr").length === 0`)
			})
		}
	})

	t.Run("a tiers embed whose link leaves out the limits reckons at a typed entry price", func(t *testing.T) {
		// The calculator's mark price comes with the limits, which this link does
		// not grant (docs/calculator.md, "The price the figures are at").
		narrow := issueLink(t, key, "-contracts", "BTC-USDT", "-panels", "tiers", "-ttl", "1h")
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/tiers?contract_code=BTC-USDT&embed="+url.QueryEscape(narrow))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && document.getElementById("calc-status")?.textContent.includes("type an entry price")`)
		if p := evalJS[string](t, ctx, `document.getElementById("calc-entry").placeholder`); p != "required" {
			t.Errorf("the entry price's placeholder reads %q", p)
		}
		typeInto(ctx, "calc-size", "6000")
		typeInto(ctx, "calc-entry", "100000")
		value := decimal.NewFromInt(6000).Mul(faceValue(t, s.URL, "BTC-USDT")).Mul(decimal.NewFromInt(100000))
		want := "6,000 cont · " + chartopt.Group(value.String()) + " USDT at entry 100,000"
		waitFor(t, ctx, fmt.Sprintf(`document.getElementById("calc-position")?.textContent === %q && !document.getElementById("calc-status")`, want))
		for id, part := range map[string]string{
			"calc-at-entry":   "not shared with this page: the figures are at the entry price you typed",
			"calc-fits-long":  "unknown: your limits are not shared with this page",
			"calc-margin-how": "× 100,000 entry,",
		} {
			if text := evalJS[string](t, ctx, fmt.Sprintf(`document.getElementById(%q)?.textContent ?? ""`, id)); !strings.Contains(text, part) {
				t.Errorf("#%s reads %q, want it to hold %q", id, text, part)
			}
		}
		// The calculator tells the table its tier, as it does at the mark price.
		waitFor(t, ctx, `!!document.querySelector("#tier-table tr.current")`)
	})

	t.Run("the main page's Embed dialog writes the snippet of the view on show", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=ETH-USDT&period=15min&theme=dark")); err != nil {
			t.Fatal(err)
		}
		waitDrawn(t, ctx, "ETH-USDT|15min")
		if err := chromedp.Run(ctx, chromedp.Click("#embed-open", chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `!!document.getElementById("embed-chart")`)
		want := `<iframe src="` + s.URL + `/embed/chart?contract_code=ETH-USDT&amp;period=15min&amp;theme=dark"`
		if got := evalJS[string](t, ctx, `document.getElementById("embed-chart").value`); !strings.HasPrefix(got, want) {
			t.Fatalf("snippet %q, want it to begin %q", got, want)
		}
		if err := chromedp.Run(ctx, chromedp.Click("#embed-no-picker", chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		if err := typeInto(ctx, "embed-link", link); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, fmt.Sprintf(`document.getElementById("embed-tiers").value.includes("controls=0") && document.getElementById("embed-tiers").value.includes(%q)`,
			"embed="+url.QueryEscape(link)))
		screenshot(t, ctx, "embed-dialog")
		snippet := evalJS[string](t, ctx, `document.getElementById("embed-tiers").value`)
		// Copy puts the snippet shown on the clipboard, with the choices made
		// since the dialog opened.
		if err := chromedp.Run(ctx, browser.GrantPermissions([]browser.PermissionType{browser.PermissionTypeClipboardReadWrite,
			browser.PermissionTypeClipboardSanitizedWrite}).WithOrigin(s.URL)); err != nil {
			t.Fatal(err)
		}
		click(t, ctx, `button[data-copy="tiers"]`)
		waitFor(t, ctx, `document.querySelector('button[data-copy="tiers"]').textContent === "Copied"`)
		copied := ""
		for deadline := time.Now().Add(2 * time.Second); copied != snippet && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			copied = evalAwait[string](t, ctx, `navigator.clipboard.readText()`)
		}
		if copied != snippet {
			t.Fatalf("Copy put %q on the clipboard, want the snippet shown, %q", copied, snippet)
		}
		// The snippet, pasted into the allowed customer's page, works.
		src := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(snippet[:strings.Index(snippet, `" title=`)], `<iframe src="`), `"`), "&amp;", "&")
		parent.show(t, ctx, src, "")
		waitFor(t, ctx, readyWhere(`m.data.route === "tiers" && m.data.contract_code === "ETH-USDT" && m.data.access === true`))
	})

	t.Run("the demo page embeds the three routes as a customer would", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/demo?link="+url.QueryEscape(link))); err != nil {
			t.Fatal(err)
		}
		for _, route := range []string{"chart", "tiers", "limits"} {
			waitFor(t, ctx, fmt.Sprintf(`document.getElementById("demo-log").textContent.includes(%q)`, route+` {"type":"riskchart:ready","route":"`+route+`"`))
		}
		waitFor(t, ctx, `document.getElementById("demo-log").textContent.includes('"access":true')`)
		// The panels are sized from their height messages.
		waitFor(t, ctx, `document.getElementById("demo-tiers").style.height !== ""`)
		if err := chromedp.Run(ctx, chromedp.Click(`[data-period="1day"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.getElementById("demo-log").textContent.includes('"period":"1day"')`)
		if err := chromedp.Run(ctx, chromedp.Click(`[data-contract="ETH-USDT"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.getElementById("demo-log").textContent.includes('limits {"type":"riskchart:ready","route":"limits","contract_code":"ETH-USDT","access":true}')`)
		screenshot(t, ctx, "embed-demo")
	})

	t.Run("the locale sets the embed's language", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/tiers?contract_code=BTC-USDT&locale=pt-BR")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.documentElement.lang === "pt-BR"`)
	})
}

// readyList lists the ready messages received as "contract period".
const readyList = `window.msgs.filter(m => m.data.type === "riskchart:ready").map(m => m.data.contract_code + " " + m.data.period).join(",")`

// flipFirst changes the first character of s.
func flipFirst(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// TestTheEmbedDialogOpensUnderItsButton opens the main page's Embed dialog
// on a wide screen (the header one row), a laptop's (two rows) and a phone
// (the button in a strip that scrolls sideways): the dialog starts under
// the button, whatever the header's height, fits the window, and leaves
// the button in view, so that a click on it closes the dialog again.
func TestTheEmbedDialogOpensUnderItsButton(t *testing.T) {
	s := startServer(t, nil)
	for _, screen := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"wide", 1920, 1080, false}, {"laptop", 1280, 760, false}, {"phone", 390, 844, true}} {
		t.Run(screen.name, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(screen.width, screen.height, 1, screen.mobile),
				chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT")); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|1min")
			waitFor(t, ctx, `performance.getEntriesByName("riskchart:mounted").length > 0`) // the button is the app's
			do(t, ctx, `document.getElementById("embed-open").scrollIntoView({block: "nearest", inline: "nearest"})`)
			click(t, ctx, "#embed-open")
			waitFor(t, ctx, `document.querySelectorAll("#embed-dialog textarea").length === 3`)
			got := evalJS[string](t, ctx, `(() => {
  const b = document.getElementById("embed-open").getBoundingClientRect(), d = document.getElementById("embed-dialog").getBoundingClientRect();
  const out = [];
  if (d.top < b.bottom - 0.5) out.push("the dialog starts at " + Math.round(d.top) + ", over its button, which ends at " + Math.round(b.bottom));
  if (d.left < 0 || d.right > innerWidth || d.bottom > innerHeight) out.push("the dialog " + [d.left, d.top, d.right, d.bottom].map(Math.round) + " leaves the window " + innerWidth + "×" + innerHeight);
  const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
  if (hit?.id !== "embed-open") out.push("the button's centre shows " + (hit?.id || hit?.tagName));
  return out.join("; ");
})()`)
			if got != "" {
				screenshot(t, ctx, "embed-dialog-"+screen.name)
				t.Fatal(got)
			}
			click(t, ctx, "#embed-open")
			waitFor(t, ctx, `!document.getElementById("embed-dialog")`)
		})
	}
}
