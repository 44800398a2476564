package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// TestRiskPagesShowTheirTiersBeforeTheAppRuns: /tiers and the tiers embed
// (opened with its link, alone or framed by a page of this server) carry the tiers the server holds for their
// contract, as the chart page does; with app.wasm held back the tier table
// shows them, the calculator waits for the mark price, not for them, and
// the app adopts them without asking the tier path. The embed's link grants
// the tiers alone: its calculator says from the first paint that it has no
// mark price, and the app never asks for the limits the server would refuse.
func TestRiskPagesShowTheirTiersBeforeTheAppRuns(t *testing.T) {
	const key = "first-tiers-e2e-embed-key-0123456789-0123456789"
	s := startServer(t, map[string]string{"RISKCHART_EMBED_KEY": key})
	tiers := serverHoldsTiers(t, s.URL, "ETH-USDT")
	link := issueLink(t, key, "-contracts", "ETH-USDT", "-panels", "tiers", "-ttl", "1h")
	embed := "/embed/tiers?contract_code=ETH-USDT&embed=" + url.QueryEscape(link)
	const (
		waits   = "The calculator cannot answer: waiting for the mark price (your position limits)."
		noPrice = "The calculator cannot answer: it needs a price: the mark price comes with your position limits, which this page has no access to; type an entry price to reckon at it."
	)
	for _, tc := range []struct {
		name, path string
		framed     bool   // opened in an iframe of a page of this server (Sec-Fetch-Dest: iframe)
		calc       string // the calculator's status before the app runs, and as it starts
	}{
		{"the tiers page", "/tiers?contract_code=ETH-USDT", false, waits},
		{"the tiers embed with its link", embed, false, noPrice},
		{"the tiers embed with its link, framed", embed, true, noPrice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limitsAsked := metricSum(t, s.URL, "riskchart_requests_total", `route="position_limit"`)
			ctx := newBrowser(t)
			held, hold := holdAppWasm(ctx)
			win, open := "window", chromedp.Navigate(s.URL+tc.path)
			if tc.framed {
				win = `document.querySelector("iframe").contentWindow`
				open = chromedp.Tasks{chromedp.Navigate(s.URL + "/login"),
					chromedp.Evaluate(`(() => { const f = document.createElement("iframe"); f.src = `+strconv.Quote(tc.path)+`; document.body.append(f); })()`, nil)}
			}
			if err := chromedp.Run(ctx, hold, open); err != nil {
				t.Fatal(err)
			}
			rows := `(` + win + `).document.querySelectorAll("#tier-table tbody tr[data-tier]").length`
			// The page as the server sent it, app.wasm held back.
			waitFor(t, ctx, `(`+win+`).document.readyState === "complete" && (`+win+`).document.getElementById("tier-table") !== null`)
			if n := evalJS[int](t, ctx, rows); n != tiers {
				t.Errorf("before the app runs the tier table shows %d rows, want %d", n, tiers)
			}
			// Its calculator waits for what the app's first render waits for, the
			// mark price, not for the tiers the table shows.
			calc := `(` + win + `).document.getElementById("calc-status")?.textContent ?? "no calculator"`
			if got := evalJS[string](t, ctx, calc); got != tc.calc {
				t.Errorf("before the app runs the calculator says %q, want %q", got, tc.calc)
			}
			if evalJS[bool](t, ctx, `(`+win+`).performance.getEntriesByName("riskchart:main").length > 0`) {
				t.Fatal("app.wasm ran: it was not held back")
			}
			letAppWasmThrough(t, ctx, held)
			waitFor(t, ctx, `(`+win+`).performance.getEntriesByName("riskchart:risk-first-data").length > 0 && `+rows+` === `+fmt.Sprint(tiers))
			asked := func(path string) int {
				return evalJS[int](t, ctx, `(`+win+`).performance.getEntriesByType("resource").filter((e) => e.name.includes("`+path+`")).length`)
			}
			if n := asked(venueapi.PathTiers); n != 0 {
				t.Errorf("the app fetched the tiers %d times though the page held them", n)
			}
			if tc.calc == noPrice {
				if got := evalJS[string](t, ctx, calc); got != tc.calc {
					t.Errorf("once the app runs the calculator says %q, want %q", got, tc.calc)
				}
				// A refresh asks for both at once, and the limits' refusal
				// comes from the server's memory, sooner than the tiers.
				evalJS[bool](t, ctx, `((`+win+`).document.getElementById("risk-refresh").click(), true)`)
				waitFor(t, ctx, `(`+win+`).performance.getEntriesByType("resource").some((e) => e.name.includes("`+venueapi.PathTiers+`"))`)
				if n := asked(venueapi.PathPositionLimit) + int(metricSum(t, s.URL, "riskchart_requests_total", `route="position_limit"`)-limitsAsked); n != 0 {
					t.Errorf("the app asked %d times for the limits the embed's link does not grant", n)
				}
			}
		})
	}
}

