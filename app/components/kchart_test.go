//go:build !js

package components

import (
	"strconv"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/echarts"
	"github.com/riskchart/riskchart/venueapi"
)

// contextOf is a context of go-app's test engine, for the chart's methods
// that dispatch: natively, every call into JavaScript does nothing, and a
// fetch fails at once (app/browser).
type contextOf struct {
	app.Compo
	ctx app.Context
}

func (c *contextOf) OnPreRender(ctx app.Context) { c.ctx = ctx }
func (c *contextOf) Render() app.UI              { return app.Div() }

func testContext(t *testing.T) app.Context {
	t.Helper()
	c := &contextOf{}
	e := app.NewTestEngine()
	if err := e.Load(c); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	return c.ctx
}

// drawnChart is a chart of contract and period holding candles, drawn on a
// chart whose JavaScript does nothing (natively).
func drawnChart(contract string, p venueapi.Period, candles []venueapi.Candle) *KLineChart {
	w := app.Window()
	k := &KLineChart{Contract: contract, Period: p, hover: -1, gone: make(chan struct{}), // on the page
		chart: echarts.Adopt(w, w, w, false)}
	k.shown, k.streamed, k.candles = contract+"|"+string(p), contract+"|"+string(p), candles
	return k
}

// run is n candles of period p from the one starting at first, their close
// the price given.
func run(p venueapi.Period, first int64, n int, close string) []venueapi.Candle {
	var cs []venueapi.Candle
	for id := first; len(cs) < n; id = p.Next(id) {
		cs = append(cs, candleAt(id, close))
	}
	return cs
}

func candleAt(id int64, close string) venueapi.Candle {
	px := decimal.RequireFromString(close)
	return venueapi.Candle{ID: id, Open: px, Close: px, High: px, Low: px, Vol: decimal.NewFromInt(1), Count: decimal.NewFromInt(1), Amount: decimal.NewFromInt(1), TradeTurnover: px}
}

// A contract-type code names another future after each Friday 08:00 UTC
// delivery (docs/decisions.md#contract-type-codes), and the server then
// answers the new future's candles. A chart open across the delivery must
// not draw the new future's candles after the old one's: it loads the new
// future's again.
func TestALiveChartOfATypeCodeLoadsAgainWhenItsFutureIsDelivered(t *testing.T) {
	delivery := time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC).Unix() // a Friday
	if time.Unix(delivery, 0).UTC().Weekday() != time.Friday {
		t.Fatal("not a Friday")
	}
	m, h4 := venueapi.Period1Min, venueapi.Period4Hour
	for _, tc := range []struct {
		name     string
		contract string
		p        venueapi.Period
		held     []venueapi.Candle // the old future's, or the swap's
		fresh    []venueapi.Candle // the stream's or a poll's
		reload   bool
	}{
		{"the stream's first two after the delivery", "BTC-USDT-CW", m, run(m, delivery-600, 10, "100"), []venueapi.Candle{candleAt(delivery-60, "90"), candleAt(delivery, "91")}, true},
		{"a poll's two", "ETH-USDT-NQ", m, run(m, delivery-600, 10, "100"), []venueapi.Candle{candleAt(delivery-60, "90"), candleAt(delivery, "91")}, true},
		{"the new future's first candle alone", "BTC-USDT-CQ", m, run(m, delivery-600, 10, "100"), []venueapi.Candle{candleAt(delivery, "91")}, true},
		{"after a gap", "BTC-USDT-NW", m, run(m, delivery-3600, 10, "100"), []venueapi.Candle{candleAt(delivery+60, "91")}, true},
		{"four hours", "BTC-USDT-CW", h4, run(h4, delivery-4*14400, 4, "100"), []venueapi.Candle{candleAt(delivery, "91")}, true},
		{"before the delivery", "BTC-USDT-CW", m, run(m, delivery-1200, 10, "100"), []venueapi.Candle{candleAt(delivery-600, "101"), candleAt(delivery-540, "102")}, false},
		{"a swap", "BTC-USDT", m, run(m, delivery-600, 10, "100"), []venueapi.Candle{candleAt(delivery-60, "100"), candleAt(delivery, "101")}, false},
		{"a dated future", "BTC-USDT-261225", m, run(m, delivery-600, 10, "100"), []venueapi.Candle{candleAt(delivery-60, "100"), candleAt(delivery, "101")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			k := drawnChart(tc.contract, tc.p, tc.held)
			k.takeLive(ctx, tc.fresh)
			newest := int64(0)
			if n := len(k.candles); n > 0 {
				newest = k.candles[n-1].ID
			}
			if tc.reload {
				if !k.loading || len(k.candles) != 0 {
					t.Errorf("%s after the delivery: %d candles drawn, the newest %s, loading %v; want the old future's cleared and the new one's loaded",
						tc.contract, len(k.candles), time.Unix(newest, 0).UTC().Format(time.DateTime), k.loading)
				}
				return
			}
			if k.loading || newest != tc.fresh[len(tc.fresh)-1].ID {
				t.Errorf("%s: loading %v, newest %s; want the live candles drawn", tc.contract, k.loading, time.Unix(newest, 0).UTC().Format(time.DateTime))
			}
		})
	}
}

