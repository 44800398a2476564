package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

// overflowJS lists what in the risk panels is wider than its box: a panel,
// a section, a table's scroll box or a form control whose text is cut. An
// empty list is a panel that fits.
const overflowJS = `(() => {
  const out = [];
  const risk = document.querySelector(".risk");
  if (!risk) return ["no .risk panel"];
  const edge = risk.getBoundingClientRect().right + 1;
  for (const el of [risk, ...risk.querySelectorAll("section, .table-scroll, dl, form")]) {
    if (el.scrollWidth > el.clientWidth + 1) out.push((el.id || el.className || el.tagName) + " scrolls " + el.scrollWidth + " > " + el.clientWidth);
  }
  for (const el of risk.querySelectorAll("th, td, dd, dt, p, label, input, select, button")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > edge) out.push((el.id || el.className || el.tagName) + " ends at " + Math.round(r.right) + " > " + Math.round(edge) + ": " + el.textContent.slice(0, 40));
  }
  const c = document.createElement("canvas").getContext("2d");
  for (const s of risk.querySelectorAll("select")) {
    const cs = getComputedStyle(s);
    c.font = cs.font;
    const text = s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : "";
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    if (c.measureText(text).width > room + 1) out.push(s.id + " cuts " + JSON.stringify(text) + ": " + Math.round(c.measureText(text).width) + " > " + Math.round(room));
  }
  return out;
})()`

func sandboxContracts(t *testing.T, base string) []venueapi.Offer {
	t.Helper()
	var list struct {
		Data []venueapi.Offer `json:"data"`
	}
	getJSON(t, base+venueapi.PathContracts, &list)
	if len(list.Data) == 0 {
		t.Fatal("the server lists no contracts")
	}
	return list.Data
}

// TestRiskPanelsFitTheirBoxAtEveryWidth: at 320 to 1920 px, for every
// contract the sandbox lists, no part of the tiers, limits or calculator is
// wider than its box, on the chart page's side panel, /tiers and /limits,
// with the calculator's answer drawn (its longest text).
func TestRiskPanelsFitTheirBoxAtEveryWidth(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	contracts := sandboxContracts(t, s.URL)
	for _, width := range []int64{320, 390, 768, 1280, 1920} {
		for _, page := range []string{"/", "/tiers", "/limits"} {
			t.Run(fmt.Sprintf("%d px %s", width, page), func(t *testing.T) {
				if err := chromedp.Run(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(s.URL+page+"?contract_code="+contracts[0].Code)); err != nil {
					t.Fatal(err)
				}
				// The app runs (go-app's loader is gone): the picker is its own. The
				// server's, which lists every contract too, navigates on a choice.
				waitFor(t, ctx, fmt.Sprintf(`document.querySelector(".risk")?.getAttribute("aria-label") === "Risk limits of %s" && document.querySelectorAll("#contract-select option").length > 1 && !document.getElementById("app-wasm-loader")`, contracts[0].Code))
				for _, c := range contracts {
					choose(t, ctx, "contract-select", c.Code)
					code, _ := venueapi.ParseContractCode(c.Code)
					swap := code.Kind == venueapi.KindSwap
					switch {
					case page != "/limits" && swap:
						waitFor(t, ctx, fmt.Sprintf(`document.querySelector(".risk")?.getAttribute("aria-label") === "Risk limits of %s" && document.querySelectorAll("#tier-table tbody tr").length > 0 && !!document.getElementById("calc-size")`, c.Code))
						typeInto(ctx, "calc-leverage", "150")
						typeInto(ctx, "calc-size", "12,345")
						waitFor(t, ctx, `!!document.getElementById("calc-liq") || !!document.getElementById("calc-error-size")`)
					case page != "/tiers":
						waitFor(t, ctx, fmt.Sprintf(`document.querySelector(".risk")?.getAttribute("aria-label") === "Risk limits of %s" && document.querySelectorAll("#limits-table tbody tr").length > 0`, c.Code))
					default:
						waitFor(t, ctx, fmt.Sprintf(`document.querySelector(".risk")?.getAttribute("aria-label") === "Risk limits of %s"`, c.Code))
					}
					if bad := evalJS[[]string](t, ctx, overflowJS); len(bad) > 0 {
						screenshot(t, ctx, fmt.Sprintf("risk-overflow-%d-%s-%s", width, strings.Trim(page, "/"), c.Code))
						t.Errorf("%s at %d px on %s: %s", c.Code, width, page, strings.Join(bad, "; "))
					}
				}
			})
		}
	}
}

