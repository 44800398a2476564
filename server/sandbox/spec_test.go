package sandbox_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

func TestSpec_TierLadderIsContiguousWithFallingLeverageAndRisingRates(t *testing.T) {
	v := start(t, sandbox.Config{})
	units := map[string]bool{}
	for _, code := range []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"} {
		a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {code}}, "", nil)
		if !strings.Contains(string(a.body), `"max_lever":"`) || !strings.Contains(string(a.body), `"min_volume":"0"`) {
			t.Errorf("%s: numbers are not strings, or tier 1 does not start at 0: %s", code, a.body)
		}
		var env venueapi.TierEnvelope
		a.json(t, &env)
		if env.Code != 200 || len(env.Data) < 3 {
			t.Fatalf("%s: %s", code, a.body)
		}
		for i, tr := range env.Data {
			units[tr.VolumeUnit] = true
			if int(tr.Tier) != i+1 || tr.ContractCode != code || tr.MarginMode != "cross" {
				t.Errorf("%s tier %d: %+v", code, i+1, tr)
			}
			if i == 0 {
				continue
			}
			prev := env.Data[i-1]
			if !tr.MinVolume.Equal(prev.MaxVolume) || !tr.MaxVolume.GreaterThan(tr.MinVolume) {
				t.Errorf("%s tier %d band %s..%s does not follow %s", code, i+1, tr.MinVolume, tr.MaxVolume, prev.MaxVolume)
			}
			if tr.MaxLever.GreaterThan(prev.MaxLever) || !tr.MaintenanceMarginRate.GreaterThan(prev.MaintenanceMarginRate) {
				t.Errorf("%s tier %d: lever %s rate %s after %s %s", code, i+1, tr.MaxLever, tr.MaintenanceMarginRate, prev.MaxLever, prev.MaintenanceMarginRate)
			}
		}
	}
	if !units["contract"] || !units["usdt"] {
		t.Errorf("ladders use units %v, want both contract and usdt", units)
	}
}

