package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// The chart's live candle pushed by the server's stream, and the polling
// it falls back to.

// jsLiveState is the chart's badge of how its newest candle arrives: live,
// reconnecting, polling, or "" while the first stream opens.
const jsLiveState = `((document.getElementById("live-state") || {dataset: {}}).dataset.state || "")`

// jsLiveUpdates counts the live updates the chart has drawn.
const jsLiveUpdates = `performance.getEntriesByName("riskchart:live").length`

// metricSum is the sum of the series of a metric whose labels hold labels
// (e.g. `route="kline"`), as the server's /metrics says now.
func metricSum(t *testing.T, base, name, labels string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") || !strings.Contains(line, labels) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		sum += v
	}
	return sum
}

func TestTheChartsNewestCandleIsPushedWithNoPollInBetween(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "live"`)
	if got := evalJS[string](t, ctx, `(() => { const b = document.getElementById("live-state"); return b.closest("[role=status]") ? b.textContent : "outside a live region"; })()`); got != "Live" {
		t.Errorf("the badge reads %q, want Live, in a polite live region", got)
	}
	if n := metricSum(t, s.URL, "riskchart_streams_open", ""); n != 1 {
		t.Errorf("%v streams open, want the chart's one", n)
	}

	klines := metricSum(t, s.URL, "riskchart_requests_total", `route="kline"`)
	lives := evalJS[int](t, ctx, jsLiveUpdates)
	legend := evalJS[string](t, ctx, `document.getElementById("legend-vol").textContent + " " + document.getElementById("legend-close").textContent`)
	// The sandbox's current candle changes every second; each change is drawn.
	waitFor(t, ctx, jsLiveUpdates+` >= `+strconv.Itoa(lives+3))
	waitFor(t, ctx, `document.getElementById("legend-vol").textContent + " " + document.getElementById("legend-close").textContent !== `+strconv.Quote(legend))
	if n := metricSum(t, s.URL, "riskchart_requests_total", `route="kline"`); n != klines {
		t.Fatalf("the KLine path answered %v requests while the chart drew three live updates: it polled", n-klines)
	}

	// The candle drawn is the server's current one, whichever of it is newest.
	api := apiCandles(t, s.URL, "contract_code=BTC-USDT&period=1min&size=1")[0]
	waitFor(t, ctx, `(() => {
  const id = Number(document.getElementById("legend").dataset.id), vol = Number(document.getElementById("legend-vol").textContent.replaceAll(",", ""));
  return id > `+strconv.FormatInt(api.ID, 10)+` || (id === `+strconv.FormatInt(api.ID, 10)+` && vol >= `+api.Vol.String()+`);
})()`)
	screenshot(t, ctx, "chart-stream-live")

	// The server gone, the chart says it is reconnecting, and polls as before:
	// offline, the saved chart kept.
	s.Stop(t)
	waitFor(t, ctx, jsLiveState+` === "reconnecting"`)
	waitFor(t, ctx, `(document.getElementById("offline-mark") || {}).textContent?.startsWith("Offline")`)
	if n := evalJS[int](t, ctx, jsCandleCount); n == 0 {
		t.Error("the chart lost its candles with the server")
	}
}

func TestAChartWhoseStreamIsRefusedPollsAndSaysSo(t *testing.T) {
	s := startServer(t, map[string]string{"RISKCHART_MAX_STREAMS": "1"})
	// Another viewer holds the server's one stream.
	hold, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(hold, http.MethodGet, s.URL+"/api/v1/stream/kline?contract_code=ETH-USDT&period=5min", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the first stream: %v %v", err, res)
	}
	defer res.Body.Close()

	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "polling"`)
	klines := metricSum(t, s.URL, "riskchart_requests_total", `route="kline"`)
	lives := evalJS[int](t, ctx, jsLiveUpdates)
	// Three updates for two requests: the first may be the answer to a poll
	// the server had already counted before klines was read.
	waitFor(t, ctx, jsLiveUpdates+` >= `+strconv.Itoa(lives+3))
	if n := metricSum(t, s.URL, "riskchart_requests_total", `route="kline"`); n < klines+2 {
		t.Errorf("%v KLine requests over three live updates: the chart did not poll", n-klines)
	}
	if n := metricSum(t, s.URL, "riskchart_throttled_total", `budget="streams"`); n < 1 {
		t.Errorf("the refused stream is not counted: %v", n)
	}
	screenshot(t, ctx, "chart-stream-polling")
}