// TestCalculatorAnswersWhatATraderAsks drives the calculator on the sandbox's
// BTC-USDT (tier 1 to 5200 contracts at 200×, tier 2 at 100×).
func TestCalculatorAnswersWhatATraderAsks(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	tiers := apiTiers(t, s.URL, "BTC-USDT")
	if !tiers[0].MaxVolume.Equal(decimal.NewFromInt(5200)) || !tiers[1].MaxLever.Equal(decimal.NewFromInt(100)) {
		t.Fatalf("the sandbox's BTC-USDT ladder changed: %+v", tiers[:2])
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/tiers?contract_code=BTC-USDT")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.getElementById("calc-hint") && !document.getElementById("calc-status")`)
	if hint := evalJS[string](t, ctx, `document.getElementById("calculator").textContent`); strings.Contains(hint, "1.5") {
		t.Errorf("the calculator suggests 1.5 contracts, which it refuses: %q", hint)
	}
	margin := func(size string) decimal.Decimal {
		typeInto(ctx, "calc-size", size)
		conts := chartopt.Group(decimal.RequireFromString(strings.ReplaceAll(size, ",", "")).String())
		waitFor(t, ctx, fmt.Sprintf(`document.getElementById("calc-position")?.textContent.startsWith(%q)`, conts+" cont"))
		return numberIn(t, evalJS[string](t, ctx, `document.getElementById("calc-margin").textContent`))
	}
	typeInto(ctx, "calc-leverage", "20")

	t.Run("the maintenance margin does not jump at a tier's edge", func(t *testing.T) {
		below, above := margin("5200"), margin("5201")
		mark := numberIn(t, strings.TrimSpace(evalJS[string](t, ctx, `document.getElementById("calc-position").textContent.split("at mark ")[1]`)))
		// one contract more costs at most one contract's value × tier 2's rate (plus rounding)
		step := mark.Mul(decimal.RequireFromString("0.001")).Mul(tiers[1].MaintenanceMarginRate).Add(decimal.RequireFromString("0.0002"))
		if d := above.Sub(below); d.IsNegative() || d.GreaterThan(step) {
			t.Errorf("5200 → 5201 contracts: %s → %s USDT, a step of %s (at most %s)", below, above, d, step)
		}
		if how := evalJS[string](t, ctx, `document.getElementById("calc-margin-how").textContent`); !strings.Contains(how, "5.2 cont (tier 2's maint. amount)") {
			t.Errorf("the formula shown: %q", how)
		}
		if places := strings.SplitN(above.String(), ".", 2); len(places) == 2 && len(places[1]) > 4 {
			t.Errorf("margin %s has more than 4 decimals", above)
		}
	})

	t.Run("initial margin and liquidation estimates are shown", func(t *testing.T) {
		margin("5201")
		for _, id := range []string{"calc-initial", "calc-liq-long", "calc-liq-short"} {
			if got := evalJS[string](t, ctx, fmt.Sprintf(`document.getElementById(%q)?.textContent || ""`, id)); got == "" {
				t.Errorf("no %s", id)
			}
		}
		if label := evalJS[string](t, ctx, `document.getElementById("calc-result").textContent`); !strings.Contains(label, "isolated estimate") {
			t.Errorf("the liquidation price is not labelled an isolated estimate: %q", label)
		}
	})

	t.Run("the entry price and the margin typed are the estimate's", func(t *testing.T) {
		margin("5201")
		typeInto(ctx, "calc-entry", "90000")
		typeInto(ctx, "calc-margin-in", "30000")
		waitFor(t, ctx, `document.getElementById("calc-liq-how")?.textContent.startsWith(" at entry 90,000 with 30,000 USDT of margin")`)
		typeInto(ctx, "calc-entry", "")
		typeInto(ctx, "calc-margin-in", "")
		waitFor(t, ctx, `!document.getElementById("calc-liq-how")?.textContent.startsWith(" at entry 90,000")`)
	})

	t.Run("at 150× a tier-2 position does not fit", func(t *testing.T) {
		typeInto(ctx, "calc-leverage", "150")
		margin("6000")
		waitFor(t, ctx, `!!document.getElementById("calc-warning")`)
		for _, id := range []string{"calc-fits-long", "calc-fits-short"} {
			if got := evalJS[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).textContent`, id)); !strings.HasPrefix(got, "exceeds the limit at 150× of 5,200 cont") {
				t.Errorf("%s: %q", id, got)
			}
		}
		typeInto(ctx, "calc-leverage", "20")
	})

	t.Run("sizes are read as people type them", func(t *testing.T) {
		for _, in := range []string{"1,000", "1000.", "1e3"} {
			margin(in) // waits for "1000 cont"
		}
	})

	t.Run("messages start with words a trader reads", func(t *testing.T) {
		for _, tc := range []struct{ in, want string }{
			{"1.5", "Position size in contracts must be a whole number, like 15"},
			{"1,5", "Position size has a comma that is not a thousands mark"},
			{"99999999", "Position size is beyond the last tier (tier 8 ends at"},
		} {
			typeInto(ctx, "calc-size", tc.in)
			waitFor(t, ctx, fmt.Sprintf(`document.getElementById("calc-error-size")?.textContent.startsWith(%q)`, tc.want))
		}
	})
}

// TestRiskPagesPickersCaseAndUnknownContracts: the pages take any letter
// case, offer a picker, and say one thing for a contract the venue does not
// list, without waiting for ever.
func TestRiskPagesPickersCaseAndUnknownContracts(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)

	t.Run("a lowercase code is the venue's code", func(t *testing.T) {
		navigate(t, ctx, s.URL+"/limits?contract_code=btc-usdt-cq")
		waitFor(t, ctx, `document.querySelector(".risk")?.getAttribute("aria-label") === "Risk limits of BTC-USDT-CQ" && !document.getElementById("risk-page-error")`)
	})

	t.Run("the picker moves the page to another contract", func(t *testing.T) {
		navigate(t, ctx, s.URL+"/tiers?contract_code=BTC-USDT")
		waitFor(t, ctx, `document.querySelectorAll("#contract-select option").length > 1 && !!document.getElementById("contract-form") && !document.getElementById("app-wasm-loader")`)
		choose(t, ctx, "contract-select", "SOL-USDT")
		waitFor(t, ctx, `location.search === "?contract_code=SOL-USDT" && document.querySelector(".risk")?.getAttribute("aria-label") === "Risk limits of SOL-USDT"`)
		typeInto(ctx, "contract-input", "eth-usdt")
		click(t, ctx, "#contract-form button")
		waitFor(t, ctx, `location.search === "?contract_code=ETH-USDT"`)
	})

	for _, page := range []string{"/tiers", "/limits", "/"} {
		t.Run("an unknown contract on "+page, func(t *testing.T) {
			navigate(t, ctx, s.URL+page+"?contract_code=ABC-USDT")
			waitFor(t, ctx, `document.getElementById("risk-unknown")?.textContent === "The venue does not know the contract ABC-USDT."`)
			if text := evalJS[string](t, ctx, `document.querySelector(".risk").textContent`); strings.Contains(text, "waiting") || strings.Contains(text, "Loading") {
				t.Errorf("the panel still waits: %q", text)
			}
		})
	}

	t.Run("the embed dialog offers no snippet for an unknown contract", func(t *testing.T) {
		navigate(t, ctx, s.URL+"/?contract_code=ABC-USDT")
		waitFor(t, ctx, `!!document.getElementById("risk-unknown")`) // the app runs: the button is its own, not the prerendered one
		click(t, ctx, "#embed-open")
		waitFor(t, ctx, `document.getElementById("embed-unknown")?.textContent.startsWith("The venue does not know the contract ABC-USDT.") && !document.querySelector("#embed-dialog textarea")`)
		click(t, ctx, "#embed-open") // closed
		navigate(t, ctx, s.URL+"/?contract_code=BTC-USDT")
		// The tier rows may be the page's own (prerendered from the server's
		// cache): the dialog is the app's, so wait for the app too.
		waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && performance.getEntriesByName("riskchart:mounted").length > 0`)
		click(t, ctx, "#embed-open")
		waitFor(t, ctx, `document.querySelectorAll("#embed-dialog textarea").length === 3 && !document.getElementById("embed-unknown")`)
	})
}

// TestNoAccessPanelsDrawNoEmptyTable: a server without a venue key says so
// once, and draws no table header over nothing.
func TestNoAccessPanelsDrawNoEmptyTable(t *testing.T) {
	venueURL, _ := sandboxtest.Start(t, sandbox.Config{})
	s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": venueURL})
	ctx := newBrowser(t)
	for _, page := range []string{"/tiers", "/limits"} {
		navigate(t, ctx, s.URL+page+"?contract_code=BTC-USDT")
		waitFor(t, ctx, `!!document.getElementById("risk-noaccess") && !!(document.getElementById("tiers-noaccess") || document.getElementById("limits-noaccess"))`)
		if n := evalJS[int](t, ctx, `document.querySelectorAll(".risk table, .risk th").length`); n != 0 {
			t.Errorf("%s: %d table parts drawn without access", page, n)
		}
	}
}

// misalignedJS lists the columns of the risk tables whose header is not
// aligned as their cells are (a number right, a name left), and the row
// headers that do not sit in their row as its cells do. An empty list is
// tables whose headers line up.
const misalignedJS = `(() => {
  const out = [];
  const side = (el) => { const a = getComputedStyle(el).textAlign; return {start: "left", end: "right"}[a] || a; };
  for (const table of document.querySelectorAll("#tier-table, #limits-table")) {
    const heads = table.querySelectorAll("thead th");
    const row = table.querySelector("tbody tr:not(.empty)");
    if (!row || heads.length !== row.cells.length) { out.push(table.id + ": " + heads.length + " headers for " + (row ? row.cells.length : 0) + " cells"); continue; }
    heads.forEach((th, i) => {
      if (side(th) !== side(row.cells[i])) out.push(table.id + " " + JSON.stringify(th.textContent) + ": header " + side(th) + ", cells " + side(row.cells[i]));
    });
    for (const th of table.querySelectorAll("tbody th")) {
      const want = getComputedStyle(th.parentElement.querySelector("td")).verticalAlign, got = getComputedStyle(th).verticalAlign;
      if (got !== want) out.push(table.id + " row " + JSON.stringify(th.textContent) + ": " + got + ", cells " + want);
    }
  }
  return out;
})()`

// TestRiskTablesHeadersSitOverTheirColumns: on /tiers and /limits, wide
// enough for the tables (not the narrow panel's cards), a number's header is
// right-aligned as its numbers are, and a contract's name sits in its row as
// the numbers beside it do.
func TestRiskTablesHeadersSitOverTheirColumns(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ page, table string }{
		{"/tiers?contract_code=BTC-USDT", "#tier-table"},
		{"/limits?contract_code=ETH-USDT", "#limits-table"},
	} {
		navigate(t, ctx, s.URL+tc.page)
		waitFor(t, ctx, fmt.Sprintf(`document.querySelectorAll("%s tbody tr").length > 0 && !document.getElementById("app-wasm-loader")`, tc.table))
		if bad := evalJS[[]string](t, ctx, misalignedJS); len(bad) > 0 {
			screenshot(t, ctx, "risk-headers-"+strings.Trim(tc.table, "#"))
			t.Errorf("%s: %s", tc.page, strings.Join(bad, "; "))
		}
	}
}