// TestThePanelsWriteTimesInTheViewsZone: the prerendered tiers' fetch time
// is in the browser's zone (here UTC+8) from the page's first paint, before
// the app runs: the server, which cannot know the reader's zone, writes it
// in UTC and marks it, and web/app-start.js writes it in the browser's as
// the page is parsed. The app writes it so too, in the offset the browser
// has at the fetch's date when that changes under an open page, and in UTC,
// named, once the zone toggle asks for UTC, as the server does for a view in
// UTC.
func TestThePanelsWriteTimesInTheViewsZone(t *testing.T) {
	s := startServer(t, nil)
	serverHoldsTiers(t, s.URL, "BTC-USDT")
	shanghai := emulation.SetTimezoneOverride("Asia/Shanghai")
	const age = `document.querySelector("#tiers-state .age")`
	// fetched is the label's fetch time in loc, and the label as it reads
	// (the server's markup has the line breaks of its indentation).
	fetched := func(ctx context.Context, loc *time.Location) (want, got string) {
		t.Helper()
		at, err := time.Parse(time.RFC3339Nano, evalJS[string](t, ctx, age+`.dataset.at`))
		if err != nil {
			t.Fatalf("the tiers' fetch time: %v", err)
		}
		return "Fetched " + at.In(loc).Format("15:04:05"), evalJS[string](t, ctx, age+`.textContent.replace(/\s+/g, " ").trim()`)
	}
	// The label as the first frame that has it draws it: a frame's
	// callbacks run before it is drawn.
	firstFrame := onEveryDocument(`const look = () => {
  const age = document.querySelector("#tiers-state .age");
  if (!age) return requestAnimationFrame(look);
  window.testFirstFrameAge = age.textContent.replace(/\s+/g, " ").trim();
};
requestAnimationFrame(look);`)
	utc8 := time.FixedZone("UTC+8", 8*3600)
	ctx, held := openHoldingAppWasm(t, s.URL+"/?contract_code=BTC-USDT", shanghai, firstFrame)
	waitFor(t, ctx, `document.readyState === "complete" && !!`+age+` && !!window.testFirstFrameAge`)
	want, got := fetched(ctx, utc8)
	if !strings.HasPrefix(got, want+" · ") {
		t.Errorf("before the app runs the tiers read %q, want %q", got, want)
	}
	if drawn := evalJS[string](t, ctx, `window.testFirstFrameAge`); !strings.HasPrefix(drawn, want+" · ") {
		t.Errorf("the first frame drew the tiers' label %q, want %q", drawn, want)
	}
	letAppWasmThrough(t, ctx, held)
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:risk-first-data").length > 0`)
	if want, got := fetched(ctx, utc8); !strings.HasPrefix(got, want+" · ") {
		t.Errorf("in the browser's zone the tiers read %q, want %q", got, want)
	}
	// The browser's offset changes under the open page, as a change of
	// daylight saving time changes it: Go's time.Local keeps the offset at
	// start-up, and a refresh's time is written in the one of its date.
	before := evalJS[string](t, ctx, age+`.dataset.at`)
	if err := chromedp.Run(ctx, emulation.SetTimezoneOverride("Asia/Tokyo")); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#risk-refresh")
	waitFor(t, ctx, age+`.dataset.at !== `+strconv.Quote(before))
	if want, got := fetched(ctx, time.FixedZone("UTC+9", 9*3600)); !strings.HasPrefix(got, want+" · ") {
		t.Errorf("refreshed after the browser's offset changed, the tiers read %q, want %q", got, want)
	}
	if err := chromedp.Run(ctx, shanghai); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#tz-toggle")
	waitFor(t, ctx, `new URL(location.href).searchParams.get("tz") === "utc" && `+age+`.textContent.includes(" UTC · ")`)
	if want, got := fetched(ctx, time.UTC); !strings.HasPrefix(got, want+" UTC · ") {
		t.Errorf("in UTC the tiers read %q, want %q UTC", got, want)
	}
	// A view in UTC is in UTC from the server's page on.
	ctx, _ = openHoldingAppWasm(t, s.URL+"/tiers?contract_code=BTC-USDT&tz=utc", shanghai)
	waitFor(t, ctx, `document.readyState === "complete" && !!`+age)
	if want, got := fetched(ctx, time.UTC); !strings.HasPrefix(got, want+" UTC · ") {
		t.Errorf("before the app runs, in UTC, the tiers read %q, want %q UTC", got, want)
	}
}

