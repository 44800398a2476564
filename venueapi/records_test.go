package venueapi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCandleDecodesNumbersAndStringsExactly(t *testing.T) {
	var c Candle
	in := `{"id":1700000040,"vol":"12","count":3,"open":48725.6,"close":"48725.60000000000001","low":0.1,"high":1e3,"amount":0.012,"trade_turnover":"584.7072","extra":"ignored"}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.ID != 1700000040 || c.Open.String() != "48725.6" || c.Close.String() != "48725.60000000000001" || c.High.String() != "1000" {
		t.Fatalf("decoded %+v", c)
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"close":48725.60000000000001`) {
		t.Fatalf("re-encoded %s loses digits or quotes numbers", out)
	}
}

func TestRecordsRequireEveryField(t *testing.T) {
	var c Candle
	err := json.Unmarshal([]byte(`{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1}`), &c)
	var mf *MissingFieldError
	if !errors.As(err, &mf) || mf.Field != "trade_turnover" {
		t.Fatalf("error %v, want trade_turnover missing", err)
	}
	var tr Tier
	err = json.Unmarshal([]byte(`{"contract_code":"BTC-USDT","margin_mode":"cross","tier":"2","max_lever":"50","maintenance_margin_rate":"0.01","max_volume":"10","volume_unit":"contract"}`), &tr)
	if !errors.As(err, &mf) || mf.Field != "min_volume" {
		t.Fatalf("error %v, want min_volume missing", err)
	}
}