// TestAChartOfAContractTheVenueDoesNotKnowStopsStreaming: the server
// refuses the stream of a contract the venue does not know (404), as it
// does its candles. The chart closes it and shows no badge, rather than
// reconnect to no end under "Reconnecting…", and streams again when it
// shows a contract that is.
func TestAChartOfAContractTheVenueDoesNotKnowStopsStreaming(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "live"`)
	enter := func(code string) {
		t.Helper()
		if err := typeInto(ctx, "contract-input", code); err != nil {
			t.Fatal(err)
		}
		click(t, ctx, "#contract-form button")
	}
	refused := func() float64 { return metricSum(t, s.URL, "riskchart_requests_total", `code="404",route="stream"`) }
	enter("ABC-USDT")
	waitFor(t, ctx, `(document.getElementById("chart-status") || {}).textContent?.includes("does not know the contract ABC-USDT")`)
	// The stream and the candles are asked for together and refused
	// together, and the server counts a request once its answer is written:
	// the candles' refusal may be on show before the stream's is counted.
	var before float64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if before = refused(); before > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server counted no refused stream of ABC-USDT: the count below would prove nothing")
		}
	}
	time.Sleep(4 * time.Second) // a reconnection backs off from 1 s: three or more in that time
	if state := evalJS[string](t, ctx, jsLiveState); state != "" {
		t.Errorf("the chart of an unknown contract shows the badge %q, want none", state)
	}
	if after := refused(); after != before {
		t.Errorf("the chart asked for the unknown contract's stream %v more times after its message", after-before)
	}
	enter("ETH-USDT")
	waitDrawn(t, ctx, "ETH-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "live"`)
}

// TestTheStreamsErrorIsNotToldAsThePageIsLeft: as a page is left for good
// (here reloaded), the browser cuts its stream while detaching it and tells
// the stream's error listeners. The app hears of an error a task later
// (browser.OpenEventSource), which a page being left never runs: told at
// once, the chart's handler ran (compiling it, the first time), closing the
// stream to reopen it, inside the next page's commit (docs/startup.md,
// "The page being left").
// An error while the page stays is still told: the stream tests above.
func TestTheStreamsErrorIsNotToldAsThePageIsLeft(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// What the streams are told and asked is counted in the tab's session
	// storage, which the next page reads.
	count := onEveryDocument(`(() => {
  const note = (key) => sessionStorage.setItem(key, String(Number(sessionStorage.getItem(key) || 0) + 1));
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, listener, ...rest) {
    if (type !== "error") return add.call(this, type, listener, ...rest);
    return add.call(this, type, function (e) {
      note("test:stream-errors");
      return listener.call(this, e);
    }, ...rest);
  };
  const close = EventSource.prototype.close;
  EventSource.prototype.close = function () {
    note("test:stream-closes");
    return close.call(this);
  };
})();`)
	if err := chromedp.Run(ctx, count, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "live"`)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	got := evalJS[[]string](t, ctx, `["test:stream-errors", "test:stream-closes"].map((k) => sessionStorage.getItem(k) || "0")`)
	if got[0] == "0" {
		t.Fatal("the browser told the stream of no error as its page was left: nothing here to check")
	}
	if got[1] != "0" {
		t.Errorf("the chart closed its stream %s times as its page was left (after %s errors), want none: the app ran its error handler", got[1], got[0])
	}
}

// TestAChartThatMissedCandlesFetchesThemFirst gives the chart a first
// answer without its newest five candles, as a chart that slept through
// them holds: the stream's first candles then start past the chart's
// newest one. The chart must fetch the candles between before it draws
// the live ones, so that its time axis, one slot per candle, runs on
// unbroken (app/components/chartgap.go).
func TestAChartThatMissedCandlesFetchesThemFirst(t *testing.T) {
	const dropped = 5
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// The first answer, the server's own less its newest candles.
	first := s.URL + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=300"
	held, hold := holdRequests(ctx, "*"+venueapi.PathKLine+"?*&size=300")
	trimmed := make(chan error, 4)
	whenHeld(ctx, held, func(id fetch.RequestID) {
		trimmed <- func() error {
			env, err := getKLine(first)
			if err != nil {
				return err
			}
			data, _ := env["data"].([]any)
			if len(data) <= dropped {
				return fmt.Errorf("the first answer holds %d candles", len(data))
			}
			env["data"] = data[:len(data)-dropped]
			body, err := json.Marshal(env)
			if err != nil {
				return err
			}
			return chromedp.Run(ctx, answerJSON(id, body))
		}()
	})
	if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc")); err != nil {
		t.Fatal(err)
	}
	awaitHandled(t, trimmed, 20*time.Second, "the chart's first answer was not asked for: nothing here to check")
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "live"`)

	// The chart has drawn live candles once its newest is the server's
	// current one (or a later one, a minute having begun meanwhile).
	current := apiCandles(t, s.URL, "contract_code=BTC-USDT&period=1min&size=1")[0].ID
	var labels []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		labels = evalJS[[]string](t, ctx, jsChart+`.getOption().xAxis[0].data.slice(-12)`)
		newest, err := labelledMinute(labels[len(labels)-1], time.Now().UTC())
		if err != nil {
			t.Fatal(err)
		}
		if newest >= current {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the chart's newest candle is %s, the server's %s: no live candle drawn", labels[len(labels)-1], time.Unix(current, 0).UTC().Format("01-02 15:04"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := 1; i < len(labels); i++ {
		a, errA := labelledMinute(labels[i-1], time.Now().UTC())
		b, errB := labelledMinute(labels[i], time.Now().UTC())
		if errA != nil || errB != nil || b-a != 60 {
			t.Fatalf("the chart's newest candles are %v: %s is followed by %s, want the next minute", labels, labels[i-1], labels[i])
		}
	}
}