// TestPublicTiersReachEmbedsWithoutALink: with RISKCHART_PUBLIC_TIERS on, a
// tiers embed without a signed link shows the ladder (and, with controls=0,
// no calculator and no word of it); off, it shows the refusal.
func TestPublicTiersReachEmbedsWithoutALink(t *testing.T) {
	ctx := newBrowser(t)
	for _, tc := range []struct {
		public string
		shown  bool
	}{{"true", true}, {"false", false}} {
		t.Run("RISKCHART_PUBLIC_TIERS="+tc.public, func(t *testing.T) {
			s := startServer(t, map[string]string{"RISKCHART_PUBLIC_TIERS": tc.public})
			navigate(t, ctx, s.URL+"/embed/tiers?contract_code=BTC-USDT&controls=0")
			if !tc.shown {
				waitFor(t, ctx, `!!document.getElementById("risk-noaccess") && !document.querySelector("#tier-table")`)
				return
			}
			waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length === 8`)
			if text := evalJS[string](t, ctx, `document.getElementById("embed-root").textContent`); strings.Contains(text, "Highlighted") || strings.Contains(text, "Calculator") {
				t.Errorf("controls=0 still speaks of the calculator: %q", text)
			}
			navigate(t, ctx, s.URL+"/embed/limits?contract_code=BTC-USDT")
			waitFor(t, ctx, `!!document.getElementById("risk-noaccess") && !document.querySelector("#limits-table")`)
		})
	}
}

// TestHeaderChipsCentreTheirLabelsOnAPhone: on a phone the header is two
// rows of controls, each row's controls one height on one line, its chips
// are 44 px touch targets, and each label sits in the middle of its chip
// or button: links (the risk pages' Tiers, Limits, Chart) as buttons (the
// periods), and the Studies menu's disclosure as the buttons beside it.
func TestHeaderChipsCentreTheirLabelsOnAPhone(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	for _, page := range []string{"/tiers?contract_code=ETH-USDT", "/limits?contract_code=ETH-USDT", "/?contract_code=ETH-USDT"} {
		t.Run(page, func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Emulate(device.IPhone12), chromedp.Navigate(s.URL+page)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!document.getElementById("app-wasm-loader") && document.querySelectorAll(".bar .chip").length > 0`)
			off := evalJS[[]string](t, ctx, `[...document.querySelectorAll(".bar .chip, .bar .button")].filter((c) => c.getBoundingClientRect().width > 1).flatMap((c) => {
  const box = c.getBoundingClientRect(), range = document.createRange();
  range.selectNodeContents(c);
  const text = range.getBoundingClientRect(), drift = (text.top + text.bottom) / 2 - (box.top + box.bottom) / 2;
  return box.height < 44 || Math.abs(drift) > 2 ? [c.textContent + ": " + Math.round(box.height) + " px high, label " + drift.toFixed(1) + " px off centre"] : [];
})`)
			if len(off) > 0 {
				t.Errorf("chips off: %s", strings.Join(off, "; "))
			}
			rows := controlRows(t, ctx, ".bar .control, .bar .button, .bar .chip")
			if len(rows) > 2 {
				t.Errorf("the header holds %d rows of controls, want at most 2 (%.0f px high)", len(rows), evalJS[float64](t, ctx, `document.querySelector(".bar").getBoundingClientRect().height`))
			}
			// A row's controls share its line: one top, one height.
			var uneven []string
			for _, row := range rows {
				if !row.same(func(c control) int { return c.Top }) || !row.same(func(c control) int { return c.Height }) {
					uneven = append(uneven, row.String())
				}
			}
			if len(uneven) > 0 {
				t.Errorf("a header row's controls differ in top or height: %s", strings.Join(uneven, "; "))
			}
		})
	}
}

