package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
	"github.com/chromedp/chromedp/kb"

	"github.com/riskchart/riskchart/venueapi"
)

// The chart moved by hand: wheel, drag, the range slider, fingers, the
// keyboard and "Latest", each through the browser's own input events (the
// DevTools Input domain), as a person's would arrive; and new candles
// arriving on their boundary while the view is where the user put it.

// jsInView is the range of candles in view, as ECharts' data zoom holds it
// (first and last index).
const jsInView = jsChart + `.getModel().getComponent("dataZoom", 0).getValueRange()`

// jsPlace returns the page coordinates of the centre of a part of the chart:
// "grid" (the price pane) or the first of ECharts' shapes with the cursor
// given ("grab": the range slider's bar; "ew-resize": its left handle).
const jsPlace = `((part) => {
  if (part === "grid") {
    const g = ` + jsPriceGrid + `;
    return [g.x + g.width / 2, g.y + g.height / 2];
  }
  const r = document.getElementById("chart").getBoundingClientRect();
  const el = ` + jsChart + `.getZr().storage.getDisplayList().find((e) => e.cursor === part);
  if (!el) return null;
  const b = el.getBoundingRect().clone();
  b.applyTransform(el.getComputedTransform());
  return [r.x + b.x + b.width / 2, r.y + b.y + b.height / 2];
})`

func inView(t *testing.T, ctx context.Context) [2]float64 {
	t.Helper()
	return evalJS[[2]float64](t, ctx, jsInView)
}

// viewChanged waits until the view is no longer before and returns it.
func viewChanged(t *testing.T, ctx context.Context, before [2]float64) [2]float64 {
	t.Helper()
	waitFor(t, ctx, fmt.Sprintf(`JSON.stringify(%s) !== %q`, jsInView, fmt.Sprintf("[%g,%g]", before[0], before[1])))
	return inView(t, ctx)
}

func place(t *testing.T, ctx context.Context, part string) (x, y float64) {
	t.Helper()
	p := evalJS[[]float64](t, ctx, jsPlace+`(`+fmt.Sprintf("%q", part)+`)`)
	if len(p) != 2 {
		t.Fatalf("the chart has no %q part", part)
	}
	return p[0], p[1]
}

// drag presses the left button at (x, y), moves by dx in ten steps and
// releases it.
func drag(x, y, dx float64) chromedp.Tasks {
	tasks := chromedp.Tasks{input.DispatchMouseEvent(input.MouseMoved, x, y),
		input.DispatchMouseEvent(input.MousePressed, x, y).WithButton(input.Left).WithButtons(1).WithClickCount(1)}
	for i := 1; i <= 10; i++ {
		tasks = append(tasks, input.DispatchMouseEvent(input.MouseMoved, x+dx*float64(i)/10, y).WithButton(input.Left).WithButtons(1),
			chromedp.Sleep(16*time.Millisecond))
	}
	return append(tasks, input.DispatchMouseEvent(input.MouseReleased, x+dx, y).WithButton(input.Left).WithClickCount(1))
}

func width(v [2]float64) float64 { return v[1] - v[0] }

// livePoll is the app's poll of the newest candles, as a Fetch URL pattern.
const livePoll = "*" + venueapi.PathKLine + "?*&size=2"

// liveStream is the app's stream of pushed candles, as a Fetch URL pattern.
// The tests that hold the newest candle still refuse it too: the chart then
// falls back to its polls, which they answer or refuse.
const liveStream = "*" + venueapi.PathStreamKLine + "?*"

// stillPatterns are the requests openStill and the append test intercept.
func stillPatterns() []*fetch.RequestPattern {
	return []*fetch.RequestPattern{
		{URLPattern: livePoll, RequestStage: fetch.RequestStageRequest},
		{URLPattern: liveStream, RequestStage: fetch.RequestStageRequest},
	}
}