func TestTierAcceptsTheTierNumberAsNumberOrString(t *testing.T) {
	for _, tier := range []string{`3`, `"3"`} {
		var tr Tier
		in := `{"contract_code":"BTC-USDT","margin_mode":"cross","tier":` + tier + `,"max_lever":"20","maintenance_margin_rate":"0.025","max_volume":"30000","min_volume":"10000","volume_unit":"contract"}`
		if err := json.Unmarshal([]byte(in), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Tier != 3 || tr.MaintenanceMarginRate.String() != "0.025" {
			t.Fatalf("tier %s decoded as %+v", tier, tr)
		}
	}
}

func TestPositionLimitRoundTripsWithNumbers(t *testing.T) {
	in := `{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":2000,"sell_limit":"2000","contract_type":"swap","pair":"BTC-USDT","business_type":"swap","lever_rate":10,"buy_limit_value":190000.5,"sell_limit_value":190000.5,"mark_price":95000.25,"trade_partition":"USDT"}`
	var p PositionLimit
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if p.LeverRate != 10 || p.BuyLimitValue.String() != "190000.5" || p.SellLimit.String() != "2000" {
		t.Fatalf("decoded %+v", p)
	}
	out, _ := json.Marshal(p)
	if !strings.Contains(string(out), `"mark_price":95000.25`) || !strings.Contains(string(out), `"lever_rate":10`) {
		t.Fatalf("encoded %s", out)
	}
}

func FuzzCandleDecoder(f *testing.F) {
	f.Add([]byte(`{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}`))
	f.Add([]byte(`{"id":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Candle
		if err := json.Unmarshal(b, &c); err != nil {
			return
		}
		// Whatever decodes re-encodes to JSON that decodes to the same values.
		var back Candle
		if err := json.Unmarshal(c.AppendJSON(nil), &back); err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", c.AppendJSON(nil), err)
		}
		if !back.Open.Equal(c.Open) || !back.TradeTurnover.Equal(c.TradeTurnover) || back.ID != c.ID {
			t.Fatalf("round trip changed %+v to %+v", c, back)
		}
	})
}

func FuzzPositionLimitDecoder(f *testing.F) {
	f.Add([]byte(`{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":1,"sell_limit":1,"contract_type":"swap","pair":"BTC-USDT","business_type":"swap","lever_rate":5,"buy_limit_value":1,"sell_limit_value":1,"mark_price":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p PositionLimit
		_ = json.Unmarshal(b, &p) // must not panic, whatever the input
	})
}

// kline2000 is a KLine answer of 2000 one-minute candles as the gateway writes it.
func kline2000(b *testing.B) []byte {
	env := KLineEnvelope{Ch: "market.BTC-USDT.kline.1min", Status: StatusOK, Ts: 1}
	var c Candle
	if err := json.Unmarshal([]byte(`{"id":0,"vol":4146,"count":692,"open":98803.8,"close":98761.2,"low":98759,"high":98827.7,"amount":4.146,"trade_turnover":409574.6334}`), &c); err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		c.ID = int64(i * 60)
		env.Data = append(env.Data, c)
	}
	body := env.AppendJSON(nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	return body
}

// BenchmarkDecodeKLine2000 is encoding/json alone, the anchor of
// BenchmarkDecodeKLineAnswer2000.
func BenchmarkDecodeKLine2000(b *testing.B) {
	body := kline2000(b)
	for b.Loop() {
		var out KLineEnvelope
		if err := json.Unmarshal(body, &out); err != nil || len(out.Data) != 2000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeKLineAnswer2000 is DecodeKLine, as the server and the app
// read candles. GOOS=js GOARCH=wasm go test -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
// runs both in Node's V8, as app.wasm runs in a browser.
func BenchmarkDecodeKLineAnswer2000(b *testing.B) {
	body := kline2000(b)
	for b.Loop() {
		if a, err := DecodeKLine(body); err != nil || len(a.Data) != 2000 {
			b.Fatal(err)
		}
	}
}

func TestCandleIDsComeAsNumbersOrStrings(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want int64
		ok   bool
	}{
		{`1700000040`, 1700000040, true},
		{`"1700000040"`, 1700000040, true},
		{`1.5`, 0, false},
		{`"x"`, 0, false},
		{`null`, 0, false},
	} {
		var c Candle
		err := json.Unmarshal([]byte(`{"id":`+tt.id+`,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}`), &c)
		if (err == nil) != tt.ok || c.ID != tt.want {
			t.Errorf("id %s: decoded %d, %v", tt.id, c.ID, err)
		}
	}
}

func TestRecordsRefuseValuesOfTheWrongKind(t *testing.T) {
	tier := `{"contract_code":"BTC-USDT","margin_mode":"cross","tier":%s,"max_lever":"20","maintenance_margin_rate":"0.025","max_volume":"30000","min_volume":"10000","volume_unit":"contract"}`
	limit := `{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":1,"sell_limit":1,"contract_type":"swap","pair":"BTC-USDT","business_type":"swap","lever_rate":%s,"buy_limit_value":1,"sell_limit_value":1,"mark_price":1}`
	for _, tt := range []struct {
		name string
		into any
		body string
	}{
		{"a tier number that is no number", new(Tier), strings.Replace(tier, "%s", `"first"`, 1)},
		{"a fractional leverage", new(PositionLimit), strings.Replace(limit, "%s", `2.5`, 1)},
		{"a negative leverage", new(PositionLimit), strings.Replace(limit, "%s", `-1`, 1)},
		{"a price that is a boolean", new(Candle), `{"id":1,"vol":1,"count":1,"open":true,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}`},
	} {
		if err := json.Unmarshal([]byte(tt.body), tt.into); err == nil {
			t.Errorf("%s: decoded without an error", tt.name)
		}
	}
	var p PositionLimit
	if err := json.Unmarshal([]byte(strings.Replace(limit, "%s", `"125"`, 1)), &p); err != nil || p.LeverRate != 125 || p.TradePartition != "" {
		t.Errorf("a record without the deprecated trade_partition: %+v, %v", p, err)
	}
}

func FuzzTierDecoder(f *testing.F) {
	f.Add([]byte(`{"contract_code":"BTC-USDT","margin_mode":"cross","tier":"1","max_lever":"125","maintenance_margin_rate":"0.004","max_volume":"50000","min_volume":"0","volume_unit":"contract"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr Tier
		if err := json.Unmarshal(b, &tr); err != nil {
			return
		}
		// Whatever decodes re-encodes to what decodes to the same tier.
		out, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var back Tier
		if err := json.Unmarshal(out, &back); err != nil || back.Tier != tr.Tier || !back.MaxLever.Equal(tr.MaxLever) || !back.MinVolume.Equal(tr.MinVolume) {
			t.Fatalf("%s came back as %+v, %v", out, back, err)
		}
	})
}
