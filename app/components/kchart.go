package components

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/echarts"
	"github.com/riskchart/riskchart/app/studies"
	"github.com/riskchart/riskchart/venueapi"
)

// Actions a page sends its chart.
const (
	// ActionJumpToLatest shows the newest candles at the current zoom width.
	ActionJumpToLatest = "chart/jump-to-latest"
	actionRetryChart   = "chart/retry"
)

// KLineChart draws a contract's candles and volume, keeps the newest candle
// live (pushed by the server's stream, else polled: livestatus.go), loads
// older candles as the user pans back, and shows the legend of the candle
// under the crosshair. Its parent sets the fields.
type KLineChart struct {
	app.Compo

	Contract string
	Period   venueapi.Period
	UTC      bool  // time in UTC rather than the browser's zone
	Dark     bool  // dark theme
	Decimals int32 // price precision of the contract; -1 keeps the venue's digits
	Compact  bool  // a small embed's layout (chartopt.Compact)

	Look Look // price scale and chart style (chartlook.go)

	// OnCandle, when set, is told the candle the user clicked or hovered.
	OnCandle func(ctx app.Context, c venueapi.Candle, clicked bool)
	// OnError, when set, is told what the chart says went wrong.
	OnError func(ctx app.Context, msg string)
	// OnDrawn, when set, is told each time the chart draws a contract's candles.
	OnDrawn func(ctx app.Context)
	// OnLayout, when set, is told the price pane's height, px, each time the
	// full layout (not Compact) has been drawn, drawn again or resized, its
	// legend fitted.
	OnLayout func(ctx app.Context, pricePane float64)

	shown string // contract|period the chart holds
	// delivery is a type code's future (chartfuture.go): the delivery the
	// server's answer named, or before any answer the one the browser's
	// clock gives; 0 for other codes. heard is the latest the stream named
	// while the chart loaded.
	delivery int64
	heard    int64
	candles  []venueapi.Candle
	chart    *echarts.Chart
	hover    int // index of the candle under the crosshair; -1: the latest
	loading  bool
	older    bool   // an older chunk is being loaded
	olderErr string // why the last older chunk did not load
	horizon  bool   // the venue has nothing older
	stale    bool
	status   string // what the chart area says instead of a chart
	failed   bool
	gen      int // bumps on every reload: late answers of older loads are dropped
	// gone is closed when the chart leaves the page, and nil while it is
	// not on it: go-app neither ends the context of a component it removes
	// nor runs what it dispatches then, so the chart's loops wait on this.
	gone     chan struct{}
	darkDrew bool
	lookDrew Look
	utcDrew  bool
	// decimalsDrew is the precision the labels on show were written at: a
	// contract list that comes after the draw (an embed's, or a page the
	// service worker answered) redraws them at the contract's own.
	decimalsDrew int32
	// savedAt is when the candles on show were fetched, when they come from
	// browser storage (a second visit, or no network); zero for live data.
	savedAt time.Time
	seenAt  time.Time // when the server last answered with candles
	zone    chartZone // the browser's zone over the candles held (chartzone.go)
	offline bool
	// keepView: the chart was adopted from the first paint, whose view the
	// app's first draw keeps.
	keepView bool

	studySet   *studies.Set // the view's studies over the held candles (chartstudies.go)
	studySpecs string       // the indicators studySet computes
	toHorizon  bool         // Home: keep loading older chunks until the venue has none

	feed       liveFeed
	source     *browser.EventSource // the stream of the series on show; nil: none open
	sourceGen  int                  // bumps when a stream opens or closes: an old one's late events are dropped
	streamed   string               // contract|period of the stream, opened or due
	pushedLate []venueapi.Candle    // pushed while the chart was loading, applied once it has drawn
	gap        chartGap             // missed candles being fetched (chartgap.go)
	pollBack   pollBackoff          // polls failing in a row: the next waits (backoff.go)
	retry      chartRetry           // loading again once the server answers (chartretry.go)

	compactDrew bool // the compact layout is drawn
	narrowDrew  bool // the frame is a narrow chart's (chartopt.Style.Narrow)
	// legendTop is the price grid's top under the legend as last measured
	// (chartlegend.go; 0: not yet), topDrew the top the frame has.
	legendTop int
	topDrew   int
	// span is the held candles' prices, and room the price axis' room
	// their labels need (chartroom.go); 0: the frame's default.
	span priceSpan
	room int
}

// LatestSize is how many of the latest candles a chart loads first.
const LatestSize = 300

// keep stores the candles just drawn for the next visit (browser storage),
// after the draw's task (keepLater).
func (k *KLineChart) keep(ctx app.Context, candles []venueapi.Candle) {
	key, at := k.storageKey(), time.Now()
	keepLater(ctx, func() { browser.KeepLastSeen(browser.LocalStorage(), key, venueapi.Candles(candles), at) })
}

