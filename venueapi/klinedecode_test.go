package venueapi

import (
	"encoding/json"
	"fmt"
	"testing"
)

// sameKLine reports how two decoded KLine answers differ; "" when they do
// not. Decimals must agree in value and exponent: "1.50" is not "1.5".
func sameKLine(a, b KLineAnswer) string {
	top := func(x KLineAnswer) string {
		code, status := "<nil>", "<nil>"
		if x.Code != nil {
			code = fmt.Sprint(*x.Code)
		}
		if x.Status != nil {
			status = *x.Status
		}
		return fmt.Sprintf("code %s %q status %s %d %q ch %q ts %d stale %t delivery %d data %d (nil %t)",
			code, x.Message, status, x.ErrCode, x.ErrMsg, x.Ch, x.Ts, x.Stale, x.Delivery, len(x.Data), x.Data == nil)
	}
	if top(a) != top(b) {
		return top(a) + " vs " + top(b)
	}
	for i := range a.Data {
		x, y := a.Data[i], b.Data[i]
		if x.ID != y.ID {
			return fmt.Sprintf("candle %d: id %d vs %d", i, x.ID, y.ID)
		}
		for j, d := range []struct{ x, y interface{ String() string } }{
			{x.Vol, y.Vol}, {x.Count, y.Count}, {x.Open, y.Open}, {x.Close, y.Close},
			{x.Low, y.Low}, {x.High, y.High}, {x.Amount, y.Amount}, {x.TradeTurnover, y.TradeTurnover},
		} {
			if d.x.String() != d.y.String() {
				return fmt.Sprintf("candle %d, field %d: %s vs %s", i, j, d.x, d.y)
			}
		}
		xs := []int32{x.Vol.Exponent(), x.Count.Exponent(), x.Open.Exponent(), x.Close.Exponent(), x.Low.Exponent(), x.High.Exponent(), x.Amount.Exponent(), x.TradeTurnover.Exponent()}
		ys := []int32{y.Vol.Exponent(), y.Count.Exponent(), y.Open.Exponent(), y.Close.Exponent(), y.Low.Exponent(), y.High.Exponent(), y.Amount.Exponent(), y.TradeTurnover.Exponent()}
		if fmt.Sprint(xs) != fmt.Sprint(ys) {
			return fmt.Sprintf("candle %d: exponents %v vs %v", i, xs, ys)
		}
	}
	return ""
}

const oneCandle = `{"id":1700000040,"vol":4146,"count":"692","open":98803.8,"close":"98761.20","low":98759,"high":98827.7,"amount":4.146,"trade_turnover":409574.6334}`

