package venue

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// sameDecimal is equality of value and exponent: "1.50" is not "1.5".
func sameDecimal(a, b decimal.Decimal) bool {
	return a.Exponent() == b.Exponent() && a.Coefficient().Cmp(b.Coefficient()) == 0
}

// sameAnswer reports how two decoded KLine answers differ; "" when they do not.
func sameAnswer(a, b answer[venueapi.Candle]) string {
	ptr := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	code := func(p *venueapi.WireInt) string {
		if p == nil {
			return "<nil>"
		}
		return fmt.Sprint(*p)
	}
	switch {
	case code(a.Code) != code(b.Code), a.Message != b.Message, ptr(a.Status) != ptr(b.Status), a.ErrCode != b.ErrCode, a.ErrMsg != b.ErrMsg:
		return fmt.Sprintf("status %s %q %s %d %q vs %s %q %s %d %q", code(a.Code), a.Message, ptr(a.Status), a.ErrCode, a.ErrMsg, code(b.Code), b.Message, ptr(b.Status), b.ErrCode, b.ErrMsg)
	case a.Ch != b.Ch, a.Ts != b.Ts:
		return fmt.Sprintf("ch %q ts %d vs ch %q ts %d", a.Ch, a.Ts, b.Ch, b.Ts)
	case (a.Data == nil) != (b.Data == nil), len(a.Data) != len(b.Data):
		return fmt.Sprintf("data %v (nil %t) vs %v (nil %t)", len(a.Data), a.Data == nil, len(b.Data), b.Data == nil)
	}
	for i := range a.Data {
		x, y := a.Data[i], b.Data[i]
		if x.ID != y.ID || !sameDecimal(x.Vol, y.Vol) || !sameDecimal(x.Count, y.Count) || !sameDecimal(x.Open, y.Open) || !sameDecimal(x.Close, y.Close) ||
			!sameDecimal(x.Low, y.Low) || !sameDecimal(x.High, y.High) || !sameDecimal(x.Amount, y.Amount) || !sameDecimal(x.TradeTurnover, y.TradeTurnover) {
			return fmt.Sprintf("candle %d: %+v vs %+v", i, x, y)
		}
	}
	return ""
}

const candleJSON = `{"id":1700000040,"vol":4146,"count":"692","open":98803.8,"close":"98761.20","low":98759,"high":98827.7,"amount":4.146,"trade_turnover":409574.6334}`