func (k *KLineChart) storageKey() string {
	code := k.Contract
	if k.delivery != 0 {
		code += "@" + strconv.FormatInt(k.delivery, 10) // one future's candles (chartfuture.go)
	}
	return "riskchart/chart/" + code + "/" + string(k.Period)
}

// OnMount starts the chart and its live updates; it runs only in the browser.
func (k *KLineChart) OnMount(ctx app.Context) {
	k.hover = -1
	ctx.Handle(ActionJumpToLatest, func(ctx app.Context, a app.Action) { k.JumpToLatest() })
	// The chart's own context: the Retry button's goes with the button, and
	// with it the answer of the request it started.
	ctx.Handle(actionRetryChart, func(ctx app.Context, a app.Action) { k.reload(ctx) })
	k.gone = make(chan struct{})
	mode := k.feed.mode
	k.reload(ctx) // first: the request goes out while the chart starts (and the stream opens)
	if !k.adoptChart(ctx) {
		k.initChart(ctx)
	} else if len(k.candles) == 0 && k.feed.mode == mode {
		// The first paint's chart, adopted, is what the first render showed
		// around it: no status over it, no candles of the app's yet. Nothing
		// to render again (docs/startup.md, "One render at mount").
		ctx.PreventUpdate()
	}
	k.retryWhenBack(ctx)
	gone := k.gone
	ctx.Async(func() { k.poll(ctx, gone) })
	ctx.Async(func() { k.countdown(ctx, gone) })
}

// OnUpdate follows the parent's changes of contract, period, zone or theme.
func (k *KLineChart) OnUpdate(ctx app.Context) {
	if !app.IsClient {
		return // a prerender on the server: no chart, no requests
	}
	switch {
	case k.shown != k.Contract+"|"+string(k.Period):
		k.reload(ctx)
	case k.chart != nil && (k.frameStale() || k.UTC != k.utcDrew || (k.Decimals != k.decimalsDrew && len(k.candles) > 0)):
		k.redrawAll()
		ctx.Defer(k.fitted)
	}
}

// OnDismount stops live updates and frees the chart.
func (k *KLineChart) OnDismount() {
	if k.gone != nil {
		close(k.gone)
		k.gone = nil
	}
	k.stopRetrying()
	k.closeStream()
	if k.chart != nil {
		k.chart.Dispose()
		k.chart = nil
	}
}

// loc is the zone the chart shows times in: UTC, or the browser's zone,
// right over the candles held and now (chartzone.go).
func (k *KLineChart) loc() *time.Location {
	if len(k.candles) > 0 {
		return k.locFrom(k.candles[0].ID)
	}
	return k.locFrom(time.Now().Unix())
}

// locFrom is loc right from Unix second from on: older candles than those
// held are labelled with it before they join them.
func (k *KLineChart) locFrom(from int64) *time.Location {
	if k.UTC {
		return time.UTC
	}
	now := time.Now().Unix()
	if chartopt.LabelsInUTC(k.Period) {
		from = now // daily and monthly candles are named in UTC: the zone is now's (the offline mark's)
	}
	return k.zone.covering(browser.UTCOffset, from, now)
}

// reload fetches the latest candles of the contract and period.
func (k *KLineChart) reload(ctx app.Context) {
	k.gen++
	gen := k.gen
	k.toHorizon = false
	k.shown = k.Contract + "|" + string(k.Period)
	k.delivery, k.heard = deliveryOf(k.Contract, time.Now().Unix()), 0 // until the server's answer names it
	k.candles, k.hover, k.horizon, k.stale, k.failed, k.older, k.olderErr = nil, -1, false, false, false, false, ""
	k.loading, k.status = true, "Loading "+k.Contract+" "+string(k.Period)+"…"
	k.pushedLate, k.gap = nil, chartGap{}
	if k.streamed != k.shown && (k.feed.mode != feedPolling || k.source != nil) {
		// While polling, the next retry opens the stream of the view then
		// shown; a retry's stream open now is the series left's, whose
		// candles must not reach this one: it gives way to this one's.
		k.openStream(ctx)
	}
	if k.chart != nil {
		k.chart.Load([]byte("[]"), []byte("[]"), []byte("[]"), []byte("[]"))
		k.chart.Redraw()
	}
	k.savedAt, k.offline = time.Time{}, false
	// The last chart seen (browser storage) stands in until the network
	// answers, unless the first paint holds the answer already: decoding the
	// saved candles then only delayed the end of Go's first run (by 35-45 ms
	// on a next visit: docs/startup.md, "Go's first run, by function").
	if !browser.HasFirstPaintAnswer(k.Contract, k.Period) {
		if saved, at, ok := browser.ReadLastSeen[venueapi.Candles](browser.LocalStorage(), k.storageKey()); ok && len(saved) > 0 {
			k.candles, k.savedAt = saved, at
			k.draw(ctx) // until the network answers
		}
	}
	q := venueapi.KLineQuery{ContractCode: k.Contract, Period: k.Period, Size: LatestSize}
	ctx.Async(func() {
		res, err := firstPaintKLine(q)
		if errors.Is(err, errNoFirstPaint) {
			res, err = api.FetchKLine(ctx, q)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if gen == k.gen {
				k.loaded(ctx, res, err)
			}
		})
	})
}

