package sandbox_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// Property tests of the candles over random windows and periods, seeded so
// that a failure can be replayed, bounded to keep the package quick.

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

func TestCandles_InvariantsHoldOverRandomWindows(t *testing.T) {
	v := start(t, sandbox.Config{})
	r := rand.New(rand.NewPCG(1, 2))
	codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT", "SHIB-USDT", "BTC-USDT-NQ", "ETH-USDT-CW"}
	periods := venueapi.Periods()
	for range 80 {
		code, p := codes[r.IntN(len(codes))], periods[r.IntN(len(periods))]
		back := time.Duration(r.Int64N(int64(729 * 24 * time.Hour)))
		from := p.Start(testNow.Add(-back).Unix())
		to := from
		for range r.IntN(400) {
			to = p.Next(to)
		}
		got := v.candles(t, fmt.Sprintf("contract_code=%s&period=%s&from=%d&to=%d", code, p, from, to))
		if want := p.Count(from, min(to, testNow.Unix())); int64(len(got)) != want {
			t.Fatalf("%s %s %d..%d: %d candles, want %d", code, p, from, to, len(got), want)
		}
		for k, c := range got {
			if c.Low.GreaterThan(c.Open) || c.Low.GreaterThan(c.Close) || c.High.LessThan(c.Open) || c.High.LessThan(c.Close) || !c.Low.IsPositive() {
				t.Fatalf("%s %s candle %d: open %s close %s low %s high %s", code, p, c.ID, c.Open, c.Close, c.Low, c.High)
			}
			if !c.Vol.IsPositive() || c.Count.IsNegative() || c.Count.GreaterThan(c.Vol) {
				t.Fatalf("%s %s candle %d: vol %s count %s", code, p, c.ID, c.Vol, c.Count)
			}
			if c.ID != p.Start(c.ID) || c.ID > testNow.Unix() {
				t.Fatalf("%s %s: candle %d is not aligned, or after now", code, p, c.ID)
			}
			if k == 0 {
				continue
			}
			if c.ID != p.Next(got[k-1].ID) {
				t.Fatalf("%s %s: gap or duplicate at %d after %d", code, p, c.ID, got[k-1].ID)
			}
			// A swap trades on without gaps; a future's basis steps down a
			// little at midnight as its delivery nears.
			if len(code) == len("BTC-USDT") && !c.Open.Equal(got[k-1].Close) {
				t.Fatalf("%s %s: candle %d opens at %s, the one before closed at %s", code, p, c.ID, c.Open, got[k-1].Close)
			}
		}
	}
}

func TestCandles_ALongerCandleIsTheAggregateOfTheShorterOnesOverRandomWindows(t *testing.T) {
	v := start(t, sandbox.Config{})
	r := rand.New(rand.NewPCG(3, 4))
	pairs := [][2]venueapi.Period{
		{venueapi.Period1Min, venueapi.Period5Min}, {venueapi.Period5Min, venueapi.Period15Min}, {venueapi.Period15Min, venueapi.Period30Min},
		{venueapi.Period30Min, venueapi.Period60Min}, {venueapi.Period60Min, venueapi.Period4Hour}, {venueapi.Period4Hour, venueapi.Period1Day},
		{venueapi.Period1Day, venueapi.Period1Mon}, {venueapi.Period1Min, venueapi.Period1Day}, {venueapi.Period1Min, venueapi.Period1Hour},
	}
	codes := []string{"BTC-USDT", "DOGE-USDT", "LTC-USDT", "ETH-USDT-CQ", "BTC-USDT-CW"}
	for i := range 36 {
		short, long := pairs[i%len(pairs)][0], pairs[i%len(pairs)][1]
		code := codes[r.IntN(len(codes))]
		// A long candle somewhere in the two years; the last ones are still open.
		back := time.Duration(r.Int64N(int64(690 * 24 * time.Hour)))
		if i%4 == 0 {
			back = 0
		}
		id := long.Start(testNow.Add(-back).Unix())
		longs := v.candles(t, fmt.Sprintf("contract_code=%s&period=%s&from=%d&to=%d", code, long, id, id))
		var in []venueapi.Candle
		for from := id; from < long.Next(id) && from <= testNow.Unix(); {
			page := v.candles(t, fmt.Sprintf("contract_code=%s&period=%s&from=%d&to=%d", code, short, from, min(from+1999*short.Seconds(), long.Next(id)-1)))
			in = append(in, page...)
			from = short.Next(page[len(page)-1].ID)
		}
		if len(longs) != 1 || len(in) == 0 {
			t.Fatalf("%s %s at %d: %d long, %d short", code, long, id, len(longs), len(in))
		}
		if got, want := longs[0], aggregate(in); !got.Equal(want) {
			t.Fatalf("%s %s at %s is not the aggregate of its %d %s candles:\n got %+v\nwant %+v", code, long, time.Unix(id, 0).UTC(), len(in), short, got, want)
		}
	}
}