// TestRiskPanelControlsAreTouchTargetsOnAPhone: on a phone, every field,
// picker and button of the risk panels (the refresh, the limits filter, the
// calculator) is a 44 px touch target, and the controls side by side in a
// row are one height.
func TestRiskPanelControlsAreTouchTargetsOnAPhone(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	for _, page := range []string{"/limits?contract_code=BTC-USDT", "/tiers?contract_code=BTC-USDT", "/?contract_code=BTC-USDT"} {
		t.Run(page, func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Emulate(device.IPhone12), chromedp.Navigate(s.URL+page)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!document.getElementById("app-wasm-loader") && document.querySelectorAll(".risk .control").length > 1 && document.querySelectorAll(".risk tbody tr").length > 0`)
			var off []string
			for _, row := range controlRows(t, ctx, ".risk .control, .risk .button") {
				for _, c := range row {
					if c.Height < 44 {
						off = append(off, fmt.Sprintf("%s %d px high", c.Name, c.Height))
					}
				}
				if !row.same(func(c control) int { return c.Height }) {
					off = append(off, "one row, several heights: "+row.String())
				}
			}
			if len(off) > 0 {
				screenshot(t, ctx, "risk-touch-"+strings.Trim(strings.SplitN(page, "?", 2)[0], "/"))
				t.Errorf("%s", strings.Join(off, "; "))
			}
		})
	}
}

// TestTheRiskPagesLinksSwitchThePanelInTheApp: once the app runs, the
// header's Tiers and Limits links show the other panel. go-app keeps the
// page component from /tiers to /limits (the same type) and copies none of
// its unexported fields, so the page reads its panel from the URL: a field
// set when the route made the page would keep the tiers under /limits.
func TestTheRiskPagesLinksSwitchThePanelInTheApp(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/tiers?contract_code=ETH-USDT")); err != nil {
		t.Fatal(err)
	}
	// shows is whether the page shows the panel of path (state line id,
	// title), the app running, the header's current link that path.
	shows := func(path, id, title string) string {
		return fmt.Sprintf(`location.pathname === %q && !document.getElementById("app-wasm-loader") && !!document.querySelector("#%s .age")
  && document.querySelectorAll("#tiers-state, #limits-state").length === 1 && document.title === %q
  && document.querySelector('header a[aria-current="page"]')?.getAttribute("href").startsWith(%q)`, path, id, title, path+"?")
	}
	waitFor(t, ctx, shows("/tiers", "tiers-state", "Risk-limit tiers · ETH-USDT · Riskchart"))
	for _, step := range []struct{ path, id, title string }{
		{"/limits", "limits-state", "Position limits · ETH-USDT · Riskchart"},
		{"/tiers", "tiers-state", "Risk-limit tiers · ETH-USDT · Riskchart"},
	} {
		evalJS[bool](t, ctx, `window.riskchartSamePage = true`)
		click(t, ctx, `header a[href^="`+step.path+`?"]`)
		waitFor(t, ctx, shows(step.path, step.id, step.title))
		if !evalJS[bool](t, ctx, `window.riskchartSamePage === true`) {
			t.Errorf("going to %s loaded a new document: the app did not take the link", step.path)
		}
	}
}

// contrastJS is the WCAG contrast ratio of the element at selector's text
// against the page's background.
const contrastJS = `((selector) => {
  const lum = (css) => {
    const [r, g, b] = css.match(/[\d.]+/g).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const fg = lum(getComputedStyle(document.querySelector(selector)).color), bg = lum(getComputedStyle(document.body).backgroundColor);
  return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
})`

// TestARiskPageWithAMalformedContractSaysSoReadably: /tiers with a
// contract_code that is not one says why in the panel's column, with a link
// to a page that works, readable in either theme (the browser's own link
// blue is 2.0:1 on the dark background); so is the page's brand.
func TestARiskPageWithAMalformedContractSaysSoReadably(t *testing.T) {
	s := startServer(t, nil)
	for _, theme := range []string{"light", "dark"} {
		t.Run(theme, func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/tiers?contract_code=btc&theme="+theme)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!document.getElementById("app-wasm-loader") && !!document.querySelector("#risk-page-error a")`)
			want := "/tiers?contract_code=BTC-USDT&theme=" + theme
			if got := evalJS[string](t, ctx, `document.querySelector("#risk-page-error a").getAttribute("href")`); got != want {
				t.Errorf("the error's link goes to %s, want %s", got, want)
			}
			if left := evalJS[float64](t, ctx, `document.getElementById("risk-page-error").getBoundingClientRect().left`); left < 12 {
				t.Errorf("the error starts %.0f px from the window's edge, want 12 or more", left)
			}
			for _, sel := range []string{"#risk-page-error a", "a.brand", "#risk-page-error"} {
				if ratio := evalJS[float64](t, ctx, contrastJS+`(`+fmt.Sprintf("%q", sel)+`)`); ratio < 4.5 {
					t.Errorf("%s has a contrast of %.2f:1 on the %s theme, want 4.5:1 or more", sel, ratio, theme)
				}
			}
		})
	}
}