// loaded takes the answer of the latest candles the chart asked for.
func (k *KLineChart) loaded(ctx app.Context, res api.KLine, err error) {
	k.loading = false
	k.retry.unanswered, k.retry.failedAt = api.Unanswered(err), time.Now()
	if api.Unanswered(err) && !k.savedAt.IsZero() {
		k.offline = true // keep the saved chart, marked
		return
	}
	if err != nil {
		k.candles, k.savedAt = nil, time.Time{}
		k.fail(ctx, err)
		return
	}
	k.stale, k.savedAt, k.seenAt = res.Stale, time.Time{}, time.Now()
	k.pollBack = pollBackoff{} // the server answered: polls at the chart's pace
	if res.Delivery != 0 {
		k.delivery = res.Delivery // the server's word, not the browser's clock
	}
	if k.laterFuture(k.heard) {
		k.reload(ctx) // the stream has named the next future meanwhile
		return
	}
	if len(res.Candles) == 0 {
		k.candles = nil
		k.status = "No candles for " + k.Contract + " " + string(k.Period) + "."
		return
	}
	k.candles = res.Candles
	k.draw(ctx)
	k.keep(ctx, res.Candles)
	if late := k.pushedLate; len(late) > 0 && k.chart != nil {
		k.pushedLate = nil
		k.takeLive(ctx, late)
	}
}

func (k *KLineChart) fail(ctx app.Context, err error) {
	k.failed = true
	switch {
	case errors.Is(err, api.ErrUnknownContract):
		k.status = "The venue does not know the contract " + k.Contract + "."
		// Its stream is refused too (404): closed, rather than reconnected
		// to no end under "Reconnecting…". Retry, or another view, opens one.
		k.closeStream()
		k.streamed = ""
		k.feed.stop()
	default:
		k.status = "Could not load the chart. " + api.Words(err)
		browser.Warn("the chart did not load", "contract", k.Contract, "period", k.Period, "err", err) // the technical text: the console's
	}
	if k.OnError != nil {
		k.OnError(ctx, k.status)
	}
}

// draw puts the loaded candles on the chart, showing the latest 120.
func (k *KLineChart) draw(ctx app.Context) {
	if k.chart == nil {
		return // no chart library: the status says so
	}
	k.span = spanOf(k.candles)
	k.fitRoom()
	if k.frameStale() && !k.setFrame() {
		return
	}
	k.chart.SetRoom(k.room)
	k.loadAll()
	n := len(k.candles)
	if start, end := k.chart.View(); k.keepView && end > start && end < n {
		k.chart.Draw(start, end) // where the user has moved the first paint
	} else {
		k.chart.Draw(max(0, n-shownFirst), n-1)
	}
	k.keepView = false
	k.status, k.failed = "", false
	ctx.Defer(k.fitted) // once the legend shows the studies drawn
	browser.MarkDrawn()
	if k.OnDrawn != nil {
		k.OnDrawn(ctx)
	}
}

// adoptChart takes over the first paint's chart (web/chart-boot.js), at
// once: go-app has just replaced the prerendered page, and the browser must
// not paint it without its chart.
func (k *KLineChart) adoptChart(ctx app.Context) bool {
	host := browser.ElementByID("chart-area")
	if !host.Truthy() {
		return false
	}
	instance, el, first, ok := browser.AdoptFirstPaint(k.Contract, k.Period)
	if !ok {
		return false // no candles drawn for this view: the app starts ECharts itself
	}
	k.chart, k.darkDrew = echarts.Adopt(host, instance, el, first.Dark), first.Dark
	if first.PriceTop > 0 {
		// Under the legend the script measured, as fitLegend would: the
		// app's first draw keeps the candles where they are.
		k.legendTop = first.PriceTop
	}
	browser.Mark(browser.MarkAdopted)
	k.listen(ctx)
	k.attachAxes()
	k.status = "" // the latest candles are on show; the app's own follow
	k.keepView = true
	return true
}