func TestSpec_PositionLimitsFollowTheMarkPriceAndFaceValue(t *testing.T) {
	v := start(t, sandbox.Config{LeverRates: map[string]int{"ETH-USDT": 20}})
	face := map[string]decimal.Decimal{}
	for _, m := range v.sb.Markets() {
		face[m.Code] = m.FaceValue
	}
	a := v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{}`, nil)
	var env venueapi.LimitEnvelope
	a.json(t, &env)
	if env.Status != "ok" || len(env.Data) != 6 {
		t.Fatalf("no parameters should list the six swaps: %s", a.body)
	}
	if !strings.Contains(string(a.body), `"trade_partition":`) {
		t.Error("trade_partition is missing")
	}
	for _, p := range env.Data {
		want := p.BuyLimitValue.Div(p.MarkPrice.Mul(face[p.ContractCode])).Floor()
		if !p.BuyLimit.Equal(want) || !p.SellLimit.Equal(p.SellLimitValue.Div(p.MarkPrice.Mul(face[p.ContractCode])).Floor()) {
			t.Errorf("%s: buy_limit %s, want floor(%s / (%s × %s)) = %s", p.ContractCode, p.BuyLimit, p.BuyLimitValue, p.MarkPrice, face[p.ContractCode], want)
		}
		last := v.candles(t, "contract_code="+p.ContractCode+"&period=1min&size=1")
		if !p.MarkPrice.Equal(last[0].Close) {
			t.Errorf("%s: mark price %s, latest close %s", p.ContractCode, p.MarkPrice, last[0].Close)
		}
		wantLever := 10
		if p.ContractCode == "ETH-USDT" {
			wantLever = 20
		}
		if p.LeverRate != wantLever || p.BusinessType != "swap" || p.Pair != p.Symbol+"-USDT" {
			t.Errorf("%s: %+v", p.ContractCode, p)
		}
	}
}

func TestSpec_PositionLimitRules(t *testing.T) {
	v := start(t, sandbox.Config{})
	var future string
	for _, m := range v.sb.Markets() {
		if m.Base == "BTC" && m.Type == venueapi.TypeQuarter {
			future = m.Code
		}
	}
	tests := []struct {
		name      string
		body      string
		wantCode  int
		wantCodes []string // contract codes answered
	}{
		{"a future without business_type is refused", `{"contract_code":"` + future + `"}`, 1030, nil},
		{"a future with business_type futures", `{"contract_code":"` + future + `","business_type":"futures"}`, 200, []string{future}},
		{"contract_code wins over pair and contract_type", `{"contract_code":"ETH-USDT","pair":"BTC-USDT","contract_type":"quarter","business_type":"all"}`, 200, []string{"ETH-USDT"}},
		{"pair and type select one future", `{"pair":"BTC-USDT","contract_type":"quarter","business_type":"futures"}`, 200, []string{future}},
		{"pair alone lists its swap (business type swap by default)", `{"pair":"ETH-USDT"}`, 200, []string{"ETH-USDT"}},
		{"business type all lists swaps and futures of a pair", `{"pair":"ETH-USDT","business_type":"all"}`, 200, nil},
		{"an unlisted contract is 1013", `{"contract_code":"ABC-USDT"}`, 1013, nil},
		{"a malformed pair is 1030", `{"pair":"ETHUSDT"}`, 1030, nil},
		{"a non-string parameter is 1030", `{"contract_code":5}`, 1030, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signed(t, "POST", venueapi.PathPositionLimit, nil, tt.body, nil)
			code, msg := a.errCode(t)
			if code != tt.wantCode {
				t.Fatalf("code %d %q, want %d", code, msg, tt.wantCode)
			}
			if tt.wantCodes == nil {
				if tt.name == "business type all lists swaps and futures of a pair" {
					var env venueapi.LimitEnvelope
					a.json(t, &env)
					if len(env.Data) != 5 {
						t.Fatalf("got %d records, want the swap and four futures", len(env.Data))
					}
				}
				return
			}
			var env venueapi.LimitEnvelope
			a.json(t, &env)
			var got []string
			for _, p := range env.Data {
				got = append(got, p.ContractCode)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantCodes) {
				t.Fatalf("got %v, want %v", got, tt.wantCodes)
			}
		})
	}
}

func TestFaultsAreInjectedPerPathAndOffByDefault(t *testing.T) {
	v := start(t, sandbox.Config{})
	all := func(f sandbox.Fault) sandbox.Faults {
		return sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: f}}
	}
	tests := []struct {
		name  string
		fault sandbox.Fault
		check func(t *testing.T, res *http.Response, err error)
	}{
		{"5xx", sandbox.Fault{Rate5xx: 1}, func(t *testing.T, res *http.Response, err error) {
			if err != nil || res.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("%v %v", res, err)
			}
		}},
		{"429", sandbox.Fault{Rate429: 1}, func(t *testing.T, res *http.Response, err error) {
			if err != nil || res.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("%v %v", res, err)
			}
		}},
		{"malformed", sandbox.Fault{RateMalformed: 1}, func(t *testing.T, res *http.Response, err error) {
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("%v %v", res, err)
			}
			b := make([]byte, 100)
			n, _ := res.Body.Read(b)
			if strings.HasSuffix(string(b[:n]), "}") {
				t.Fatalf("body %q is complete JSON", b[:n])
			}
		}},
		{"hang-up", sandbox.Fault{RateHangup: 1}, func(t *testing.T, res *http.Response, err error) {
			if err == nil {
				_, err = readAll(res)
			}
			if err == nil {
				t.Fatal("the connection was not cut")
			}
		}},
		{"latency", sandbox.Fault{Latency: 150 * time.Millisecond}, func(t *testing.T, res *http.Response, err error) {
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("%v %v", res, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v.sb.SetFaults(all(tt.fault))
			t.Cleanup(func() { v.sb.SetFaults(sandbox.Faults{}) })
			began := time.Now()
			res, err := http.Get(v.url + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2")
			tt.check(t, res, err)
			if res != nil {
				res.Body.Close()
			}
			if tt.fault.Latency > 0 && time.Since(began) < tt.fault.Latency {
				t.Fatalf("answered in %s, before the added latency", time.Since(began))
			}
			// Another path is untouched.
			if a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil); a.status != 200 {
				t.Fatalf("tiers HTTP %d under a KLine fault", a.status)
			}
		})
	}
	if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=2"); a.status != 200 {
		t.Fatalf("after faults are off: HTTP %d", a.status)
	}
}

func readAll(res *http.Response) ([]byte, error) {
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			if err.Error() == "EOF" {
				return []byte(b.String()), nil
			}
			return nil, err
		}
	}
}

// Property tests of the candle invariants over random windows and periods.

func TestCandleInvariantsOverRandomWindows(t *testing.T) {
	v := start(t, sandbox.Config{})
	r := rand.New(rand.NewPCG(1, 2))
	codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT", "BTC-USDT-NQ", "ETH-USDT-CW"}
	periods := venueapi.Periods()
	for i := 0; i < 60; i++ {
		code, p := codes[r.IntN(len(codes))], periods[r.IntN(len(periods))]
		back := time.Duration(r.Int64N(int64(700 * 24 * time.Hour)))
		from := p.Start(testNow.Add(-back).Unix())
		to := from
		for j := 0; j < 1+r.IntN(300); j++ {
			to = p.Next(to)
		}
		got := v.candles(t, fmt.Sprintf("contract_code=%s&period=%s&from=%d&to=%d", code, p, from, to))
		for k, c := range got {
			if c.Low.GreaterThan(c.Open) || c.Low.GreaterThan(c.Close) || c.High.LessThan(c.Open) || c.High.LessThan(c.Close) || !c.Low.IsPositive() {
				t.Fatalf("%s %s candle %d: open %s close %s low %s high %s", code, p, c.ID, c.Open, c.Close, c.Low, c.High)
			}
			if k > 0 && c.ID != p.Next(got[k-1].ID) {
				t.Fatalf("%s %s: gap or duplicate at %d after %d", code, p, c.ID, got[k-1].ID)
			}
			if k > 0 && !c.Open.Equal(got[k-1].Close) {
				t.Fatalf("%s %s: candle %d opens at %s, the previous closed at %s", code, p, c.ID, c.Open, got[k-1].Close)
			}
			if p != venueapi.Period1Mon && c.ID%p.Seconds() != 0 {
				t.Fatalf("%s %s: candle %d is not aligned", code, p, c.ID)
			}
		}
	}
}

// A longer period's candle is the aggregate of the shorter ones it covers.
func TestCandlesAggregateAcrossPeriods(t *testing.T) {
	v := start(t, sandbox.Config{})
	r := rand.New(rand.NewPCG(3, 4))
	pairs := [][2]venueapi.Period{
		{venueapi.Period1Min, venueapi.Period5Min}, {venueapi.Period5Min, venueapi.Period15Min}, {venueapi.Period15Min, venueapi.Period30Min},
		{venueapi.Period30Min, venueapi.Period60Min}, {venueapi.Period60Min, venueapi.Period4Hour}, {venueapi.Period4Hour, venueapi.Period1Day},
		{venueapi.Period1Day, venueapi.Period1Mon}, {venueapi.Period1Min, venueapi.Period1Day},
	}
	for i := 0; i < 24; i++ {
		pr := pairs[i%len(pairs)]
		short, long := pr[0], pr[1]
		code := []string{"BTC-USDT", "DOGE-USDT", "ETH-USDT-CQ"}[r.IntN(3)]
		// A closed long candle somewhere in the last two years (a month back at most for 1mon).
		back := time.Duration(r.Int64N(int64(600*24*time.Hour))) + 40*24*time.Hour
		id := long.Start(testNow.Add(-back).Unix())
		longs := v.candles(t, fmt.Sprintf("contract_code=%s&period=%s&from=%d&to=%d", code, long, id, id))
		end := long.Next(id) - 1
		if short == venueapi.Period1Min && long == venueapi.Period1Day {
			end = id + 1999*60 // one page of minutes covers 1999 of the day's 1440: all of it
		}
		shorts := v.candles(t, fmt.Sprintf("contract_code=%s&period=%s&from=%d&to=%d", code, short, id, end))
		if len(longs) != 1 || len(shorts) == 0 {
			t.Fatalf("%s %s at %d: %d long, %d short", code, long, id, len(longs), len(shorts))
		}
		var in []venueapi.Candle
		for _, c := range shorts {
			if c.ID < long.Next(id) {
				in = append(in, c)
			}
		}
		want := aggregate(in)
		got := longs[0]
		if !got.Open.Equal(want.Open) || !got.Close.Equal(want.Close) || !got.High.Equal(want.High) || !got.Low.Equal(want.Low) ||
			!got.Vol.Equal(want.Vol) || !got.Count.Equal(want.Count) || !got.Amount.Equal(want.Amount) || !got.TradeTurnover.Equal(want.TradeTurnover) {
			t.Fatalf("%s %s at %s is not the aggregate of its %d %s candles:\n got %+v\nwant %+v", code, long, time.Unix(id, 0).UTC(), len(in), short, got, want)
		}
	}
}

func aggregate(cs []venueapi.Candle) venueapi.Candle {
	a := cs[0]
	for _, c := range cs[1:] {
		a.Close = c.Close
		a.High = decimal.Max(a.High, c.High)
		a.Low = decimal.Min(a.Low, c.Low)
		a.Vol = a.Vol.Add(c.Vol)
		a.Count = a.Count.Add(c.Count)
		a.Amount = a.Amount.Add(c.Amount)
		a.TradeTurnover = a.TradeTurnover.Add(c.TradeTurnover)
	}
	return a
}

func TestCandlesAreDeterministicPerSeed(t *testing.T) {
	a := start(t, sandbox.Config{})
	b := start(t, sandbox.Config{})
	c := start(t, sandbox.Config{Seed: 99})
	q := "contract_code=BTC-USDT&period=4hour&size=500"
	if string(a.kline(t, q).body) != string(b.kline(t, q).body) {
		t.Fatal("two sandboxes with the default seed draw different candles")
	}
	if string(a.kline(t, q).body) == string(c.kline(t, q).body) {
		t.Fatal("another seed draws the same candles")
	}
}

func TestTheCurrentCandleMovesWithTheClockAndClosesOnItsBoundary(t *testing.T) {
	v := start(t, sandbox.Config{})
	minute := venueapi.Period1Min.Start(testNow.Unix())
	v.clock.Set(time.Unix(minute, 0).Add(5 * time.Second))
	early := v.candles(t, "contract_code=BTC-USDT&period=1min&size=1")[0]
	v.clock.Set(time.Unix(minute, 0).Add(50 * time.Second))
	late := v.candles(t, "contract_code=BTC-USDT&period=1min&size=1")[0]
	v.clock.Set(time.Unix(minute, 0).Add(61 * time.Second))
	closed := v.candles(t, fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", minute, minute))[0]
	if early.ID != minute || late.ID != minute {
		t.Fatalf("ids %d %d, want %d", early.ID, late.ID, minute)
	}
	if !late.Vol.GreaterThan(early.Vol) {
		t.Errorf("volume did not grow within the minute: %s then %s", early.Vol, late.Vol)
	}
	if early.Close.Equal(closed.Close) && late.Close.Equal(closed.Close) && !early.Open.Equal(closed.Close) {
		t.Errorf("the close did not move toward the final close")
	}
	if !closed.Open.Equal(early.Open) || closed.High.LessThan(late.High) || closed.Low.GreaterThan(late.Low) {
		t.Errorf("closed minute %+v does not extend the partial %+v", closed, late)
	}
	next := v.candles(t, "contract_code=BTC-USDT&period=1min&size=2")
	if next[0].ID != minute || !next[0].Close.Equal(closed.Close) || next[1].ID != minute+60 {
		t.Errorf("after the boundary: %+v", next)
	}
}

func benchKLine(b *testing.B, query string) {
	sb, err := sandbox.New(sandbox.Config{Now: func() time.Time { return testNow }, PublicLimit: sandbox.Limit{Requests: 1 << 30, Per: time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", venueapi.PathKLine+"?"+query, nil)
	sb.ServeHTTP(httptest.NewRecorder(), req) // draw the caches once: steady state is what serves
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

func BenchmarkKLine2000x1min(b *testing.B) {
	benchKLine(b, "contract_code=BTC-USDT&period=1min&size=2000")
}
func BenchmarkKLine2000x1day(b *testing.B) {
	benchKLine(b, "contract_code=BTC-USDT&period=1day&size=2000")
}
func BenchmarkKLine2000x4hour(b *testing.B) {
	benchKLine(b, "contract_code=ETH-USDT&period=4hour&size=2000")
}

func BenchmarkSignedTiers(b *testing.B) {
	sb, err := sandbox.New(sandbox.Config{Now: func() time.Time { return testNow },
		Keys: []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}}, PrivateLimit: sandbox.Limit{Requests: 1 << 30, Per: time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	q := venueapi.SignedQuery("GET", "venue.test", venueapi.PathTiers, testAccess, []byte(testSecret), url.Values{"contract_code": {"BTC-USDT"}}, testNow)
	req := httptest.NewRequest("GET", "http://venue.test"+venueapi.PathTiers+"?"+q, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"code":200`) {
			b.Fatal(w.Body.String())
		}
	}
}