// TestAChartInTheBackForwardCacheHoldsNoStream leaves a live chart for
// another page, which puts it in the browser's back-forward cache, and
// comes back to it: the server must hold no stream of it meanwhile, and the
// chart must be live again once shown.
func TestAChartInTheBackForwardCacheHoldsNoStream(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// testRestored: whether the page was last shown from the cache; unset
	// from pagehide until the next pageshow. testStates: the live badge's
	// states since the page was shown from the cache.
	restored := onEveryDocument(`addEventListener("pageshow", (e) => {
  window.testRestored = e.persisted;
  if (e.persisted) {
    window.testStates = [];
    new MutationObserver(() => {
      const b = document.getElementById("live-state");
      window.testStates.push(b ? b.dataset.state || "" : "");
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
  }
});
addEventListener("pagehide", () => { delete window.testRestored; });`)
	if err := chromedp.Run(ctx, restored, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT&period=1min&tz=utc")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, jsLiveState+` === "live"`)
	if n := metricSum(t, s.URL, "riskchart_streams_open", ""); n != 1 {
		t.Fatalf("%v streams open, want the chart's one", n)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/tiers?contract_code=BTC-USDT")); err != nil {
		t.Fatal(err)
	}
	// The server notices a stream closed at its next write, within a second
	// here (the sandbox's current candle changes every second).
	deadline := time.Now().Add(15 * time.Second)
	for metricSum(t, s.URL, "riskchart_streams_open", "") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server still holds the stream of the chart left for another page")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Back. A page restored from the cache fires no load event, which
	// chromedp.NavigateBack waits for, and chromedp keeps the context of the
	// page left: the restored page is asked through runtime.Evaluate, which
	// takes the frame's context as it is.
	ask := func(js string) (bool, error) {
		var v bool
		err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			res, exc, err := runtime.Evaluate(js).WithReturnByValue(true).Do(ctx)
			switch {
			case err != nil:
				return err
			case exc != nil:
				return fmt.Errorf("%s: %s", js, exc.Text)
			}
			return json.Unmarshal(res.Value, &v)
		}))
		return v, err
	}
	waitShown := func(js string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			ok, err := ask(js)
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: %v", js, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if _, err := ask(`history.back(), true`); err != nil {
		t.Fatal(err)
	}
	waitShown(`location.pathname === "/" && window.testRestored !== undefined`)
	if restored, err := ask(`window.testRestored`); err != nil || !restored {
		t.Fatalf("the chart was loaded again, not shown from the back-forward cache (%v): nothing here to check", err)
	}
	waitShown(jsLiveState + ` === "live"`)
	// Two live updates more than when first asked.
	waitShown(`((n) => (window.testLives ??= n + 2) <= n)(` + jsLiveUpdates + `)`)
	if n := metricSum(t, s.URL, "riskchart_streams_open", ""); n != 1 {
		t.Errorf("%v streams open after the chart was shown again, want its one", n)
	}
	// The stream closed on purpose is opened again at once: not a lost one
	// the chart reconnects to after a wait.
	if steady, err := ask(`!window.testStates.includes("reconnecting")`); err != nil || !steady {
		t.Errorf("the chart said it was reconnecting once shown again (%v): its stream was closed by its page, not lost", err)
	}
}