// listen follows the pointer and the zoom of the chart.
func (k *KLineChart) listen(ctx app.Context) {
	k.chart.OnPointer(func(i int) { ctx.Dispatch(func(ctx app.Context) { k.pointTo(ctx, i, false) }) })
	k.chart.OnClick(func(i int) { ctx.Dispatch(func(ctx app.Context) { k.pointTo(ctx, i, true) }) })
	k.chart.OnPointerOut(func() { ctx.Dispatch(func(ctx app.Context) { k.hover = -1 }) }) // the legend shows the latest again
	k.chart.OnResize(func() {
		ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate() // the page around the chart is as it was
			if k.chart != nil && len(k.candles) > 0 && k.frameStale() {
				k.redrawAll() // across NarrowWidth: the legend's lines changed
			}
			k.fitted(ctx) // wider or narrower, the legend takes fewer or more lines
		})
	})
	k.chart.OnZoom(func(start, _ int) {
		ctx.Dispatch(func(ctx app.Context) {
			if k.chart != nil {
				k.chart.FollowZoom() // the new view's axes may not span the newest candle
			}
			if start == 0 {
				k.loadOlder(ctx)
			}
		})
	})
}

// initChart starts ECharts with the frame, before the candles arrive.
func (k *KLineChart) initChart(ctx app.Context) {
	k.chart = echarts.Init(browser.ElementByID("chart-area"), "")
	if k.chart == nil {
		k.failed, k.status = true, "The chart library did not load."
		return
	}
	k.listen(ctx)
	if k.setFrame() && len(k.candles) > 0 {
		k.draw(ctx)
	}
}

// setFrame gives the chart the frame of the theme, reporting success.
func (k *KLineChart) setFrame() bool {
	style := k.style()
	if err := k.chart.SetFrame(style); err != nil {
		k.failed, k.status = true, err.Error()
		return false
	}
	k.darkDrew, k.lookDrew, k.compactDrew, k.narrowDrew, k.topDrew = k.Dark, k.Look, false, style.Narrow, style.PriceTop
	if k.Compact {
		patch, err := chartopt.Compact(style)
		if err != nil {
			k.failed, k.status = true, err.Error()
			return false
		}
		k.chart.Patch(patch)
		k.compactDrew = true
	}
	k.attachAxes()
	return true
}

// frameStale reports whether the drawn frame is not the one of the theme,
// layout and look asked for.
func (k *KLineChart) frameStale() bool {
	return k.darkDrew != k.Dark || k.compactDrew != k.Compact || k.lookDrew != k.Look || k.narrowDrew != k.narrow()
}

// redrawAll redraws after a theme or zone change, keeping the view.
func (k *KLineChart) redrawAll() {
	start, end := k.chart.View()
	k.fitRoom() // the contract's decimals may have come
	if k.frameStale() {
		k.setFrame()
	}
	k.chart.SetRoom(k.room)
	k.loadAll()
	k.chart.Draw(start, end)
}

func (k *KLineChart) pointTo(ctx app.Context, i int, clicked bool) {
	if i < 0 || i >= len(k.candles) {
		return
	}
	k.hover = i
	if k.OnCandle != nil {
		k.OnCandle(ctx, k.candles[i], clicked)
	}
}

// loadOlder prepends the chunk of up to 2000 candles before the oldest held,
// keeping the view where it was.
func (k *KLineChart) loadOlder(ctx app.Context) {
	if k.older || k.horizon || len(k.candles) == 0 {
		return
	}
	to := k.Period.Prev(k.candles[0].ID)
	if to < 0 {
		k.horizon = true
		return
	}
	from := max(k.Period.Back(to, venueapi.KLineMaxSize-1), 0) // long periods: the chunk reaches back past 1970, the venue's history does not
	k.older, k.olderErr = true, ""
	before := k.candles[0].ID
	k.fetchRange(ctx, from, to, func(ctx app.Context, res api.KLine, err error) { k.olderLoaded(ctx, before, res, err) })
}