// TestSigningInFromAPanelReturnsToItsPage: off loopback, a panel without
// access links to the login page, and signing in there returns to the page
// the link was on, its view whole, now showing the private data; signing
// out on the login page returns to it without.
func TestSigningInFromAPanelReturnsToItsPage(t *testing.T) {
	const viewer = "a-viewer-token-for-the-browser-test-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1", "RISKCHART_VIEWER_TOKENS": viewer})
	ctx := newBrowser(t)
	// A browser behind the deployment's proxy: the server counts it off loopback.
	page := "/limits?contract_code=ETH-USDT&theme=dark"
	if err := chromedp.Run(ctx, network.Enable(), network.SetExtraHTTPHeaders(network.Headers{"X-Forwarded-For": "198.51.100.7"}),
		chromedp.Navigate(s.URL+page)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.getElementById("risk-noaccess") && !document.getElementById("app-wasm-loader")`)
	if text := evalJS[string](t, ctx, `document.getElementById("risk-noaccess").textContent`); !strings.Contains(text, "you need a viewer token (sign in)") {
		t.Errorf("the notice reads %q", text)
	}
	// Each click leaves the page: chromedp's waits follow the new document.
	wait := func(sel string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Run(wctx, chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
			t.Fatalf("waiting for %s: %v", sel, err)
		}
	}
	click(t, ctx, "#risk-signin")
	wait("form #token")
	if path := evalJS[string](t, ctx, `location.pathname`); path != "/login" {
		t.Fatalf("the link went to %s", path)
	}
	typeInto(ctx, "token", viewer)
	click(t, ctx, `form button[type="submit"]`)
	wait(`#limits-table tr[data-contract="ETH-USDT"]`)
	waitFor(t, ctx, fmt.Sprintf(`location.pathname + location.search === %q && !!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]') && !document.getElementById("risk-noaccess")`, page))

	// Signing out on the login page returns to the page, which has no access again.
	navigate(t, ctx, s.URL+"/login?next="+url.QueryEscape(page))
	click(t, ctx, `form[action="/logout"] button[type="submit"]`)
	wait("#risk-noaccess")
	waitFor(t, ctx, fmt.Sprintf(`location.pathname + location.search === %q && !document.querySelector("#limits-table tr")`, page))
}

