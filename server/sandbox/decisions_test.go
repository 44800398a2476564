package sandbox_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// One test per rule of venue-api.md and per row of DECISIONS.md; each name
// cites its row.

func TestDecisions_KLine_NoneOfSizeFromTo_IsSize150(t *testing.T) {
	v := start(t, sandbox.Config{})
	if n := len(v.candles(t, "contract_code=BTC-USDT&period=1min")); n != 150 {
		t.Fatalf("got %d candles, want 150", n)
	}
}

func TestDecisions_KLine_FromOrToAlone_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, q := range []string{"from=1700000000", "to=1700000000", "from=1700000000&size=5", "to=1700000000&size=5"} {
		a := v.kline(t, "contract_code=BTC-USDT&period=1min&"+q)
		if code, msg := a.errCode(t); code != venueapi.CodeInvalidInput || a.status != http.StatusOK {
			t.Errorf("%s: HTTP %d code %d %q, want HTTP 200 code 1030", q, a.status, code, msg)
		}
	}
}

func TestDecisions_KLine_SizeWinsOverFromAndTo(t *testing.T) {
	v := start(t, sandbox.Config{})
	got := v.candles(t, "contract_code=BTC-USDT&period=1min&size=7&from=1700000000&to=1700000600")
	if len(got) != 7 || got[6].ID != venueapi.Period1Min.Start(testNow.Unix()) {
		t.Fatalf("got %d candles ending at %d, want the latest 7", len(got), got[len(got)-1].ID)
	}
}

func TestDecisions_KLine_RangeIsInclusiveAscending(t *testing.T) {
	v := start(t, sandbox.Config{})
	from := venueapi.Period5Min.Start(testNow.Add(-10 * time.Hour).Unix())
	to := from + 300*10
	got := v.candles(t, fmt.Sprintf("contract_code=ETH-USDT&period=5min&from=%d&to=%d", from, to))
	if len(got) != 11 || got[0].ID != from || got[10].ID != to {
		t.Fatalf("got %d candles %d..%d, want 11 from %d to %d inclusive", len(got), got[0].ID, got[len(got)-1].ID, from, to)
	}
	// Bounds that are not aligned hold the candles that start inside them.
	got = v.candles(t, fmt.Sprintf("contract_code=ETH-USDT&period=5min&from=%d&to=%d", from+1, to-1))
	if len(got) != 9 || got[0].ID != from+300 {
		t.Fatalf("unaligned bounds: got %d candles from %d", len(got), got[0].ID)
	}
}

func TestDecisions_KLine_RangeOver2000Candles_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	to := venueapi.Period1Min.Start(testNow.Unix())
	a := v.kline(t, fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", to-2000*60, to))
	if code, msg := a.errCode(t); code != venueapi.CodeInvalidInput || !strings.Contains(msg, "2000") {
		t.Fatalf("code %d %q, want 1030 naming the 2000 limit", code, msg)
	}
	if n := len(v.candles(t, fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", to-1999*60, to))); n != 2000 {
		t.Fatalf("exactly 2000: got %d", n)
	}
}

func TestDecisions_KLine_FromAfterTo_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.kline(t, "contract_code=BTC-USDT&period=1min&from=1700000600&to=1700000000")
	if code, _ := a.errCode(t); code != venueapi.CodeInvalidInput {
		t.Fatalf("code %d, want 1030", code)
	}
}

func TestDecisions_KLine_SizeN_IsTheLatestNEndingWithTheOpenCandle(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, p := range venueapi.Periods() {
		got := v.candles(t, "contract_code=SOL-USDT&period="+string(p)+"&size=20")
		if len(got) != 20 {
			t.Fatalf("%s: %d candles", p, len(got))
		}
		if last := got[19].ID; last != p.Start(testNow.Unix()) {
			t.Errorf("%s: last candle %d is not the current one %d", p, last, p.Start(testNow.Unix()))
		}
		for i := 1; i < len(got); i++ {
			if got[i].ID != p.Next(got[i-1].ID) {
				t.Errorf("%s: candle %d at %d does not follow %d", p, i, got[i].ID, got[i-1].ID)
			}
		}
	}
}