// olderLoaded takes the answer of the older chunk loadOlder asked for, the
// candles before the one whose id is before, and prepends them.
func (k *KLineChart) olderLoaded(ctx app.Context, before int64, res api.KLine, err error) {
	k.older = false
	if len(k.candles) == 0 || k.candles[0].ID != before {
		// The candles it was asked before have gone meanwhile (the kept
		// chart of a visit before gave way to the server's candles, or to
		// its failure): it no longer meets the candles held.
		return
	}
	if err != nil {
		k.olderErr = api.Words(err) // keep what is drawn; panning back again retries
		browser.Warn("older candles did not load", "err", err)
		return
	}
	var older []venueapi.Candle
	for _, c := range res.Candles {
		if c.ID < k.candles[0].ID { // never a duplicate at the seam
			older = append(older, c)
		}
	}
	if len(older) == 0 {
		k.horizon, k.toHorizon = true, false
		return
	}
	began := browser.Now()
	x, pointed := 0.0, false
	if k.hover >= 0 {
		x, pointed = k.chart.PixelOf(k.hover)
	}
	start, end := k.chart.View()
	a := chartopt.Data(older, k.Period, k.locFrom(older[0].ID))
	k.candles = append(older, k.candles...)
	k.chart.Prepend(a.Labels, a.Prices, a.Ups, a.Downs)
	k.loadStudies(false) // extended: the studies that allow it keep their values
	k.widenRoom(older)
	k.chart.Draw(start+len(older), end+len(older))
	browser.Measure("riskchart:prepend", began)
	k.towardsHorizon(ctx)
	if pointed {
		// The crosshair's index now names another candle: point
		// again where it was, at the candle now there.
		k.chart.PointAtX(x)
	}
}

// fetchRange asks for the candles of the series on show with ids in [from,
// to] and hands the answer to done on the app's goroutine, unless the chart
// has loaded again, or another view, meanwhile.
func (k *KLineChart) fetchRange(ctx app.Context, from, to int64, done func(ctx app.Context, res api.KLine, err error)) {
	gen := k.gen
	q := venueapi.KLineQuery{ContractCode: k.Contract, Period: k.Period, From: from, To: to, Range: true}
	ctx.Async(func() {
		res, err := api.FetchKLine(ctx, q)
		ctx.Dispatch(func(ctx app.Context) {
			switch {
			case gen != k.gen:
			case err == nil && k.laterFuture(res.Delivery):
				k.reload(ctx) // the candles are the next future's (chartfuture.go)
			default:
				done(ctx, res, err)
			}
		})
	})
}

// pollPace is how often the chart polls: once a second for minute and
// hour periods, every five seconds for longer ones.
func (k *KLineChart) pollPace() time.Duration {
	if k.Period.Seconds() == 0 || k.Period.Seconds() >= 4*3600 {
		return 5 * time.Second
	}
	return time.Second
}

// poll keeps the newest candle live while the stream does not, at its pace
// (pollPace), and after failures no sooner than the backoff or the server's
// Retry-After allow (pollBack), until gone is closed.
func (k *KLineChart) poll(ctx app.Context, gone <-chan struct{}) {
	for {
		select {
		case <-gone:
			return
		case <-time.After(k.pollPace()):
		}
		var gen int
		var q venueapi.KLineQuery
		ready := make(chan bool, 1)
		ctx.Dispatch(func(ctx app.Context) {
			gen = k.gen
			q = venueapi.KLineQuery{ContractCode: k.Contract, Period: k.Period, Size: 2}
			changed := false
			if reopenIn, closeIt := k.feed.silent(time.Now(), rand.Float64()); closeIt {
				k.closeStream() // held back by a proxy: poll
				k.reopenStream(ctx, reopenIn)
				changed = true
			}
			loading := k.loading
			k.retryIfDown(ctx, false)
			if !changed && k.loading == loading {
				ctx.PreventUpdate() // a check that changed nothing on show: no render of the page each second
			}
			ready <- len(k.candles) > 0 && !k.loading && k.chart != nil && k.feed.polls() && !k.pollBack.waits(time.Now())
		})
		select {
		case <-gone:
			return // what was dispatched will not run
		case ok := <-ready:
			if !ok {
				continue
			}
		}
		res, err := api.FetchKLine(ctx, q)
		ctx.Dispatch(func(ctx app.Context) {
			if gen == k.gen {
				k.polled(ctx, res, err)
			}
		})
	}
}

// polled takes the answer of a poll for the latest two candles.
func (k *KLineChart) polled(ctx app.Context, res api.KLine, err error) {
	k.offline = api.Unanswered(err)
	if err != nil {
		k.stale = true
		k.pollFailed(err)
		return
	}
	k.stale, k.seenAt = res.Stale, time.Now()
	if !k.savedAt.IsZero() || k.laterFuture(res.Delivery) {
		k.reload(ctx) // the network is back: the saved chart gives way; or the next future's (chartfuture.go)
		return
	}
	k.takeLive(ctx, res.Candles)
	if !k.gap.filling {
		k.pollBack = pollBackoff{} // drawn: the chart's pace again
	}
}

// pollFailed holds the next poll back after a poll, or the fetch of the
// candles one found missed, failed with err (backoff.go).
func (k *KLineChart) pollFailed(err error) {
	now := time.Now()
	k.pollBack.failed(err, api.RetryAfter(err), now, k.pollPace(), rand.Float64())
	browser.Debug("the chart's poll failed", "failures", k.pollBack.failures, "wait", k.pollBack.until.Sub(now), "err", err)
}