func TestTheOnePassDecoderReadsWhatEncodingJSONReads(t *testing.T) {
	tests := []struct {
		name string
		body string
		fast bool // the one-pass decoder takes it on itself
	}{
		{"a plain answer", `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[` + candleJSON + `,` + candleJSON + `]}`, true},
		{"white space everywhere", " {\n\t\"status\" : \"ok\" , \"data\" : [ \r\n" + strings.ReplaceAll(candleJSON, ",", " ,\n ") + " ] }\n", true},
		{"strings for every number", `{"status":"ok","ts":"5","data":[{"id":"-60","vol":"0","count":"-0.0","open":"007.50","close":"1","low":"1","high":"1","amount":"1","trade_turnover":"999999999999999999"}]}`, true},
		{"unknown fields of every kind", `{"x":{"a":[1,-2.5e+3,true,false,null,"\u00e9\n"]},"status":"ok","data":[{"id":1,"mrid":[],"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1,"z":{}}]}`, true},
		{"an error envelope", `{"status":"error","err_code":1030,"err_msg":"invalid size: must be 1..2000","ts":1}`, true},
		{"the tier envelope's error", `{"code":1013,"message":"no such contract","data":null,"ts":1}`, true},
		{"empty data", `{"status":"ok","data":[]}`, true},
		{"the gateway's stale flag, no venue field", `{"status":"ok","stale":true,"data":[]}`, true},
		{"null fields", `{"status":"ok","ch":null,"ts":null,"err_code":null,"data":null}`, true},
		{"non-ASCII text", `{"status":"ok","ch":"марка €","data":[]}`, true},
		{"exponents and long coefficients", `{"status":"ok","data":[{"id":1,"vol":1e3,"count":1E-2,"open":-1.5e+2,"close":12345678901234567890.5,"low":"1e40","high":1,"amount":1,"trade_turnover":1}]}`, true},
		{"an exponent past the wire's bound (venueapi's maxWireDigits)", `{"status":"ok","data":[{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":"1e400","high":1,"amount":1,"trade_turnover":1}]}`, false},
		{"an exponent past what decimal decodes", `{"status":"ok","data":[{"id":1,"vol":1e999999,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]}`, false},
		{"a field in other case", `{"Status":"ok","data":[]}`, false},
		{"a candle field in other case", `{"status":"ok","data":[{"ID":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]}`, false},
		{"a repeated field", `{"status":"ok","status":"error","data":[]}`, false},
		{"an escaped string", `{"status":"o\u006b","data":[]}`, false},
		{"a missing candle field", `{"status":"ok","data":[{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1}]}`, false},
		{"a null candle field", `{"status":"ok","data":[{"id":1,"vol":null,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]}`, false},
		{"a fractional id", `{"status":"ok","data":[{"id":1.5,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]}`, false},
		{"a number that is no number", `{"status":"ok","data":[{"id":1,"vol":"1x","count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]}`, false},
		{"trailing garbage", `{"status":"ok","data":[]} x`, false},
		{"a trailing comma", `{"status":"ok","data":[],}`, false},
		{"not an object", `[1,2]`, false},
		{"invalid UTF-8 in a kept string", "{\"status\":\"ok\xff\",\"data\":[]}", false},
		{"a leading zero", `{"status":"ok","ts":01,"data":[]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := venueapi.FastKLine([]byte(tt.body)); ok != tt.fast {
				t.Errorf("the one-pass decoder took it: %t, want %t", ok, tt.fast)
			}
			got, gotErr := decodeKLine([]byte(tt.body))
			want, wantErr := decodeAnswer[venueapi.Candle]([]byte(tt.body))
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, encoding/json says %v", gotErr, wantErr)
			}
			if diff := sameAnswer(got, want); gotErr == nil && diff != "" {
				t.Fatalf("decoded differently from encoding/json: %s", diff)
			}
		})
	}
}

func FuzzTheOnePassDecoderAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[` + candleJSON + `]}`))
	f.Add([]byte(`{"status":"ok","ts":"5","data":[{"id":"-60","vol":"0","count":"-0.0","open":"007.50","close":"1","low":"1","high":"1","amount":"1","trade_turnover":"1"}]}`))
	f.Add([]byte(`{"x":{"a":[1,-2.5e+3,true,false,null,"\u00e9\n"]},"status":"error","err_code":1030,"err_msg":"bad","data":null}`))
	f.Add([]byte(`{"code":200,"message":"ok","data":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, ok := venueapi.FastKLine(body); !ok {
			return
		}
		fast, _ := decodeKLine(body)
		want, err := decodeAnswer[venueapi.Candle](body)
		if err != nil {
			t.Fatalf("the one-pass decoder read %q, which encoding/json refuses: %v", body, err)
		}
		if diff := sameAnswer(fast, want); diff != "" {
			t.Fatalf("%q decoded differently from encoding/json: %s", body, diff)
		}
	})
}

// FuzzEveryAnswerIsClassified feeds any status and body to each endpoint's
// decoder: nothing panics, a success is only an HTTP 200 success envelope,
// and every failure is one of the types a caller can tell apart.
func FuzzEveryAnswerIsClassified(f *testing.F) {
	f.Add(200, []byte(`{"status":"ok","data":[]}`), "")
	f.Add(200, []byte(`{"code":1030,"message":"bad","data":null}`), "")
	f.Add(429, []byte(`not json`), "2")
	f.Add(503, []byte(`{"status":"error","err_code":1004,"err_msg":"busy"}`), "")
	f.Add(200, []byte(`{"code":200,"data":[{"contract_code":"BTC-USDT","margin_mode":"cross","tier":"1","max_lever":"1","maintenance_margin_rate":"1","max_volume":"1","min_volume":"0","volume_unit":"usdt"}]}`), "")
	decoders := map[string]func([]byte) (status, error){
		"kline": func(b []byte) (status, error) { a, err := decodeKLine(b); return a.status, err },
		"tiers": func(b []byte) (status, error) { a, err := decodeAnswer[venueapi.Tier](b); return a.status, err },
		"limits": func(b []byte) (status, error) {
			a, err := decodeAnswer[venueapi.PositionLimit](b)
			return a.status, err
		},
	}
	f.Fuzz(func(t *testing.T, code int, body []byte, retryAfter string) {
		h := http.Header{"Retry-After": {retryAfter}, "Ratelimit-Reset": {retryAfter}}
		for name, decode := range decoders {
			st, decodeErr := decode(body)
			err := classify("GET /x", code, h, st, decodeErr)
			var (
				rej *RejectedError
				au  *AuthError
				rl  *RateLimitedError
				nf  *NotFoundError
				un  *UnavailableError
			)
			switch {
			case err == nil:
				if code != http.StatusOK || decodeErr != nil {
					t.Fatalf("%s: HTTP %d %q is a success", name, code, body)
				}
			case errors.As(err, &rl):
				if rl.RetryAfter < 0 || rl.RetryAfter > maxRetryAfter {
					t.Fatalf("%s: retry after %s", name, rl.RetryAfter)
				}
			case errors.As(err, &rej), errors.As(err, &au), errors.As(err, &nf), errors.As(err, &un):
			default:
				t.Fatalf("%s: HTTP %d %q gives the unclassified %v", name, code, body, err)
			}
		}
	})
}

// kline2000 is a KLine answer of 2000 one-minute candles as the venue writes it.
func kline2000(tb testing.TB) []byte {
	tb.Helper()
	var c venueapi.Candle
	if err := c.UnmarshalJSON([]byte(candleJSON)); err != nil {
		tb.Fatal(err)
	}
	env := venueapi.KLineEnvelope{Ch: "market.BTC-USDT.kline.1min", Status: venueapi.StatusOK, Ts: 1763805600000}
	for i := range 2000 {
		c.ID = 1763685600 + int64(i)*60
		env.Data = append(env.Data, c)
	}
	return env.AppendJSON(nil)
}

func TestTheBenchmarkAnswerTakesTheOnePassPath(t *testing.T) {
	body := kline2000(t)
	_, ok := venueapi.FastKLine(body)
	fast, _ := decodeKLine(body)
	want, err := decodeAnswer[venueapi.Candle](body)
	if !ok || err != nil || len(fast.Data) != 2000 {
		t.Fatalf("one pass: %t with %d candles; encoding/json: %v", ok, len(fast.Data), err)
	}
	if diff := sameAnswer(fast, want); diff != "" {
		t.Fatal(diff)
	}
}

func BenchmarkDecodeKLine2000(b *testing.B) {
	body := kline2000(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if a, err := decodeKLine(body); err != nil || len(a.Data) != 2000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeKLine2000EncodingJSON is the same answer through
// encoding/json alone, for comparison.
func BenchmarkDecodeKLine2000EncodingJSON(b *testing.B) {
	body := kline2000(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if a, err := decodeAnswer[venueapi.Candle](body); err != nil || len(a.Data) != 2000 {
			b.Fatal(err)
		}
	}
}