// openStill opens the chart page at u with the app's live polls and stream refused, so
// that a minute passing during a test cannot append a candle and move a
// view that ends on the newest one (appending is
// TestChartAppendsNewCandlesOnTheirBoundary's). Actions run first.
func openStill(t *testing.T, ctx context.Context, u string, actions ...chromedp.Action) {
	t.Helper()
	failEveryHeld(t, ctx, network.ErrorReasonBlockedByClient)
	actions = append(actions, fetch.Enable().WithPatterns(stillPatterns()), chromedp.Navigate(u))
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
}

func TestChartMovedByHand(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	openStill(t, ctx, s.URL+"/")
	n := evalJS[float64](t, ctx, jsChart+`.getOption().series[0].data.length`)
	newest := n - 1

	// Each step acts as a person would and says what must have happened
	// to the view (before, after): "" when it did.
	steps := []struct {
		name   string
		act    func(t *testing.T) chromedp.Action
		check  func(before, after [2]float64) string
		settle string // what else to wait for, if anything, once the view has moved
	}{
		{"the wheel turned away zooms in around the pointer", func(t *testing.T) chromedp.Action {
			x, y := place(t, ctx, "grid")
			return input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaY(-300)
		}, func(b, a [2]float64) string {
			if !(width(a) < width(b) && a[0] >= b[0] && a[1] <= b[1]) {
				return "not zoomed in within the view"
			}
			return ""
		}, ""},
		{"the wheel turned back zooms out", func(t *testing.T) chromedp.Action {
			x, y := place(t, ctx, "grid")
			return input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaY(300)
		}, func(b, a [2]float64) string {
			if !(width(a) > width(b)) {
				return "not zoomed out"
			}
			return ""
		}, ""},
		{"dragging the candles to the right shows older ones, at the same zoom", func(t *testing.T) chromedp.Action {
			x, y := place(t, ctx, "grid")
			return drag(x, y, 250)
		}, func(b, a [2]float64) string {
			if !(a[0] < b[0] && math.Abs(width(a)-width(b)) <= 1) {
				return "not panned back at the same zoom"
			}
			return ""
		}, ""},
		{"dragging the range slider's bar to the left shows older candles, at the same zoom", func(t *testing.T) chromedp.Action {
			x, y := place(t, ctx, "grab")
			return drag(x, y, -100)
		}, func(b, a [2]float64) string {
			if !(a[0] < b[0] && math.Abs(width(a)-width(b)) <= 1) {
				return "not moved back at the same zoom"
			}
			return ""
		}, ""},
		{"dragging the range slider's left handle to the left widens the view", func(t *testing.T) chromedp.Action {
			x, y := place(t, ctx, "ew-resize")
			return drag(x, y, -60)
		}, func(b, a [2]float64) string {
			if !(a[0] < b[0] && a[1] == b[1]) {
				return "not widened to the left alone"
			}
			return ""
		}, ""},
		{"Latest shows the newest candle at the same zoom", func(t *testing.T) chromedp.Action {
			return chromedp.Click(`#jump-latest`, chromedp.ByQuery)
		}, func(b, a [2]float64) string {
			if !(a[1] == newest && math.Abs(width(a)-width(b)) <= 1) {
				return "not on the newest candle at the same zoom"
			}
			return ""
		}, ""},
		{"the left arrow pans back a tenth of the view", func(t *testing.T) chromedp.Action {
			return chromedp.Tasks{chromedp.Focus(`#chart-area`, chromedp.ByQuery), chromedp.KeyEvent(kb.ArrowLeft)}
		}, func(b, a [2]float64) string {
			if step := math.Max(math.Floor(width(b)/10), 1); a[0] != b[0]-step || a[1] != b[1]-step {
				return fmt.Sprintf("not panned back by %g", step)
			}
			return ""
		}, ""},
		{"the right arrow pans forward again", func(t *testing.T) chromedp.Action {
			return chromedp.KeyEvent(kb.ArrowRight)
		}, func(b, a [2]float64) string {
			if a[1] != newest || width(a) != width(b) {
				return "not back on the newest candle"
			}
			return ""
		}, ""},
		{"+ zooms in", func(t *testing.T) chromedp.Action { return chromedp.KeyEvent("+") }, func(b, a [2]float64) string {
			if !(width(a) < width(b)) {
				return "not zoomed in"
			}
			return ""
		}, ""},
		{"- zooms out", func(t *testing.T) chromedp.Action { return chromedp.KeyEvent("-") }, func(b, a [2]float64) string {
			if !(width(a) > width(b)) {
				return "not zoomed out"
			}
			return ""
		}, ""},
		{"Home goes to the oldest candle and on, loading older ones towards the horizon", func(t *testing.T) chromedp.Action { return chromedp.KeyEvent(kb.Home) }, func(b, a [2]float64) string {
			if a[0] != 0 || math.Abs(width(a)-width(b)) > 1 { // each older chunk shown from its oldest candle, at the same zoom
				return "not on the oldest candle held, at the same zoom"
			}
			return ""
		}, fmt.Sprintf(`%s.getOption().series[0].data.length >= %g`, jsChart, n+2000)},
		{"End goes to the newest candle", func(t *testing.T) chromedp.Action { return chromedp.KeyEvent(kb.End) }, func(b, a [2]float64) string {
			// An older chunk that Home asked for may land after End, between
			// two reads: the view moves with it, so read the view and the
			// candles held at once.
			now := evalJS[[3]float64](t, ctx, `[...`+jsInView+`, `+jsChart+`.getOption().series[0].data.length]`)
			view, last := [2]float64{now[0], now[1]}, now[2]-1
			if view[1] != last || math.Abs(width(view)-width(b)) > 1 {
				return fmt.Sprintf("not on the newest candle (%g) at the same zoom: view %v", last, view)
			}
			return ""
		}, fmt.Sprintf(`%s[1] === %s.getOption().series[0].data.length - 1`, jsInView, jsChart)},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := inView(t, ctx)
			if err := chromedp.Run(ctx, st.act(t)); err != nil {
				t.Fatal(err)
			}
			after := viewChanged(t, ctx, before)
			if st.settle != "" {
				waitFor(t, ctx, st.settle)
				after = inView(t, ctx)
			}
			t.Logf("view %v, then %v", before, after)
			if problem := st.check(before, after); problem != "" {
				t.Errorf("%s: view %v, then %v", problem, before, after)
			}
		})
	}
	screenshot(t, ctx, "chart-moved-by-hand")
}