// openStream opens the stream of the series on show; the browser's
// EventSource delivers its events, which go to the chart through Dispatch.
func (k *KLineChart) openStream(ctx app.Context) {
	k.closeStream()
	k.streamed = k.shown
	if !browser.EventSourceSupported() {
		k.feed.unsupported()
		return
	}
	gen, ch := k.sourceGen, venueapi.Channel(k.Contract, k.Period)
	on := func(f func(ctx app.Context)) {
		ctx.Dispatch(func(ctx app.Context) {
			if gen == k.sourceGen {
				f(ctx)
			}
		})
	}
	k.feed.start()
	query := url.Values{"contract_code": {k.Contract}, "period": {string(k.Period)}}
	k.source = browser.OpenEventSource(browser.Origin()+streamPath+"?"+query.Encode(), browser.EventHandlers{
		Open:    func() { on(func(app.Context) { k.feed.open(time.Now()) }) },
		Message: func(_, data string) { on(func(ctx app.Context) { k.pushed(ctx, ch, data) }) },
		Named:   map[string]func(string){"state": func(data string) { on(func(ctx app.Context) { k.streamState(ctx, ch, data) }) }},
		Error: func(closed bool) {
			on(func(ctx app.Context) {
				if reopenIn, closeIt := k.feed.fail(closed, rand.Float64()); closeIt {
					k.closeStream()
					k.reopenStream(ctx, reopenIn)
				}
			})
		},
		// Back from the back-forward cache, whose page closed the stream:
		// another at once, the badge as it was; what came meanwhile is
		// fetched with the stream's first candles (chartgap.go).
		Shown: func() { on(k.openStream) },
	})
}

// closeStream closes the stream, if one is open; its late events are dropped.
func (k *KLineChart) closeStream() {
	k.sourceGen++
	k.source.Close()
	k.source = nil
}

// reopenStream opens the stream of the series then on show after d, unless
// another has opened or closed meanwhile.
func (k *KLineChart) reopenStream(ctx app.Context, d time.Duration) {
	gen := k.sourceGen
	ctx.Async(func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		ctx.Dispatch(func(ctx app.Context) {
			if gen == k.sourceGen && k.gone != nil { // still on the page
				k.openStream(ctx)
			}
		})
	})
}

// pushed draws a candle the stream pushed: {"ch":…, then the venue's
// record}. Candles pushed while the chart loads wait for it.
func (k *KLineChart) pushed(ctx app.Context, ch, data string) {
	e, err := venueapi.DecodeStreamCandle([]byte(data))
	if err != nil || e.Ch != ch {
		return // not this series' candle
	}
	c := e.Candle
	k.feed.event()
	k.pollBack = pollBackoff{}
	k.offline, k.seenAt = false, time.Now()
	switch {
	case k.loading:
		k.pushedLate, _ = holdLive(k.pushedLate, []venueapi.Candle{c}, heldMost)
	case len(k.candles) == 0 || k.chart == nil:
		// Nothing drawn to update: a failed load's Retry, or no chart library.
	case !k.savedAt.IsZero():
		k.reload(ctx) // the network is back: the saved chart gives way
	default:
		k.takeLive(ctx, []venueapi.Candle{c})
	}
}

// streamState reads the stream's state event: whether the server's candles
// stand in for a venue that fails, and a type code's future, which, once
// later than the chart's, the chart loads (chartfuture.go).
func (k *KLineChart) streamState(ctx app.Context, ch, data string) {
	st, err := venueapi.DecodeStreamState([]byte(data))
	if err != nil || st.Ch != ch {
		return
	}
	k.feed.event()
	k.pollBack = pollBackoff{}
	k.stale = st.Stale
	if !st.Stale {
		k.offline, k.seenAt = false, time.Now()
	}
	switch d := int64(st.Delivery); {
	case k.loading:
		k.heard = max(k.heard, d) // the answer on its way may be the last future's
	case k.laterFuture(d):
		k.reload(ctx)
	}
}

// loadAll hands the chart every candle held, as the view's zone and
// decimals write them, and the studies over them.
func (k *KLineChart) loadAll() {
	a := chartopt.Data(k.candles, k.Period, k.loc())
	if chartopt.PriceStep(k.Decimals) != k.chart.PriceStep() {
		// The price axis' least interval is the contract's tick: other
		// decimals (a switch to another contract, or the list come while
		// the chart loaded) need it handed over again. Not otherwise: each
		// handover makes the axes' label functions anew.
		k.attachAxes()
	}
	k.utcDrew, k.decimalsDrew = k.UTC, k.Decimals
	k.chart.Load(a.Labels, a.Prices, a.Ups, a.Downs)
	k.loadStudies(true)
}