// serverHoldsTiers asks the server at base for contract's tiers, so that it
// holds them (and writes them into the pages it sends), and returns how
// many there are.
func serverHoldsTiers(t *testing.T, base, contract string) int {
	t.Helper()
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	getJSON(t, base+venueapi.PathTiers+"?contract_code="+contract, &env)
	if len(env.Data) == 0 {
		t.Fatalf("the sandbox has no tiers for %s", contract)
	}
	return len(env.Data)
}

// The chart page the tests of the page's read of its tiers open, and the
// tier path that read asks.
const (
	tierReadPage = "/?contract_code=ETH-USDT&period=5min"
	tierReadPath = venueapi.PathTiers + "?contract_code=ETH-USDT"
)

// tierRequests is a page's requests of tierPath, by initiator type.
func tierRequests(tierPath string) string {
	return `performance.getEntriesByType("resource").filter((e) => e.name.endsWith(` + strconv.Quote(tierPath) + `)).map((e) => e.initiatorType).join(",")`
}

// TestTheChartPageReadsItsTiersForTheApp: a chart page without the tiers
// in it (the server held none for its contract; and the service worker's
// shell) names where its tiers are read from, and its head script starts
// reading them once the first paint has drawn, before app.wasm runs; the
// app's risk panel takes that answer in place of its first fetch, so the
// page asks the tier path once, and, the answer being in when the app
// starts, shows the tiers in its first render. A page with the tiers
// written in names none and reads none (docs/startup.md, "The tiers
// read by the page").
func TestTheChartPageReadsItsTiersForTheApp(t *testing.T) {
	s := startServer(t, nil)
	requests := tierRequests(tierReadPath)

	ctx, held := openHoldingAppWasm(t, s.URL+tierReadPage,
		whenTheLoaderLeaves(`window.tierRowsAtStart = document.querySelectorAll("#tier-table tbody tr[data-tier]").length;`))
	waitFor(t, ctx, `!!window.riskchartTiers`)
	if got := evalJS[string](t, ctx, `document.querySelector('meta[name="riskchart-tiers"]').content + "|" + riskchartTiers.href`); got != tierReadPath+"|"+tierReadPath {
		t.Errorf("the page's named source and its read are %q, want %s for both", got, tierReadPath)
	}
	if got := evalJS[string](t, ctx, jsFirstPaint); got != "ETH-USDT|5min|step 300|app false" {
		t.Errorf("the first paint drew %q before the tiers were read", got)
	}
	waitFor(t, ctx, requests+` === "xmlhttprequest" && !!riskchartTiers.answer`)
	if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
		t.Fatal("app.wasm ran: it was not held back")
	}
	letAppWasmThrough(t, ctx, held)
	if err := chromedp.Run(ctx, fetch.Disable()); err != nil { // the next page's app.wasm goes through
		t.Fatal(err)
	}
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:risk-first-data").length > 0 && document.querySelectorAll("#tier-table tbody tr[data-tier]").length > 0`)
	if got := evalJS[int](t, ctx, `window.tierRowsAtStart ?? -1`); got <= 0 {
		t.Errorf("tier rows on show when the app started (go-app's loader left): %d, want the page's answer in the panel's first render", got)
	}
	time.Sleep(300 * time.Millisecond) // a second request, if the app made one, would be under way
	if got := evalJS[string](t, ctx, requests); got != "xmlhttprequest" {
		t.Errorf("the page asked the tier path by %q, want once, by the page's read (xmlhttprequest; the app's own would be fetch)", got)
	}
	if evalJS[bool](t, ctx, `!!window.riskchartTiers`) {
		t.Error("the app left the page's read of the tiers untaken")
	}

	// The server holds ETH-USDT's tiers now: it writes them into the page.
	// The page asked of the server itself: a navigation the service worker
	// (registered once the app drew) controls reaches the server as the
	// worker's fetch, which gets no first data (gateway.shownNow).
	evalAwait[bool](t, ctx, `navigator.serviceWorker.getRegistrations().then((rs) => Promise.all(rs.map((r) => r.unregister()))).then(() => true)`)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+tierReadPage)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.readyState === "complete" && performance.getEntriesByName("riskchart:risk-first-data").length > 0`)
	if got := evalJS[string](t, ctx, `[!!document.querySelector('meta[name="riskchart-tiers"]'), !!window.riskchartTiers, `+requests+`].join("|")`); got != "false|false|" {
		t.Errorf("with the tiers in the page: a source named, a read left, requests = %q, want false|false|", got)
	}
}

// TestTheAppAwaitsTheTiersThePageIsStillReading: when the app starts before
// the page's read of its tiers has its answer, the risk panel waits for that
// read rather than asking again, and shows the tiers when it lands.
func TestTheAppAwaitsTheTiersThePageIsStillReading(t *testing.T) {
	s := startServer(t, nil)
	requests := tierRequests(tierReadPath)

	ctx := newBrowser(t)
	held, hold := holdEach(ctx,
		&fetch.RequestPattern{URLPattern: appWasmPattern, RequestStage: fetch.RequestStageRequest},
		&fetch.RequestPattern{URLPattern: "*" + venueapi.PathTiers + "*", RequestStage: fetch.RequestStageResponse}, // answered, held from the page
	)
	wasm, tiers := held[0], held[1]
	if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+tierReadPage)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.riskchartTiers`)
	letThrough(t, ctx, wasm, "app.wasm")
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:mounted").length > 0 && !document.getElementById("app-wasm-loader")`)
	if got := evalJS[string](t, ctx, `[document.querySelectorAll("#tier-table tbody tr[data-tier]").length, !!window.riskchartTiers].join("|")`); got != "0|false" {
		t.Errorf("with the page's read under way when the app started: tier rows, read left = %q, want 0|false (the read taken, awaited)", got)
	}
	letThrough(t, ctx, tiers, "the tier path")
	waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr[data-tier]").length > 0`)
	time.Sleep(300 * time.Millisecond) // a second request, if the app made one, would be under way
	if got := evalJS[string](t, ctx, requests); got != "xmlhttprequest" {
		t.Errorf("the page asked the tier path by %q, want once, by the page's read (xmlhttprequest; the app's own would be fetch)", got)
	}
}

