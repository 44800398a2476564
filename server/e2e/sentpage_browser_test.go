package e2e

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// jsPageNodes is the page's body as lines, one per node: an element with
// its attributes, sorted, and its form value; a text with its digits as 0
// and its ages as "ago" (the clock and the latest candle move between two
// looks at a page). Left out, each for its reason:
//   - the chart's own element, ECharts' to draw in;
//   - go-app's loader, which leaves as the app runs;
//   - scripts: the data the server writes for the app (the first candles'
//     rules, the contract list, the tiers), which the app adopts and
//     removes, and the first paint's own;
//   - the attributes `selected` and `value`, which the server writes and
//     the app sets as properties instead: the form values compared are the
//     properties; and `data-submit`, the server's mark on its lists for
//     web/app-start.js;
//   - the Install button's place (kept unseen from the first paint, the
//     button's size, so that the button moves nothing when it comes) and
//     the button;
//   - the options of a datalist, which shows nothing until typed into.
const jsPageNodes = `(() => {
  const out = [];
  const skip = (e) => e.id === "app-wasm-loader" || e.id === "install" || e.localName === "script" ||
    e.classList.contains("install-place") || e.classList.contains("chart-boot");
  const walk = (n, depth) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.TEXT_NODE && c.data.trim() !== "") {
        out.push(depth + " #" + c.data.trim().replace(/just now|[0-9]+ ?[a-z]* ago/g, "ago").replace(/[0-9]/g, "0"));
      } else if (c.nodeType === Node.ELEMENT_NODE && !skip(c)) {
        const attrs = [...c.attributes].filter((a) => !["selected", "value", "data-submit"].includes(a.name))
          .map((a) => a.name + "=" + a.value.replace(/[0-9]/g, "0")).sort();
        const form = "value" in c && c.localName !== "li" && c.localName !== "button" ? " value=" + c.value + " checked=" + !!c.checked : "";
        out.push(depth + " " + c.localName + " " + attrs.join(" ") + form);
        if (c.id !== "chart" && c.localName !== "datalist") walk(c, depth + 1);
      }
    }
  };
  walk(document.body, 0);
  return out;
})()`

// TestThePageAsSentIsTheAppsFirstRender: what the server sends, drawn before
// app.wasm runs, is what the app's first render shows, so that the app changes
// nothing on show as it takes the page over (docs/architecture.md, "The page
// before the app"): each page is read with app.wasm held back (and the live
// stream, so that the candles stay), then again as go-app's loader leaves,
// before any of the app's fetches has landed, some on a phone's screen, in a
// zone five and a half hours from UTC (the times of day the server cannot
// write in the reader's zone: web/app-start.js). Only what jsPageNodes leaves
// out, each for its reason, may differ.
func TestThePageAsSentIsTheAppsFirstRender(t *testing.T) {
	const key = "sent-page-e2e-embed-key-0123456789-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": key})
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	getJSON(t, s.URL+venueapi.PathTiers+"?contract_code=BTC-USDT", &env) // the server holds them: the pages carry them
	link := url.QueryEscape(issueLink(t, key, "-contracts", "BTC-USDT", "-panels", "tiers,limits", "-ttl", "1h"))
	watch := whenTheLoaderLeaves(`window.testFirstRender = ` + jsPageNodes + `;`)
	phone := chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)
	kolkata := emulation.SetTimezoneOverride("Asia/Kolkata")
	for _, tc := range []struct {
		path  string
		phone bool
	}{
		{"/?contract_code=BTC-USDT&period=5min", false},
		{"/?contract_code=BTC-USDT&period=5min", true},
		{"/?contract_code=BTC-USDT&period=1min&indicators=ma:7,boll,macd,rsi&theme=dark&tz=utc", false},
		{"/?contract_code=BTC-USDT-CQ&period=4hour", false},
		{"/tiers?contract_code=BTC-USDT", false},
		{"/tiers?contract_code=BTC-USDT", true},
		{"/limits", false},
		{"/embed/chart?contract_code=BTC-USDT&period=5min", false},
		{"/embed/chart?contract_code=ETH-USDT&period=60min&indicators=macd,rsi&theme=dark", true},
		{"/embed/tiers?contract_code=BTC-USDT&embed=" + link, false},
		{"/embed/limits?contract_code=BTC-USDT&embed=" + link, false},
	} {
		path, name := tc.path, tc.path
		if tc.phone {
			name = "a phone: " + path
		}
		t.Run(name, func(t *testing.T) {
			before := []chromedp.Action{watch, kolkata}
			if tc.phone {
				before = append(before, phone)
			}
			ctx, held := openStillHoldingAppWasm(t, s.URL+path, before...)
			waitFor(t, ctx, `document.readyState === "complete"`)
			if strings.Contains(path, "chart") || strings.HasPrefix(path, "/?") {
				waitFor(t, ctx, `performance.getEntriesByName("riskchart:drawn").length > 0`)
			}
			sent := evalJS[[]string](t, ctx, jsPageNodes)
			letAppWasmThrough(t, ctx, held)
			waitFor(t, ctx, `!!window.testFirstRender`)
			app := evalJS[[]string](t, ctx, `window.testFirstRender`)
			if len(sent) < 20 {
				t.Fatalf("the page as sent has %d nodes: not the app's page", len(sent))
			}
			if d := lineDiff(sent, app); d != "" {
				t.Errorf("the app's first render changed the page as sent (- sent, + the app's):\n%s", d)
			}
		})
	}
}

// lineDiff is the lines of a and b that differ, "- " for a's and "+ " for
// b's, the runs they share left out; "" when a and b are the same.
func lineDiff(a, b []string) string {
	// The longest common subsequence, by dynamic programming: pages have a
	// few hundred nodes.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i++
			j++
		case j == len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + a[i] + "\n")
			i++
		default:
			out.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}