// control is a control on show: its name (id, else its text) and its box's
// top and height, whole pixels.
type control struct {
	Name        string
	Top, Height int
}

// controlRow is the controls whose tops round to the same 8 px band: the
// controls side by side on one line.
type controlRow []control

// same reports whether f gives every control of the row the same value.
func (r controlRow) same(f func(control) int) bool {
	for _, c := range r {
		if f(c) != f(r[0]) {
			return false
		}
	}
	return true
}

func (r controlRow) String() string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = fmt.Sprintf("%s %d+%d", c.Name, c.Top, c.Height)
	}
	return strings.Join(parts, ", ")
}

// controlRows reads the elements of selector on show (wider and higher than
// a pixel), in rows by their tops, top to bottom.
func controlRows(t *testing.T, ctx context.Context, selector string) []controlRow {
	t.Helper()
	return evalJS[[]controlRow](t, ctx, fmt.Sprintf(`(() => {
  const rows = new Map();
  for (const c of document.querySelectorAll(%q)) {
    const r = c.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;
    const k = Math.round(r.top / 8);
    if (!rows.has(k)) rows.set(k, []);
    rows.get(k).push({Name: c.id || c.textContent.trim(), Top: Math.round(r.top), Height: Math.round(r.height)});
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
})()`, selector))
}