// revise puts c in place of the candle of its id among candles, ascending,
// and reports whether that changed it. The poll brings the candle before
// the current one each time: only a change of it is worth a redraw.
func revise(candles []venueapi.Candle, c venueapi.Candle) bool {
	i, ok := slices.BinarySearchFunc(candles, c.ID, func(h venueapi.Candle, id int64) int { return cmp.Compare(h.ID, id) })
	if !ok || candles[i].Equal(c) {
		return false
	}
	candles[i] = c
	return true
}

// applyLive updates the newest candle and appends the ones that began since,
// following the newest candle only when the user's view ends on it. When
// only the newest candle moved, it alone is redrawn (app/echarts/live.go).
func (k *KLineChart) applyLive(fresh []venueapi.Candle) {
	defer browser.Measure("riskchart:live", browser.Now())
	start, end := k.chart.View()
	following := end >= len(k.candles)-1
	appended, revised := 0, false
	for _, c := range fresh {
		last := k.candles[len(k.candles)-1]
		switch {
		case c.ID == last.ID:
			k.candles[len(k.candles)-1] = c
		case c.ID > last.ID:
			k.candles = append(k.candles, c)
			appended++
		default:
			// An older candle's change: the one before the current candle
			// is final only 10 s after its close (docs/decisions.md,
			// "Closed candles"), and the stream and the poll bring it.
			revised = revise(k.candles, c) || revised
			continue
		}
		up, down := chartopt.AppendVolume(nil, nil, c)
		k.chart.SetLast(string(chartopt.AppendLabel(nil, c.ID, k.Period, k.loc())), string(chartopt.AppendPrice(nil, c)), string(up), string(down), c.ID > last.ID)
	}
	if revised {
		k.loadAll() // not the newest alone: every candle again
	} else {
		k.liveStudies()
	}
	k.widenRoom(fresh)
	switch {
	case following && appended > 0:
		k.chart.Draw(start+appended, end+appended)
	case appended > 0 || revised:
		k.chart.Redraw()
	default:
		k.chart.ShowLast()
	}
}

// JumpToLatest shows the newest candles at the current zoom width.
func (k *KLineChart) JumpToLatest() {
	if k.chart == nil || len(k.candles) == 0 {
		return
	}
	start, end := k.chart.View()
	width := max(end-start, 20)
	n := len(k.candles)
	k.chart.Zoom(max(0, n-1-width), n-1)
}

// onKey zooms and pans from the keyboard: arrows pan, + and - zoom, Home
// and End go to the oldest and the newest candles.
func (k *KLineChart) onKey(ctx app.Context, e app.Event) {
	if k.chart == nil || len(k.candles) == 0 {
		return
	}
	start, end := k.chart.View()
	width := end - start
	step := max(width/10, 1)
	n := len(k.candles)
	key := e.Get("key").String()
	switch key {
	case "ArrowLeft":
		start, end = max(0, start-step), max(width, end-step)
	case "ArrowRight":
		start, end = min(n-1-width, start+step), min(n-1, end+step)
	case "+", "=":
		start, end = min(start+step, end-5), max(end-step, start+5)
	case "-", "_":
		start, end = max(0, start-step), min(n-1, end+step)
	case "Home":
		start, end = 0, width
	case "End":
		start, end = n-1-width, n-1
	default:
		return
	}
	k.toHorizon = key == "Home" // Home goes on, chunk by chunk, to the start of the venue's history
	e.PreventDefault()
	k.unpoint() // the keys move the candles from under the crosshair
	k.chart.Zoom(max(start, 0), min(end, n-1))
	if start <= 0 {
		k.loadOlder(ctx)
	}
}

// Render draws the legend, the chart area and its states.
func (k *KLineChart) Render() app.UI {
	var boot app.UI
	if app.IsServer {
		boot = k.renderFirstPaint()
	}
	drawn := "" // what the chart shows, for tests and embedding pages
	if k.status == "" && len(k.candles) > 0 {
		drawn = k.shown
	}
	class := "kchart"
	if k.Look.Indicators != "" {
		// From the view, so that the server's page has it too: the chart
		// area's height with studies (web/style.css) is the first paint's.
		class = "kchart studies"
	}
	return app.Section().Class(class).DataSet("drawn", drawn).Aria("label", "Chart of "+k.Contract).Body(
		k.legend(),
		k.chartArea(),
		app.Div().Class("chart-notes").Attr("role", "status").Body(k.notes()...),
		boot,
	)
}