// The one-pass decoder against encoding/json on the KLine answer as the app
// reads it from the gateway: stale is read too.
func TestKLineAnswerDecodesAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool // the one-pass decoder takes it on itself
	}{
		{"the gateway's answer", `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[` + oneCandle + `,` + oneCandle + `]}`, true},
		{"a stale answer", `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[` + oneCandle + `],"stale":true}`, true},
		{"stale false", `{"status":"ok","stale":false,"data":[]}`, true},
		{"a type code's answer, with its delivery", `{"ch":"market.BTC-USDT-CW.kline.1day","status":"ok","ts":1,"data":[` + oneCandle + `],"delivery":1764835200}`, true},
		{"a delivery null", `{"status":"ok","delivery":null,"data":[]}`, true},
		{"a delivery with an exponent", `{"status":"ok","delivery":1.7e9,"data":[]}`, false},
		{"stale null", `{"status":"ok","stale":null,"data":[]}`, true},
		{"an error envelope", `{"status":"error","err_code":1013,"err_msg":"no such contract","ts":1}`, true},
		{"stale that is no boolean", `{"status":"ok","stale":1,"data":[]}`, false},
		{"stale in other case", `{"status":"ok","Stale":true,"data":[]}`, false},
		{"a repeated stale", `{"status":"ok","stale":true,"stale":false,"data":[]}`, false},
		{"a missing candle field", `{"status":"ok","data":[{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1}]}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastKLine, DecodeKLine, unmarshal[KLineAnswer], sameKLine)
		})
	}
	a, err := DecodeKLine([]byte(`{"status":"ok","stale":true,"data":[` + oneCandle + `]}`))
	if err != nil || !a.Stale || len(a.Data) != 1 || a.Data[0].Close.String() != "98761.2" || a.Data[0].Close.Exponent() != -2 {
		t.Fatalf("decoded %+v, %v", a, err)
	}
}

func FuzzFastKLineAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[` + oneCandle + `],"stale":true}`))
	f.Add([]byte(`{"status":"ok","ts":"5","data":[{"id":"-60","vol":"0","count":"-0.0","open":"007.50","close":"1","low":"1","high":"1","amount":"1","trade_turnover":"1"}]}`))
	f.Add([]byte(`{"x":{"a":[1,-2.5e+3,true,false,null,"\u00e9\n"]},"status":"error","err_code":1030,"err_msg":"bad","data":null,"stale":false}`))
	f.Add([]byte(`{"code":200,"message":"ok","data":[]}`))
	f.Add([]byte(`{"ch":"market.BTC-USDT-CW.kline.1day","status":"ok","ts":1,"data":[],"delivery":1764835200}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastKLine, unmarshal[KLineAnswer], sameKLine)
	})
}

// sameStreamCandle reports how two decoded candle events differ.
func sameStreamCandle(a, b StreamCandle) string {
	if a.Ch != b.Ch {
		return fmt.Sprintf("ch %q vs %q", a.Ch, b.Ch)
	}
	return sameKLine(KLineAnswer{Data: []Candle{a.Candle}}, KLineAnswer{Data: []Candle{b.Candle}})
}

// The one-pass reader of a pushed candle against encoding/json, which read
// the channel's name and the record in two passes.
func TestStreamCandleDecodesAsEncodingJSONDoes(t *testing.T) {
	const ch = `"ch":"market.BTC-USDT.kline.1min"`
	for _, tt := range []struct {
		name, body string
		fast       bool
	}{
		{"the gateway's event", `{` + ch + `,` + oneCandle[1:], true},
		{"the channel last", oneCandle[:len(oneCandle)-1] + `,` + ch + `}`, true},
		{"no channel", oneCandle, true},
		{"an unknown field", `{` + ch + `,"extra":[1,{"a":null}],` + oneCandle[1:], true},
		{"a null channel", `{"ch":null,` + oneCandle[1:], false},
		{"a channel that is no string", `{"ch":1,` + oneCandle[1:], false},
		{"a channel in other case", `{"CH":"x",` + oneCandle[1:], false},
		{"a repeated channel", `{` + ch + `,` + ch + `,` + oneCandle[1:], false},
		{"an escaped channel", `{"ch":"market.BTC\u002dUSDT",` + oneCandle[1:], false},
		{"a missing candle field", `{` + ch + `,"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1}`, false},
		{"a null price", `{` + ch + `,"id":1,"vol":1,"count":1,"open":null,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}`, false},
		{"trailing bytes", `{` + ch + `,` + oneCandle[1:] + `x`, false},
		{"not an object", `[` + oneCandle + `]`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastStreamCandle, DecodeStreamCandle, unmarshal[StreamCandle], sameStreamCandle)
		})
	}
	e, err := DecodeStreamCandle([]byte(`{` + ch + `,` + oneCandle[1:]))
	if err != nil || e.Ch != "market.BTC-USDT.kline.1min" || e.Candle.ID != 1700000040 || e.Candle.Close.String() != "98761.2" || e.Candle.Close.Exponent() != -2 {
		t.Fatalf("decoded %+v, %v", e, err)
	}
}

func FuzzFastStreamCandleAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"ch":"market.BTC-USDT.kline.1min",` + oneCandle[1:]))
	f.Add([]byte(`{"id":"-60","vol":"0","count":"-0.0","open":"007.50","close":"1","low":"1","high":"1","amount":"1","trade_turnover":"1","ch":""}`))
	f.Add([]byte(`{"x":{"a":[1,-2.5e+3,true,false,null,"\u00e9\n"]},"ch":"a","id":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastStreamCandle, unmarshal[StreamCandle], sameStreamCandle)
	})
}

func BenchmarkDecodeStreamCandle(b *testing.B) {
	raw := []byte(`{"ch":"market.BTC-USDT.kline.1min",` + oneCandle[1:])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeStreamCandle(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStreamCandleEncodingJSON is the anchor: the event read by
// encoding/json, as the app read it before.
func BenchmarkDecodeStreamCandleEncodingJSON(b *testing.B) {
	raw := []byte(`{"ch":"market.BTC-USDT.kline.1min",` + oneCandle[1:])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := unmarshal[StreamCandle](raw); err != nil {
			b.Fatal(err)
		}
	}
}

// sameCandles reports how two decoded arrays of records differ.
func sameCandles(a, b []Candle) string {
	return sameKLine(KLineAnswer{Data: a}, KLineAnswer{Data: b})
}

// The one-pass reader of a kept array of records against encoding/json.
func TestCandlesDecodeAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool
	}{
		{"two records", `[` + oneCandle + `,` + oneCandle + `]`, true},
		{"none", `[]`, true},
		{"white space around", " \n[ " + oneCandle + " ]\t", true},
		{"null", `null`, false},
		{"a missing field", `[{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1}]`, false},
		{"a record that is null", `[null]`, false},
		{"trailing bytes", `[` + oneCandle + `]x`, false},
		{"not an array", oneCandle, false},
		{"cut short", `[` + oneCandle, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastCandles, DecodeCandles, unmarshal[[]Candle], sameCandles)
		})
	}
}

func FuzzFastCandlesAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`[` + oneCandle + `]`))
	f.Add([]byte(`[{"id":"-60","vol":"0","count":"-0.0","open":"007.50","close":"1","low":"1","high":"1","amount":"1","trade_turnover":"1","x":[{}]}]`))
	f.Add([]byte(` [ ] `))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastCandles, unmarshal[[]Candle], sameCandles)
	})
}

// Candles write what encoding/json writes of a []Candle, and read it back,
// inside a larger value as on their own.
func TestCandlesWriteWhatEncodingJSONWritesAndReadItBack(t *testing.T) {
	recs, err := DecodeCandles([]byte(`[` + oneCandle + `,{"id":-60,"vol":"0","count":"-0.0","open":"007.50","close":"1e-8","low":"123456789012345678901234567890","high":1,"amount":0,"trade_turnover":"0.000"}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range []Candles{nil, {}, recs[:1], recs} {
		want, err := json.Marshal([]Candle(cs))
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
			t.Errorf("AppendJSON wrote %s, encoding/json %s", got[1:], want)
		}
		var back struct {
			Data Candles `json:"data"`
		}
		if err := json.Unmarshal([]byte(`{"data":`+string(want)+`}`), &back); err != nil {
			t.Fatal(err)
		}
		// Written as String writes them, the numbers come back as the same
		// values and the same digits (a trailing zero of the venue's is not
		// kept, as it was not by encoding/json).
		if again := back.Data.AppendJSON(nil); string(again) != string(want) || len(back.Data) != len(cs) {
			t.Errorf("read back %s as %s", want, again)
		}
	}
	kept := Candles(recs)
	if err := kept.UnmarshalJSON([]byte("null")); err != nil || len(kept) != len(recs) {
		t.Fatalf("null changed the records: %d left, %v", len(kept), err)
	}
	if err := kept.UnmarshalJSON([]byte(`[{"id":1}]`)); err == nil {
		t.Fatal("a record without its fields was read")
	}
}