// answerOf is the server's answer of contract and period holding candles,
// naming the delivery of the future they are (0: none), as the app reads it.
func answerOf(t *testing.T, contract string, p venueapi.Period, delivery int64, candles []venueapi.Candle) api.KLine {
	t.Helper()
	b := []byte(`{"ch":"` + venueapi.Channel(contract, p) + `","status":"ok","ts":1,"data":[`)
	for i, c := range candles {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.AppendJSON(b)
	}
	b = append(b, ']')
	if delivery != 0 {
		b = append(b, `,"delivery":`...)
		b = strconv.AppendInt(b, delivery, 10)
	}
	res, err := api.ReadKLine(venueapi.KLineQuery{ContractCode: contract, Period: p, Size: LatestSize}, 200, string(append(b, '}')))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// week is the time between two deliveries.
const week = 7 * 24 * 3600

// Which future a contract-type code names is the server's word, by its
// clock, and the browser's may be minutes off it
// (docs/decisions.md#contract-type-codes): a chart of one is of the future
// the server's answer names, and keeps its candles in browser storage under
// that future's delivery, not the one the browser's clock gives.
func TestAChartOfATypeCodeIsOfTheFutureTheServerNamesWhateverTheBrowsersClock(t *testing.T) {
	now := time.Now().Unix()
	clock := lastDelivery(now)
	d := venueapi.Period1Day
	held := run(d, d.Back(d.Start(now), 9), 10, "100")
	for _, tc := range []struct {
		name     string
		contract string
		delivery int64 // the server's word
		wantKey  string
	}{
		{"the server has delivered, the browser's clock not yet", "BTC-USDT-CW", clock + week, ""},
		{"the browser's clock has passed a delivery the server has not", "ETH-USDT-NQ", clock - week, ""},
		{"the clocks agree", "BTC-USDT-CQ", clock, ""},
		{"a swap", "BTC-USDT", 0, "riskchart/chart/BTC-USDT/1day"},
		{"a dated future", "BTC-USDT-261225", 0, "riskchart/chart/BTC-USDT-261225/1day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			k := drawnChart(tc.contract, d, nil)
			k.reload(ctx)
			k.loaded(ctx, answerOf(t, tc.contract, d, tc.delivery, held), nil)
			want := tc.wantKey
			if want == "" {
				want = "riskchart/chart/" + tc.contract + "@" + strconv.FormatInt(tc.delivery, 10) + "/1day"
			}
			if k.delivery != tc.delivery || k.storageKey() != want {
				t.Errorf("the server's answer names the delivery %s; the chart holds the future delivered %s and keeps it under %q, want %q",
					time.Unix(tc.delivery, 0).UTC().Format(time.DateTime), time.Unix(k.delivery, 0).UTC().Format(time.DateTime), k.storageKey(), want)
			}
		})
	}
}