func TestDecisions_KLine_Alignment(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, p := range venueapi.Periods() {
		for _, c := range v.candles(t, "contract_code=BTC-USDT&period="+string(p)+"&size=50") {
			tm := time.Unix(c.ID, 0).UTC()
			switch p {
			case venueapi.Period1Mon:
				if tm.Day() != 1 || tm.Hour() != 0 || tm.Minute() != 0 {
					t.Errorf("1mon candle at %s", tm)
				}
			default:
				if c.ID%p.Seconds() != 0 {
					t.Errorf("%s candle at %s is not aligned", p, tm)
				}
			}
		}
	}
}

func TestDecisions_KLine_60minAnd1hourAreOneSeries(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.candles(t, "contract_code=BTC-USDT&period=60min&size=30")
	b := v.candles(t, "contract_code=BTC-USDT&period=1hour&size=30")
	for i := range a {
		if a[i].ID != b[i].ID || !a[i].Close.Equal(b[i].Close) || !a[i].Vol.Equal(b[i].Vol) {
			t.Fatalf("candle %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}

func TestDecisions_KLine_HistoryDepthIsTwoYears(t *testing.T) {
	v := start(t, sandbox.Config{})
	horizon := testNow.AddDate(-2, 0, 0)
	before := venueapi.Period1Day.Start(horizon.Add(-30 * 24 * time.Hour).Unix())
	got := v.candles(t, fmt.Sprintf("contract_code=BTC-USDT&period=1day&from=%d&to=%d", before, before+86400*60))
	if len(got) == 0 || got[0].ID < venueapi.Period1Day.Start(horizon.Unix()) {
		t.Fatalf("history reaches %v, want it to start two years back (%s)", got, horizon)
	}
	old := v.candles(t, "contract_code=BTC-USDT&period=1day&from=1500000000&to=1500864000")
	if len(old) != 0 {
		t.Fatalf("candles from 2017: %d, want an empty data array", len(old))
	}
	all := v.candles(t, "contract_code=BTC-USDT&period=1day&size=2000")
	if n := len(all); n < 730 || n > 732 {
		t.Fatalf("size=2000 1day holds %d candles, want about two years", n)
	}
}

func TestDecisions_KLine_ContractTypeCodesResolveAndEchoInCh(t *testing.T) {
	v := start(t, sandbox.Config{})
	markets := v.sb.Markets()
	for _, suffix := range []string{"CW", "NW", "CQ", "NQ"} {
		code := "BTC-USDT-" + suffix
		a := v.kline(t, "contract_code="+code+"&period=1day&size=3")
		var env venueapi.KLineEnvelope
		a.json(t, &env)
		if env.Ch != "market."+code+".kline.1day" || len(env.Data) != 3 {
			t.Fatalf("%s: ch %q, %d candles", code, env.Ch, len(env.Data))
		}
		var dated string
		for _, m := range markets {
			if m.Base == "BTC" && venueapi.TypeCodeSuffix(m.Type) == suffix {
				dated = m.Code
			}
		}
		same := v.candles(t, "contract_code="+dated+"&period=1day&size=3")
		if !same[2].Close.Equal(env.Data[2].Close) {
			t.Errorf("%s and %s differ: %s vs %s", code, dated, env.Data[2].Close, same[2].Close)
		}
	}
}

func TestDecisions_Contracts_MalformedIs1030_UnlistedIs1013(t *testing.T) {
	v := start(t, sandbox.Config{})
	for code, want := range map[string]int{
		"btc-usdt": venueapi.CodeInvalidInput, "BTC_USDT": venueapi.CodeInvalidInput, "BTC-USDT-991399": venueapi.CodeInvalidInput,
		"ABC-USDT": venueapi.CodeNoSuchContract, "BTC-USDT-200103": venueapi.CodeNoSuchContract, "SOL-USDT-CQ": venueapi.CodeNoSuchContract,
	} {
		if got, msg := v.kline(t, "contract_code="+url.QueryEscape(code)+"&period=1min").errCode(t); got != want {
			t.Errorf("%s: code %d %q, want %d", code, got, msg, want)
		}
	}
}

func TestDecisions_Contracts_FuturesCalendar(t *testing.T) {
	v := start(t, sandbox.Config{})
	seen := map[venueapi.ContractType]time.Time{}
	for _, m := range v.sb.Markets() {
		if m.Kind != venueapi.KindFuture {
			continue
		}
		d := m.Delivery
		if d.Weekday() != time.Friday || d.Hour() != 8 || d.Minute() != 0 || !d.After(testNow) {
			t.Errorf("%s delivers %s: want a Friday 08:00 UTC after now", m.Code, d)
		}
		if want := m.Base + "-USDT-" + d.Format("060102"); m.Code != want {
			t.Errorf("code %s, want %s", m.Code, want)
		}
		if m.Type == venueapi.TypeQuarter || m.Type == venueapi.TypeNextQuarter {
			if d.Month()%3 != 0 || d.AddDate(0, 0, 7).Month() == d.Month() {
				t.Errorf("%s %s delivers %s: not the last Friday of a quarter month", m.Code, m.Type, d)
			}
		}
		seen[m.Type] = d
	}
	if !seen[venueapi.TypeThisWeek].Before(seen[venueapi.TypeNextWeek]) || !seen[venueapi.TypeNextWeek].Before(seen[venueapi.TypeQuarter]) ||
		!seen[venueapi.TypeQuarter].Before(seen[venueapi.TypeNextQuarter]) {
		t.Errorf("deliveries out of order: %v", seen)
	}
	if seen[venueapi.TypeNextWeek].Sub(seen[venueapi.TypeThisWeek]) != 7*24*time.Hour {
		t.Errorf("next_week is not a week after this_week: %v", seen)
	}
}

func TestDecisions_Contracts_FaceValueMakesAmountAndTurnover(t *testing.T) {
	v := start(t, sandbox.Config{})
	face := map[string]decimal.Decimal{}
	for _, m := range v.sb.Markets() {
		face[m.Code] = m.FaceValue
	}
	for _, code := range []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"} {
		for _, c := range v.candles(t, "contract_code="+code+"&period=1min&size=30") {
			if !c.Amount.Equal(c.Vol.Mul(face[code])) {
				t.Errorf("%s: amount %s != vol %s × face %s", code, c.Amount, c.Vol, face[code])
			}
			notional := c.Vol.Mul(face[code])
			if c.TradeTurnover.LessThan(notional.Mul(c.Low)) || c.TradeTurnover.GreaterThan(notional.Mul(c.High)) {
				t.Errorf("%s: turnover %s outside vol×face×[low, high]", code, c.TradeTurnover)
			}
		}
	}
}

func TestDecisions_Errors_EnvelopeOfEachEndpoint(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.kline(t, "contract_code=BTC-USDT&period=7min")
	var status venueapi.StatusErrorBody
	a.json(t, &status)
	if status.Status != "error" || status.ErrCode != 1030 || !strings.Contains(status.ErrMsg, "period") || status.Ts == 0 {
		t.Errorf("KLine error body %s", a.body)
	}
	b := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}, "margin_mode": {"isolated"}}, "", nil)
	var code venueapi.CodeErrorBody
	b.json(t, &code)
	if code.Code != 1030 || !strings.Contains(code.Message, "margin_mode") || !strings.Contains(string(b.body), `"data":null`) {
		t.Errorf("tier error body %s", b.body)
	}
	c := v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"business_type":"spot"}`, nil)
	c.json(t, &status)
	if status.Status != "error" || status.ErrCode != 1030 || !strings.Contains(status.ErrMsg, "business_type") {
		t.Errorf("limit error body %s", c.body)
	}
}

func TestDecisions_Signing_AValidSignatureIsAccepted(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil)
	if code, msg := a.errCode(t); code != 200 {
		t.Fatalf("code %d %q", code, msg)
	}
	for _, h := range []string{"ratelimit-limit", "ratelimit-interval", "ratelimit-remaining", "ratelimit-reset"} {
		if a.header.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
}

func TestDecisions_Signing_EachFailureHasItsOwnError(t *testing.T) {
	v := start(t, sandbox.Config{})
	params := url.Values{"contract_code": {"BTC-USDT"}}
	tests := []struct {
		name     string
		send     func() answer
		code     int
		contains string
	}{
		{"a wrong secret", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", testAccess, "wrong", v.clock.Now(), nil)
		}, 1253, "does not match"},
		{"a timestamp six minutes old", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", testAccess, testSecret, v.clock.Now().Add(-6*time.Minute), nil)
		}, 1253, "5-minute window"},
		{"a timestamp six minutes ahead", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", testAccess, testSecret, v.clock.Now().Add(6*time.Minute), nil)
		}, 1253, "5-minute window"},
		{"an unknown key", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", "who", testSecret, v.clock.Now(), nil)
		}, 403, "unknown"},
		{"a key without read permission", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", "no-read", "s", v.clock.Now(), nil)
		}, 403, "read permission"},
		{"a missing Timestamp", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Del("Timestamp") })
		}, 1253, "missing parameter Timestamp"},
		{"a duplicated Signature", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Add("Signature", "x") })
		}, 1253, "more than once"},
		{"a parameter changed after signing", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("contract_code", "ETH-USDT") })
		}, 1253, "does not match"},
		{"another signature version", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("SignatureVersion", "1") })
		}, 1253, "SignatureVersion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.send()
			code, msg := a.errCode(t)
			if code != tt.code || !strings.Contains(msg, tt.contains) || a.status != http.StatusOK {
				t.Fatalf("HTTP %d code %d %q, want HTTP 200 code %d containing %q", a.status, code, msg, tt.code, tt.contains)
			}
		})
	}
}

func TestDecisions_Signing_HostCarriesAPortOnlyWhenNotDefault(t *testing.T) {
	v := start(t, sandbox.Config{})
	u, _ := url.Parse(v.url)
	// Signed for the host without its (non-default) port: refused.
	q := venueapi.SignedQuery("GET", u.Hostname(), venueapi.PathTiers, testAccess, []byte(testSecret), url.Values{"contract_code": {"BTC-USDT"}}, v.clock.Now())
	req, _ := http.NewRequest("GET", v.url+venueapi.PathTiers+"?"+q, nil)
	if code, _ := do(t, req).errCode(t); code != 1253 {
		t.Fatalf("code %d, want 1253 for a host signed without its port", code)
	}
}

func TestDecisions_Signing_PositionLimitPayloadForms(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		name, method, body string
		query              url.Values
	}{
		{"POST with a JSON body", "POST", `{"contract_code":"ETH-USDT"}`, nil},
		{"POST with the parameters in the query string", "POST", "", url.Values{"contract_code": {"ETH-USDT"}}},
		{"POST with a form body", "POST", "contract_code=ETH-USDT", nil},
		{"GET as in the spec's sample", "GET", "", url.Values{"contract_code": {"ETH-USDT"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signed(t, tt.method, venueapi.PathPositionLimit, tt.query, tt.body, nil)
			var env venueapi.LimitEnvelope
			a.json(t, &env)
			if env.Status != "ok" || len(env.Data) != 1 || env.Data[0].ContractCode != "ETH-USDT" {
				t.Fatalf("answer %s", a.body)
			}
		})
	}
}

func TestDecisions_Limits_Private72Per3sPerKey_SharedByBothEndpoints(t *testing.T) {
	v := start(t, sandbox.Config{})
	for i := 0; i < 72; i++ {
		path, body := venueapi.PathTiers, ""
		params := url.Values{"contract_code": {"BTC-USDT"}}
		if i%2 == 1 {
			path, params, body = venueapi.PathPositionLimit, nil, `{"contract_code":"BTC-USDT"}`
		}
		method := "GET"
		if body != "" {
			method = "POST"
		}
		if a := v.signed(t, method, path, params, body, nil); a.status != 200 {
			t.Fatalf("request %d: HTTP %d %s", i+1, a.status, a.body)
		}
	}
	a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil)
	if code, _ := a.errCode(t); a.status != http.StatusTooManyRequests || code != 1032 || a.header.Get("ratelimit-remaining") != "0" {
		t.Fatalf("73rd: HTTP %d code %d remaining %q, want 429 1032 0", a.status, code, a.header.Get("ratelimit-remaining"))
	}
	v.clock.Set(testNow.Add(3 * time.Second))
	if a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil); a.status != 200 {
		t.Fatalf("after the window: HTTP %d", a.status)
	}
}

func TestDecisions_Limits_RequestsCountWhenTheyArriveEvenIfTheyFail(t *testing.T) {
	v := start(t, sandbox.Config{})
	for i := 0; i < 72; i++ {
		v.signedWith(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", testAccess, "wrong", v.clock.Now(), nil)
	}
	a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil)
	if a.status != http.StatusTooManyRequests {
		t.Fatalf("HTTP %d after 72 failed requests, want 429", a.status)
	}
}

func TestDecisions_Limits_Public800PerSecondPerIP(t *testing.T) {
	v := start(t, sandbox.Config{})
	for i := 0; i < 800; i++ {
		if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1"); a.status != 200 {
			t.Fatalf("request %d: HTTP %d", i+1, a.status)
		}
	}
	a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1")
	if code, _ := a.errCode(t); a.status != http.StatusTooManyRequests || code != 1032 {
		t.Fatalf("801st: HTTP %d code %d, want 429 1032", a.status, code)
	}
}