func TestChartPinchedOnAPhone(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	openStill(t, ctx, s.URL+"/", chromedp.Emulate(device.IPhone12))
	x, y := place(t, ctx, "grid")
	// touches moves two fingers from gap to gap apart, about (x, y), in ten
	// steps; with one finger, it moves it by gap instead.
	touches := func(fingers int, from, to float64) chromedp.Tasks {
		at := func(gap float64) []*input.TouchPoint {
			if fingers == 1 {
				return []*input.TouchPoint{{X: x + gap, Y: y, ID: 1}}
			}
			return []*input.TouchPoint{{X: x - gap/2, Y: y, ID: 1}, {X: x + gap/2, Y: y, ID: 2}}
		}
		tasks := chromedp.Tasks{input.DispatchTouchEvent(input.TouchStart, at(from))}
		for i := 1; i <= 10; i++ {
			tasks = append(tasks, input.DispatchTouchEvent(input.TouchMove, at(from+(to-from)*float64(i)/10)), chromedp.Sleep(16*time.Millisecond))
		}
		return append(tasks, input.DispatchTouchEvent(input.TouchEnd, nil))
	}
	for _, tc := range []struct {
		name    string
		fingers int
		from    float64
		to      float64
		check   func(b, a [2]float64) bool
	}{
		{"two fingers spread apart zoom in", 2, 40, 240, func(b, a [2]float64) bool { return width(a) < width(b) }},
		{"two fingers pinched together zoom out", 2, 240, 40, func(b, a [2]float64) bool { return width(a) > width(b) }},
		{"one finger moved to the right shows older candles", 1, -100, 100, func(b, a [2]float64) bool { return a[0] < b[0] && math.Abs(width(a)-width(b)) <= 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := inView(t, ctx)
			if err := chromedp.Run(ctx, touches(tc.fingers, tc.from, tc.to)); err != nil {
				t.Fatal(err)
			}
			after := viewChanged(t, ctx, before)
			t.Logf("view %v, then %v", before, after)
			if !tc.check(before, after) {
				t.Error("not so")
			}
		})
	}
	screenshot(t, ctx, "chart-pinched")
}

