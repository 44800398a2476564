//go:build !js

package components

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

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
	k := &KLineChart{Contract: contract, Period: p, hover: -1, live: true, chart: echarts.Adopt(w, w, w, false)}
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

// The candles a chart keeps in browser storage for a contract-type code are
// one future's: the next visit after a delivery must not draw (or, offline,
// show as the contract's) the candles of the future delivered.
func TestTheCandlesKeptForATypeCodeAreTheCurrentFuturesOnly(t *testing.T) {
	now := time.Now().UTC()
	d := time.Date(now.Year(), now.Month(), now.Day(), 8, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Friday || d.After(now) {
		d = d.AddDate(0, 0, -1)
	}
	since := strconv.FormatInt(d.Unix(), 10)
	for _, code := range []string{"BTC-USDT-CW", "BTC-USDT-NW", "ETH-USDT-CQ", "ETH-USDT-NQ"} {
		k := &KLineChart{Contract: code, Period: venueapi.Period1Min}
		if key := k.storageKey(); !strings.Contains(key, since) {
			t.Errorf("%s is kept under %q, which names no delivery: the future delivered %s and the one after share it", code, key, d.Format(time.DateTime))
		}
	}
	for _, code := range []string{"BTC-USDT", "BTC-USDT-261225"} {
		k := &KLineChart{Contract: code, Period: venueapi.Period1Min}
		if key, want := k.storageKey(), "riskchart/chart/"+code+"/1min"; key != want {
			t.Errorf("%s is kept under %q, want %q as before", code, key, want)
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