func TestCandles_TheSameSeedDrawsTheSameMarket_AnotherSeedAnother(t *testing.T) {
	a := start(t, sandbox.Config{})
	b := start(t, sandbox.Config{Seed: 0}) // 0 is the default seed
	c := start(t, sandbox.Config{Seed: 99})
	for _, q := range []string{"contract_code=BTC-USDT&period=4hour&size=500", "contract_code=XRP-USDT&period=1min&size=2000"} {
		if !bytes.Equal(a.kline(t, q).body, b.kline(t, q).body) {
			t.Fatalf("%s: two sandboxes with the default seed draw different candles", q)
		}
		if bytes.Equal(a.kline(t, q).body, c.kline(t, q).body) {
			t.Fatalf("%s: another seed draws the same candles", q)
		}
	}
}

// Every machine draws the same market: the golden answers were drawn once and
// are compared byte for byte (go test -update rewrites them after a change
// to the market that is meant).
func TestCandles_GoldenAnswers_TheSameOnEveryMachine(t *testing.T) {
	v := start(t, sandbox.Config{})
	for name, q := range map[string]string{
		"btc-1day.json":    "contract_code=BTC-USDT&period=1day&size=10",
		"eth-cq-1min.json": "contract_code=ETH-USDT-CQ&period=1min&size=10",
		"doge-1mon.json":   "contract_code=DOGE-USDT&period=1mon&from=1735689600&to=1764547200",
	} {
		got := v.kline(t, q).body
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n got %s\nwant %s", q, path, got, want)
		}
	}
}

func TestCandles_TheOpenCandleMovesWithTheClockAndClosesOnItsBoundary(t *testing.T) {
	v := start(t, sandbox.Config{})
	minute := venueapi.Period1Min.Start(testNow.Unix())
	var seen []venueapi.Candle
	for _, s := range []int64{0, 5, 20, 35, 50, 59} {
		v.clock.Set(time.Unix(minute+s, 0))
		c := v.candles(t, "contract_code=BTC-USDT&period=1min&size=1")[0]
		if c.ID != minute {
			t.Fatalf("%ds in: candle %d, want %d", s, c.ID, minute)
		}
		seen = append(seen, c)
	}
	v.clock.Set(time.Unix(minute+60, 0))
	closed := v.candles(t, fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", minute, minute))[0]
	moved := false
	for i, c := range seen {
		if !c.Open.Equal(closed.Open) || c.High.GreaterThan(closed.High) || c.Low.LessThan(closed.Low) || c.Vol.GreaterThan(closed.Vol) {
			t.Errorf("partial %d %+v does not lie within the closed minute %+v", i, c, closed)
		}
		if i > 0 && (c.Vol.LessThan(seen[i-1].Vol) || c.High.LessThan(seen[i-1].High) || c.Low.GreaterThan(seen[i-1].Low)) {
			t.Errorf("partial %d shrank: %+v after %+v", i, c, seen[i-1])
		}
		moved = moved || (i > 0 && !c.Close.Equal(seen[i-1].Close))
	}
	if !moved || !seen[len(seen)-1].Vol.LessThan(closed.Vol) || !seen[0].Vol.LessThan(seen[len(seen)-1].Vol) {
		t.Errorf("the open minute did not move: %+v … %+v, closed %+v", seen[0], seen[len(seen)-1], closed)
	}
	// The hour, the day and the month hold the partial minute the same way.
	for _, p := range []venueapi.Period{venueapi.Period1Hour, venueapi.Period1Day, venueapi.Period1Mon} {
		v.clock.Set(time.Unix(minute+35, 0))
		c := v.candles(t, "contract_code=BTC-USDT&period="+string(p)+"&size=1")[0]
		if !c.Close.Equal(seen[3].Close) {
			t.Errorf("%s closes at %s, the minute at %s", p, c.Close, seen[3].Close)
		}
	}
	v.clock.Set(time.Unix(minute+60, 0))
	next := v.candles(t, "contract_code=BTC-USDT&period=1min&size=2")
	if next[0].ID != minute || !next[0].Equal(closed) || next[1].ID != minute+60 || !next[1].Open.Equal(closed.Close) {
		t.Errorf("after the boundary: %+v", next)
	}
}

func TestCandles_AFutureTradesAtAPremiumThatShrinksToDelivery(t *testing.T) {
	v := start(t, sandbox.Config{})
	swap := v.candles(t, "contract_code=BTC-USDT&period=1day&size=1")[0].Close
	prev := swap
	for _, code := range []string{"BTC-USDT-CW", "BTC-USDT-NW", "BTC-USDT-CQ", "BTC-USDT-NQ"} {
		c := v.candles(t, "contract_code="+code+"&period=1day&size=1")[0].Close
		if premium := c.Sub(swap).Div(swap); !c.GreaterThan(prev) || premium.GreaterThan(decimal.New(5, -2)) {
			t.Errorf("%s at %s: not above the nearer delivery's %s, or more than 5%% over the swap's %s", code, c, prev, swap)
		}
		prev = c
	}
}