// TestChartAppendsNewCandlesOnTheirBoundary lets the next minute begin
// without waiting for it: the DevTools Fetch domain answers the app's next
// poll of the newest candles (size=2) with the newest candle the app has
// and the one that begins a minute later. The view stays on the candles the
// user put in it, and follows the newest when it ends on it.
func TestChartAppendsNewCandlesOnTheirBoundary(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	// A request for the next candle: the newest candle the app has, and
	// where to say the one given (nil if it could not be). Every
	// other live poll is refused, so the app has only the candles of its
	// first answer and those the test gives it.
	type nextCandle struct {
		newest map[string]any
		done   chan map[string]any // nil if it could not be given
	}
	next := make(chan nextCandle, 1)
	chromedp.ListenTarget(ctx, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		go func() {
			c := chromedp.FromContext(ctx)
			exec := cdp.WithExecutor(ctx, c.Target)
			var req nextCandle
			if strings.Contains(e.Request.URL, venueapi.PathStreamKLine) {
				fetch.FailRequest(e.RequestID, network.ErrorReasonBlockedByClient).Do(exec)
				return
			}
			select {
			case req = <-next:
			default:
				// Refused, as openStill's are: a minute passing during the
				// test must not append a candle of its own.
				if err := fetch.FailRequest(e.RequestID, network.ErrorReasonBlockedByClient).Do(exec); err != nil && ctx.Err() == nil {
					t.Logf("refusing %s: %v", e.Request.URL, err)
				}
				return
			}
			body, given, err := withNextCandle(e.Request.URL, req.newest)
			if err == nil {
				err = answerJSON(e.RequestID, body).Do(exec)
			}
			if err != nil {
				t.Errorf("answering %s with the next candle: %v", e.Request.URL, err)
				fetch.FailRequest(e.RequestID, network.ErrorReasonFailed).Do(exec)
				given = nil
			}
			req.done <- given
		}()
	})
	if err := chromedp.Run(ctx, fetch.Enable().WithPatterns(stillPatterns()), chromedp.Navigate(s.URL+"/?tz=utc")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	length := func() float64 { return evalJS[float64](t, ctx, jsChart+`.getOption().series[0].data.length`) }
	// The newest candle the app has: the one it drew last, as it labels it
	// (in UTC), as the server has it now, until the test gives it one.
	labels := evalJS[[]string](t, ctx, jsChart+`.getOption().xAxis[0].data.slice(-1)`)
	at, err := labelledMinute(labels[0], time.Now().UTC())
	if err != nil {
		t.Fatal(err)
	}
	newest, err := candleAt(s.URL, "BTC-USDT", at)
	if err != nil {
		t.Fatal(err)
	}
	appendOne := func(t *testing.T) {
		t.Helper()
		n := length()
		done := make(chan map[string]any, 1)
		select {
		case next <- nextCandle{newest, done}:
		case <-time.After(20 * time.Second): // an earlier request was never taken
			t.Fatal("the app did not poll for the newest candles")
		}
		var given map[string]any
		select {
		case given = <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("the app did not poll for the newest candles")
		}
		if given == nil {
			t.FailNow()
		}
		newest = given
		id, _ := given["id"].(json.Number).Int64()
		waitFor(t, ctx, fmt.Sprintf(`%s.getOption().series[0].data.length === %g`, jsChart, n+1))
		labels := evalJS[[]string](t, ctx, jsChart+`.getOption().xAxis[0].data.slice(-3)`)
		if want := time.Unix(id, 0).UTC().Format("01-02 15:04"); labels[2] != want {
			t.Errorf("the newest candles are labelled %q, want %q last", labels, want)
		}
		if notAMinuteApart(labels) > 0 {
			t.Errorf("the newest candles %q are not a minute apart", labels)
		}
	}

	t.Run("a view of older candles stays on them", func(t *testing.T) {
		do(t, ctx, jsChart+`.dispatchAction({type: "dataZoom", startValue: 100, endValue: 160})`)
		before := viewChanged(t, ctx, [2]float64{})
		appendOne(t)
		if after := inView(t, ctx); after != before {
			t.Errorf("the view moved from %v to %v", before, after)
		}
	})
	t.Run("a view ending on the newest candle follows it", func(t *testing.T) {
		click(t, ctx, `#jump-latest`)
		waitFor(t, ctx, fmt.Sprintf(`%s[1] === %g`, jsInView, length()-1))
		before := inView(t, ctx)
		appendOne(t)
		if after := inView(t, ctx); after != [2]float64{before[0] + 1, before[1] + 1} {
			t.Errorf("the view went from %v to %v, want one candle on", before, after)
		}
	})
	screenshot(t, ctx, "chart-appended")
}