// legend is the candle under the crosshair (the last one when there is
// none), or its empty place.
func (k *KLineChart) legend() app.UI {
	n := len(k.candles)
	if n == 0 {
		return app.Div().ID("legend").Class("legend").Aria("live", "off")
	}
	i := k.hover
	if i < 0 || i >= n {
		i = n - 1
	}
	c := k.candles[i]
	v := legendOf(c, k.Decimals)
	dir := "down"
	if v.Up {
		dir = "up"
	}
	return app.Dl().ID("legend").Class("legend "+dir).DataSet("id", strconv.FormatInt(c.ID, 10)).DataSet("hover", k.hover >= 0 && k.hover < n-1).Aria("label", "Candle under the crosshair").Body(
		legendItem("time", "Time", chartopt.Label(c.ID, k.Period, k.loc())+k.zoneName(c.ID)),
		legendItem("open", "O", v.Open), legendItem("high", "H", v.High), legendItem("low", "L", v.Low), legendItem("close", "C", v.Close),
		legendItem("change", "Chg", v.Change), legendItem("change-pct", "Chg%", v.ChangePct), legendItem("vol", "Vol (cont)", v.Vol),
		legendItem("amount", "Amount ("+baseCoin(k.Contract)+")", v.Amount), legendItem("turnover", "Turnover (USDT)", v.Turnover), legendItem("count", "Count", v.Count),
		k.studyLegend(i),
	)
}

// legendItem is one of the legend's terms and its value.
func legendItem(id, name, value string) app.UI {
	return app.Div().Class("legend-item").Body(app.Dt().Text(name), app.Dd().ID("legend-"+id).Text(value))
}

// notes are the chart's badges: live or not, offline, stale, loading.
func (k *KLineChart) notes() []app.UI {
	notes := []app.UI{liveState(k.feed.mode), k.comfortButtons()}
	if k.offline {
		notes = append(notes, offlineMark("offline-mark", cmp.Or(k.savedAt, k.seenAt), k.loc()))
	}
	if k.stale && !k.offline {
		text := "Stale: the venue is not answering; these are the last candles the server holds"
		if b := k.pollBack; b.err != nil {
			text = "Stale: " + api.Words(b.err) + " Next try at " + timeOfDay(b.until.In(k.loc())) + "."
		}
		notes = append(notes, app.Span().ID("stale-mark").Class("badge warn").Text(text))
	}
	if k.older {
		notes = append(notes, app.Span().Class("badge").Text("Loading older candles…"))
	}
	if k.olderErr != "" {
		notes = append(notes, app.Span().ID("older-error").Class("badge warn").Text("Older candles did not load. "+k.olderErr+" Pan back again to retry."))
	}
	if k.horizon {
		notes = append(notes, app.Span().ID("horizon-mark").Class("badge").Text("Start of history: the venue keeps about two years of candles"))
	}
	return notes
}

// chartArea holds ECharts' own element (#chart), outside go-app's tree:
// prerendered for the first paint to draw in, then adopted or made by
// app/echarts. The area around it takes the keyboard.
func (k *KLineChart) chartArea() app.UI {
	return app.Div().ID("chart-area").Class("chart-area").TabIndex(0).Attr("role", "application").
		Aria("label", "Candlestick chart of "+k.Contract+", "+string(k.Period)+". Arrows pan, plus and minus zoom, Home and End jump.").
		OnKeyDown(k.onKey).Body(
		app.If(app.IsServer, func() app.UI { return app.Div().ID("chart").Class("chart") }),
		app.If(k.status != "", func() app.UI {
			return app.Div().ID("chart-status").Class("chart-status").Attr("role", "status").Body(
				app.P().Text(k.status),
				app.If(k.failed, func() app.UI {
					return app.Button().ID("retry").Class("button").Text("Retry").OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionRetryChart) })
				}),
			)
		}),
	)
}

// shownFirst is how many of the latest candles a chart shows at first.
const shownFirst = 120

// zoneName names the zone candle id's time is written in: its own offset,
// which on a chart held across a change of daylight saving time is not
// always now's.
func (k *KLineChart) zoneName(id int64) string {
	if k.UTC || chartopt.LabelsInUTC(k.Period) {
		return " UTC"
	}
	return zoneLabel(time.Unix(id, 0).In(k.loc()).Zone())
}

// zoneLabel names a zone after a time: by its name, or, where the zone has
// none but its offset ("", "+0530", "-03"), as UTC and the offset in hours
// and minutes (" UTC+05:30").
func zoneLabel(name string, offset int) string {
	if name != "" && !strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "+") {
		return " " + name
	}
	b := []byte(" UTC+")
	if offset < 0 {
		b[len(b)-1], offset = '-', -offset
	}
	b = append(chartopt.AppendDigits(b, offset/3600, 2), ':')
	return string(chartopt.AppendDigits(b, offset%3600/60, 2))
}