// A chart of a type code whose candles span a delivery (1day, 1mon)
// loads the next future's candles when the server says its code names it,
// in a poll's answer or the stream's state, and not when the browser's
// clock says so: a clock ahead loaded the old future again and labelled it
// the new one, a clock behind drew the new future's candles over the old
// one's.
func TestALongPeriodChartOfATypeCodeLoadsTheNextFutureOnTheServersWord(t *testing.T) {
	now := time.Now().Unix()
	clock := lastDelivery(now)
	for _, p := range []venueapi.Period{venueapi.Period1Day, venueapi.Period1Mon} {
		held := run(p, p.Back(p.Start(now), 9), 10, "100")
		current := candleAt(held[len(held)-1].ID, "101")
		ch := venueapi.Channel("BTC-USDT-CW", p)
		poll := func(t *testing.T, ctx app.Context, k *KLineChart, delivery int64) {
			k.polled(ctx, answerOf(t, k.Contract, p, delivery, []venueapi.Candle{current}), nil)
		}
		stream := func(t *testing.T, ctx app.Context, k *KLineChart, delivery int64) {
			k.streamState(ctx, ch, `{"ch":"`+ch+`","stale":false,"delivery":`+strconv.FormatInt(delivery, 10)+`}`)
			k.pushed(ctx, ch, `{"ch":"`+ch+`",`+string(current.AppendJSON(nil)[1:]))
		}
		for _, tc := range []struct {
			name         string
			chart        int64 // the delivery the chart's candles are of, as the server named it
			server       int64 // the delivery the server names next
			tell         func(t *testing.T, ctx app.Context, k *KLineChart, delivery int64)
			whileLoading bool // the server says so before the chart's candles come
			reload       bool
		}{
			{"a poll names the next delivery, before the browser's clock has passed it", clock, clock + week, poll, false, true},
			{"a poll names the chart's delivery, the browser's clock past the next", clock - week, clock - week, poll, false, false},
			{"the stream names the next delivery, before the browser's clock has passed it", clock, clock + week, stream, false, true},
			{"the stream names the chart's delivery, the browser's clock past the next", clock - week, clock - week, stream, false, false},
			{"the stream named the next delivery while the chart loaded", clock, clock + week, stream, true, true},
			{"a poll names the delivery the browser's clock passed first", clock - week, clock, poll, false, true},
			{"the stream names the delivery the browser's clock passed first", clock - week, clock, stream, false, true},
		} {
			t.Run(string(p)+": "+tc.name, func(t *testing.T) {
				ctx := testContext(t)
				k := drawnChart("BTC-USDT-CW", p, nil)
				k.reload(ctx)
				if tc.whileLoading {
					tc.tell(t, ctx, k, tc.server)
				}
				k.loaded(ctx, answerOf(t, k.Contract, p, tc.chart, held), nil)
				if !tc.whileLoading {
					tc.tell(t, ctx, k, tc.server)
				}
				reloaded := k.loading && len(k.candles) == 0
				if reloaded != tc.reload {
					t.Errorf("a chart of the future delivered %s, the server naming %s: loads again %v, want %v",
						time.Unix(tc.chart, 0).UTC().Format(time.DateTime), time.Unix(tc.server, 0).UTC().Format(time.DateTime), reloaded, tc.reload)
				}
				if n := len(k.candles); !tc.reload && (n == 0 || k.candles[n-1].Close.String() != "101") {
					t.Errorf("the current candle is not drawn: %d candles held", n)
				}
			})
		}
	}
}

// While the candles a chart missed load, the live ones that come are held;
// a stream pushes each change of the current candle, so most of them are
// the same candle again. The one before it, which the fetch of the missed
// candles does not cover, must not be pushed out by them.
func TestTheLiveCandlesHeldWhileMissedOnesLoadKeepEveryCandleTheFetchLeavesOut(t *testing.T) {
	m := venueapi.Period1Min
	start := int64(1_764_000_000)
	k := drawnChart("BTC-USDT", m, run(m, start, 10, "100"))
	newest := k.candles[9].ID
	before, current := newest+10*60, newest+11*60 // the stream's first two, after the computer slept
	k.gap = chartGap{filling: true, held: []venueapi.Candle{candleAt(before, "100"), candleAt(current, "100")}}
	for i := range 20 { // each change of the current candle
		k.takeLive(app.Context{}, []venueapi.Candle{candleAt(current, strconv.Itoa(101+i))})
	}
	var ids []string
	for _, c := range k.gap.held {
		ids = append(ids, strconv.FormatInt((c.ID-newest)/60, 10)+"@"+c.Close.String())
	}
	from, to, _ := missed(m, newest, []venueapi.Candle{candleAt(before, "100")})
	got := append(run(m, from, int(m.Count(from, to)), "100"), k.gap.held...)
	for i := 1; i < len(got); i++ {
		if got[i].ID > m.Next(got[i-1].ID) {
			t.Fatalf("the fetch's candles then the held ones skip from %d to %d (held, as minutes after the newest @ close: %v)", got[i-1].ID, got[i].ID, ids)
		}
	}
	if last := k.gap.held[len(k.gap.held)-1]; last.ID != current || last.Close.String() != "120" {
		t.Errorf("the newest held is %d @ %s, want the current candle's last change, %d @ 120", last.ID, last.Close, current)
	}
}

// Candles pushed while the chart loads wait for it; only the newest
// matter, and a burst must not leave the chart drawing the first ones.
func TestCandlesPushedWhileAChartLoadsKeepTheNewest(t *testing.T) {
	m := venueapi.Period1Min
	k := drawnChart("BTC-USDT", m, nil)
	k.loading = true
	current := int64(1_764_000_000)
	ch := venueapi.Channel(k.Contract, k.Period)
	for i := range 20 {
		c := candleAt(current, strconv.Itoa(101+i))
		k.pushed(app.Context{}, ch, `{"ch":"`+ch+`",`+string(c.AppendJSON(nil)[1:]))
	}
	if n := len(k.pushedLate); n == 0 || k.pushedLate[n-1].Close.String() != "120" {
		var closes []string
		for _, c := range k.pushedLate {
			closes = append(closes, c.Close.String())
		}
		t.Errorf("held while loading: closes %v; want the current candle's last change, 120, drawn once the chart has loaded", closes)
	}
}