// withNextCandle answers poll, the app's live poll, with the server's
// answer to it holding only newest, the newest candle the app has, and the
// one that begins a minute later, a copy of it, as a candle that has just
// opened would be: exactly one candle newer than the app's, whatever the
// time.
func withNextCandle(poll string, newest map[string]any) ([]byte, map[string]any, error) {
	env, err := getKLine(poll)
	if err != nil {
		return nil, nil, err
	}
	id, err := newest["id"].(json.Number).Int64()
	if err != nil {
		return nil, nil, fmt.Errorf("the newest candle's id %v: %w", newest["id"], err)
	}
	next := make(map[string]any, len(newest))
	for k, v := range newest {
		next[k] = v
	}
	next["id"] = json.Number(strconv.FormatInt(id+60, 10))
	env["data"] = []any{newest, next}
	body, err := json.Marshal(env)
	return body, next, err
}

// candleAt reads the 1min candle id of contract from the server.
func candleAt(base, contract string, id int64) (map[string]any, error) {
	env, err := getKLine(fmt.Sprintf("%s%s?contract_code=%s&period=1min&from=%d&to=%d", base, venueapi.PathKLine, contract, id, id))
	if err != nil {
		return nil, err
	}
	data, _ := env["data"].([]any)
	if len(data) != 1 {
		return nil, fmt.Errorf("candle %d of %s: %d candles in the answer", id, contract, len(data))
	}
	c, _ := data[0].(map[string]any)
	return c, nil
}

// getKLine asks the server's KLine path at u, numbers kept as the venue
// wrote them.
func getKLine(u string) (map[string]any, error) {
	res, err := http.Get(u)
	if err != nil {
		return nil, fmt.Errorf("asking %s: %w", u, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("asking %s: HTTP %d", u, res.StatusCode)
	}
	var env map[string]any
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("reading %s: %w", u, err)
	}
	return env, nil
}

// labelledMinute reads the chart's time label of a minute candle, in UTC
// ("01-02 15:04"), as the candle's id: of now's year, or of the year before
// when that would be in the future.
func labelledMinute(label string, now time.Time) (int64, error) {
	at, err := time.Parse("01-02 15:04", label)
	if err != nil {
		return 0, fmt.Errorf("the chart's newest label %q: %w", label, err)
	}
	at = at.AddDate(now.Year(), 0, 0)
	if at.After(now) {
		at = at.AddDate(-1, 0, 0)
	}
	return at.Unix(), nil
}
