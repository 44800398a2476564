package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// bodyIsDarkJS is whether the page's background is dark, and its theme, as
// "dark rgb(…)" or "light rgb(…)".
const bodyIsDarkJS = `(() => {
  const bg = getComputedStyle(document.body).backgroundColor;
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  return (r + g + b < 200 ? "dark " : "light ") + bg + " data-theme=" + document.documentElement.getAttribute("data-theme");
})()`

// TestAPageNamingADarkThemeIsDarkBeforeTheAppRuns: every page, the embeds a
// customer's dark page frames among them, is painted in the theme its URL
// names while app.wasm is held back, and in the other one when it names
// that: on a phone the app runs seconds after the first paint.
func TestAPageNamingADarkThemeIsDarkBeforeTheAppRuns(t *testing.T) {
	s := startServer(t, nil)
	for _, path := range []string{
		"/embed/tiers?contract_code=BTC-USDT",
		"/embed/limits?contract_code=BTC-USDT",
		"/embed/chart?contract_code=BTC-USDT",
		"/tiers?contract_code=ETH-USDT",
		"/limits?contract_code=ETH-USDT",
		"/?contract_code=ETH-USDT",
	} {
		for _, theme := range []string{"dark", "light"} {
			t.Run(path+"&theme="+theme, func(t *testing.T) {
				ctx, _ := openHoldingAppWasm(t, s.URL+path+"&theme="+theme)
				waitFor(t, ctx, `document.readyState === "complete"`)
				got := evalJS[string](t, ctx, bodyIsDarkJS)
				if !strings.HasPrefix(got, theme+" ") || !strings.HasSuffix(got, "data-theme="+theme) {
					t.Errorf("before the app runs the page is %s, want %s", got, theme)
				}
				if !evalJS[bool](t, ctx, `!!document.getElementById("app-wasm-loader")`) {
					t.Fatal("the app ran: the page was not read before it")
				}
			})
		}
	}
}

// TestTheRiskPagesKeepTheViewsZoneAndTheme: /tiers and /limits read ?tz=
// and ?theme= as the chart page does (the panels' times of day in UTC, the
// page dark), and keep them through their links and their contract list,
// in the app, as far as the chart page.
func TestTheRiskPagesKeepTheViewsZoneAndTheme(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, emulation.SetTimezoneOverride("Asia/Shanghai"),
		chromedp.Navigate(s.URL+"/tiers?contract_code=ETH-USDT&tz=utc&theme=dark")); err != nil {
		t.Fatal(err)
	}
	// shows is whether the page is path for contract, dark, with its panel's
	// state line (id) in UTC, in the app.
	shows := func(path, contract, id string) string {
		return fmt.Sprintf(`(() => {
  const u = new URL(location.href), age = document.querySelector("#%s .age");
  return u.pathname === %q && u.searchParams.get("contract_code") === %q && u.searchParams.get("tz") === "utc" && u.searchParams.get("theme") === "dark"
    && document.documentElement.getAttribute("data-theme") === "dark" && !document.getElementById("app-wasm-loader")
    && !!age && / UTC · /.test(age.textContent) && document.querySelector(".risk")?.getAttribute("aria-label")?.endsWith(%q);
})()`, id, path, contract, contract)
	}
	waitFor(t, ctx, shows("/tiers", "ETH-USDT", "tiers-state"))
	if got := evalJS[string](t, ctx, bodyIsDarkJS); !strings.HasPrefix(got, "dark ") {
		t.Errorf("/tiers?theme=dark is %s", got)
	}
	for _, link := range []string{"/", "/tiers", "/limits"} {
		want := link + "?contract_code=ETH-USDT&theme=dark&tz=utc"
		if !evalJS[bool](t, ctx, fmt.Sprintf(`[...document.querySelectorAll("header a")].some((a) => a.getAttribute("href") === %q)`, want)) {
			t.Errorf("the header has no link to %s", want)
		}
	}
	click(t, ctx, `header a[href^="/limits?"]`)
	waitFor(t, ctx, shows("/limits", "ETH-USDT", "limits-state"))
	waitFor(t, ctx, `document.querySelectorAll("#contract-select option").length > 1`)
	choose(t, ctx, "contract-select", "BTC-USDT")
	waitFor(t, ctx, shows("/limits", "BTC-USDT", "limits-state"))
	click(t, ctx, `header a[href^="/?"]`)
	waitFor(t, ctx, `location.pathname === "/" && !document.getElementById("app-wasm-loader") && !!document.getElementById("theme-toggle")`)
	if got := evalJS[string](t, ctx, `document.getElementById("theme-toggle").textContent + " · " + document.getElementById("tz-toggle").textContent + " · " + document.documentElement.getAttribute("data-theme")`); got != "Theme: dark · UTC · dark" {
		t.Errorf("the chart page opened from /limits shows %q, want the theme dark and UTC", got)
	}
}

// TestEveryTextColourReadsOnItsTheme: each colour the stylesheet writes text
// in (the text itself, muted labels, links and the current chip, a rise, a
// fall, a warning) has a contrast of 4.5:1 or more on its theme's
// background (WCAG AA). The candles' own green on white is 3.3:1, and
// their red on the dark background 3.9:1: the text takes a shade off them.
func TestEveryTextColourReadsOnItsTheme(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	for _, theme := range []string{"light", "dark"} {
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?theme="+theme)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.readyState === "complete"`)
		for _, colour := range []string{"--fg", "--muted", "--accent", "--up", "--down", "--warn"} {
			ratio := evalJS[float64](t, ctx, fmt.Sprintf(`(() => {
  const span = document.createElement("span");
  span.id = "zz-colour";
  span.style.color = "var(%s)";
  span.textContent = "x";
  document.body.append(span);
  const ratio = %s("#zz-colour");
  span.remove();
  return ratio;
})()`, colour, contrastJS))
			if ratio < 4.5 {
				t.Errorf("text in %s on the %s theme: %.2f:1, want 4.5:1 or more", colour, theme, ratio)
			}
		}
	}
}