// TestTheRiskPanelShowsItsTiersWhenThePagesReadIsAborted: the page's read
// of its tiers (web/chart-answer.js, an XMLHttpRequest) that the browser
// aborts, as it does when the reader stops the page's loading, ends with an
// abort event, not an error. The app, awaiting that read, must see it end:
// it asks the tier path itself and shows the tiers, where its panel stayed
// "Loading…" for good and skipped its later loads.
func TestTheRiskPanelShowsItsTiersWhenThePagesReadIsAborted(t *testing.T) {
	s := startServer(t, nil)
	requests := tierRequests(tierReadPath)
	const (
		rows  = `document.querySelectorAll("#tier-table tbody tr[data-tier]").length`
		state = `(document.getElementById("tiers-state")?.textContent ?? "no state line")`
	)

	ctx := newBrowser(t)
	held, hold := holdEach(ctx,
		&fetch.RequestPattern{URLPattern: appWasmPattern, RequestStage: fetch.RequestStageRequest},
		&fetch.RequestPattern{URLPattern: "*" + venueapi.PathTiers + "*", RequestStage: fetch.RequestStageRequest},
	)
	wasm, tiers := held[0], held[1]
	// How each XMLHttpRequest of the page ended, to hold the abort below to
	// the one the field sees.
	ends := onEveryDocument(`const send = XMLHttpRequest.prototype.send;
XMLHttpRequest.prototype.send = function (...args) {
  for (const type of ["load", "error", "abort"]) {
    this.addEventListener(type, () => (window.xhrEnds ||= []).push(type));
  }
  return send.apply(this, args);
};`)
	if err := chromedp.Run(ctx, ends, hold, chromedp.Navigate(s.URL+tierReadPage)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.riskchartTiers`)
	var read fetch.RequestID
	select {
	case read = <-tiers:
	case <-time.After(10 * time.Second):
		t.Fatal("the page never read its tiers")
	}
	letThrough(t, ctx, wasm, "app.wasm")
	waitFor(t, ctx, `performance.getEntriesByName("riskchart:mounted").length > 0 && !document.getElementById("app-wasm-loader")`)
	if got := evalJS[string](t, ctx, `[`+rows+`, !!window.riskchartTiers, `+state+`.trim()].join("|")`); got != "0|false|Loading…" {
		t.Errorf("with the page's read under way when the app started: tier rows, read left, state = %q, want 0|false|Loading… (the read taken, awaited)", got)
	}
	if err := chromedp.Run(ctx, fetch.FailRequest(read, network.ErrorReasonAborted)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `(window.xhrEnds || []).length > 0`)
	if got := evalJS[string](t, ctx, `xhrEnds.join()`); got != "abort" {
		t.Fatalf("the page's read ended by %q, want abort", got)
	}
	select {
	case id := <-tiers:
		if err := chromedp.Run(ctx, fetch.ContinueRequest(id)); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the app never asked the tier path once the page's read was aborted: the panel says %q with %d tier rows",
			evalJS[string](t, ctx, state+`.replace(/\s+/g, " ").trim()`), evalJS[int](t, ctx, rows))
	}
	waitFor(t, ctx, rows+` > 0 && `+state+`.includes("Fetched")`)
	if got := evalJS[string](t, ctx, requests); got != "xmlhttprequest,fetch" && got != "fetch" {
		t.Errorf("the page asked the tier path by %q, want the page's read, aborted, then the app's fetch", got)
	}
}

// TestAViewTheServiceWorkerSendsOnCarriesItsFirstData: on a return visit a
// URL naming a view goes from the service worker to the server, marked as
// the page's navigation (firstdata.NavigationHeader), and the server
// writes into it the tiers and the contract list it holds, as into a page
// the browser loads itself: the page names no read of its tiers.
func TestAViewTheServiceWorkerSendsOnCarriesItsFirstData(t *testing.T) {
	s := startServer(t, nil)
	serverHoldsTiers(t, s.URL, "ETH-USDT")
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then((r) => !!r && !!r.active)`)
	// What the page held as its parsing ended, before app.wasm could run.
	if err := chromedp.Run(ctx, onEveryDocument(`document.addEventListener("readystatechange", () => {
  if (document.readyState === "interactive") {
    sessionStorage.setItem("parsed", [!!navigator.serviceWorker.controller, !!document.getElementById("tiers-first"),
      !!document.getElementById("contracts-first"), !!document.querySelector('meta[name="riskchart-tiers"]')].join("|"));
  }
})`)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, referrer, want string }{
		{"/?contract_code=ETH-USDT&period=5min", "", "true|true|true|false"},                          // sent on to the server
		{"/?contract_code=ETH-USDT&period=1hour", "https://partner.example/", "true|true|true|false"}, // from another site's link
		{"/", "", "true|false|false|true"},                                                            // the shell, kept by the worker
	} {
		open := chromedp.ActionFunc(func(ctx context.Context) error {
			_, _, errText, _, err := page.Navigate(s.URL + tc.path).WithReferrer(tc.referrer).Do(ctx)
			if err == nil && errText != "" {
				err = errors.New(errText)
			}
			return err
		})
		// page.Navigate returns once the navigation has begun: the page left
		// may still be the one polled, and a poll does not outlive it.
		if err := chromedp.Run(ctx, chromedp.Evaluate(`sessionStorage.removeItem("parsed")`, nil), open); err != nil {
			t.Fatal(err)
		}
		waitAcrossNavigation(t, ctx, `sessionStorage.getItem("parsed") !== null`)
		if got := evalJS[string](t, ctx, `sessionStorage.getItem("parsed")`); got != tc.want {
			t.Errorf("%s: controlled by the worker, tiers, contract list, tiers' URL named = %s, want %s", tc.path, got, tc.want)
		}
	}
}
