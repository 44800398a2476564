package venueapi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// showLimit is every field of p, decimals with their exponents.
func showLimit(p PositionLimit) string {
	return fmt.Sprintf("%q %q %q %s %s %q %q %q %d %s %s %s %q", p.Symbol, p.ContractCode, p.MarginMode, decimalText(p.BuyLimit),
		decimalText(p.SellLimit), p.ContractType, p.Pair, p.BusinessType, p.LeverRate, decimalText(p.BuyLimitValue),
		decimalText(p.SellLimitValue), decimalText(p.MarkPrice), p.TradePartition)
}

// sameLimitList reports how two lists of records differ; "" when they do not.
func sameLimitList(a, b []PositionLimit) string {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return fmt.Sprintf("%d records (nil %t) vs %d (nil %t)", len(a), a == nil, len(b), b == nil)
	}
	for i := range a {
		if x, y := showLimit(a[i]), showLimit(b[i]); x != y {
			return fmt.Sprintf("record %d: %s vs %s", i, x, y)
		}
	}
	return ""
}

// sameLimits reports how two decoded position-limit answers differ; "" when they do not.
func sameLimits(a, b LimitEnvelope) string {
	top := func(x LimitEnvelope) string {
		return fmt.Sprintf("status %q ts %d err %d %q stale %t", x.Status, x.Ts, x.ErrCode, x.ErrMsg, x.Stale)
	}
	if top(a) != top(b) {
		return top(a) + " vs " + top(b)
	}
	return sameLimitList(a.Data, b.Data)
}

// sameRisk reports how two decoded RiskRecords differ; "" when they do not.
func sameRisk(a, b RiskRecords) string {
	if d := sameTiers(TierEnvelope{Data: a.Tiers}, TierEnvelope{Data: b.Tiers}); d != "" {
		return d
	}
	return sameLimitList(a.Limits, b.Limits)
}

// unmarshalRisk is encoding/json's reading of RiskRecords, without its UnmarshalJSON.
func unmarshalRisk(b []byte) (RiskRecords, error) {
	type plain RiskRecords
	var v plain
	err := json.Unmarshal(b, &v)
	return RiskRecords(v), err
}

func sameStrings(a, b []string) string {
	if x, y := fmt.Sprintf("%q nil %t", a, a == nil), fmt.Sprintf("%q nil %t", b, b == nil); x != y {
		return x + " vs " + y
	}
	return ""
}

func sameState(a, b StreamState) string {
	if a != b {
		return fmt.Sprintf("%+v vs %+v", a, b)
	}
	return ""
}

const oneLimit = `{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":2000,"sell_limit":"2000","contract_type":"swap","pair":"BTC-USDT","business_type":"swap","lever_rate":10,"buy_limit_value":190000.5,"sell_limit_value":190000.50,"mark_price":95000.25,"trade_partition":"USDT"}`

func TestLimitAnswerDecodesAsEncodingJSONDoes(t *testing.T) {
	with := func(old, new string) string {
		return `{"status":"ok","data":[` + strings.Replace(oneLimit, old, new, 1) + `],"ts":1}`
	}
	for _, tt := range []struct {
		name, body string
		fast       bool // the one-pass reader takes it on itself
	}{
		{"the venue's answer", `{"status":"ok","data":[` + oneLimit + `,` + oneLimit + `],"ts":1700000000000}`, true},
		{"the gateway's stale answer", `{"status":"ok","data":[` + oneLimit + `],"ts":1,"stale":true}`, true},
		{"no limits", `{"status":"ok","data":[],"ts":1}`, true},
		{"data null", `{"status":"ok","data":null}`, true},
		{"an error envelope", `{"status":"error","err_code":1048,"err_msg":"contract_code is not a contract","ts":1}`, true},
		{"no trade partition", with(`,"trade_partition":"USDT"`, ``), true},
		{"a null trade partition", with(`"trade_partition":"USDT"`, `"trade_partition":null`), true},
		{"an empty symbol", with(`"symbol":"BTC"`, `"symbol":""`), true},
		{"an unknown field", with(`"pair"`, `"extra":{"a":[1,"x"]},"pair"`), true},
		{"a leverage written 10.0", with(`"lever_rate":10`, `"lever_rate":10.0`), true},
		{"a missing mark price", with(`,"mark_price":95000.25`, ``), false},
		{"a null symbol", with(`"symbol":"BTC"`, `"symbol":null`), false},
		{"a null limit", with(`"buy_limit":2000`, `"buy_limit":null`), false},
		{"a leverage of 1.5", with(`"lever_rate":10`, `"lever_rate":1.5`), false},
		{"a leverage past 10000", with(`"lever_rate":10`, `"lever_rate":10001`), false},
		{"a leverage past int64", with(`"lever_rate":10`, `"lever_rate":18446744073709551621`), false},
		{"a negative leverage", with(`"lever_rate":10`, `"lever_rate":-1`), false},
		{"a limit that is no number", with(`"buy_limit":2000`, `"buy_limit":"lots"`), false},
		{"a null record", `{"status":"ok","data":[null]}`, false},
		{"a repeated key", with(`"pair":"BTC-USDT"`, `"pair":"BTC-USDT","pair":"X"`), false},
		{"a key in other case", with(`"pair"`, `"Pair"`), false},
		{"an escaped string", with(`"BTC"`, `"B\u0054C"`), false},
		{"err_code as a string", `{"status":"error","err_code":"1048"}`, false},
		{"a fractional ts", `{"status":"ok","ts":1.5,"data":[]}`, false},
		{"not an object", `[]`, false},
		{"trailing bytes", `{"status":"ok","data":[]} x`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastLimits, DecodeLimits, unmarshal[LimitEnvelope], sameLimits)
		})
	}
	env, err := DecodeLimits([]byte(`{"status":"ok","data":[` + oneLimit + `]}`))
	if err != nil || len(env.Data) != 1 || env.Data[0].LeverRate != 10 || decimalText(env.Data[0].SellLimitValue) != "190000.5 e-2" {
		t.Fatalf("decoded %+v, %v", env, err)
	}
}

func FuzzFastLimitsAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"status":"ok","data":[` + oneLimit + `],"ts":1700000000000,"stale":false}`))
	f.Add([]byte(`{"status":"error","err_code":-0,"err_msg":"x","data":null,"ts":null,"stale":null}`))
	f.Add([]byte(`{"data":[{"symbol":"é","contract_code":"","margin_mode":"x","buy_limit":"1E+2","sell_limit":-0.0,"contract_type":"","pair":"p","business_type":"b","lever_rate":"007","buy_limit_value":123456789012345678901,"sell_limit_value":1,"mark_price":1,"trade_partition":null,"y":{}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastLimits, unmarshal[LimitEnvelope], sameLimits)
	})
}

func TestRiskRecordsDecodeAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool
	}{
		{"as the app keeps them", `{"tiers":[` + oneTier + `,` + oneTier + `],"limits":[` + oneLimit + `]}`, true},
		{"no limits", `{"tiers":[` + oneTier + `],"limits":null}`, true},
		{"no tiers", `{"tiers":null,"limits":[` + oneLimit + `]}`, true},
		{"empty lists", `{"tiers":[],"limits":[]}`, true},
		{"one member", `{"limits":[]}`, true},
		{"an unknown member", `{"at":"x","tiers":[]}`, true},
		{"a tier missing a field", `{"tiers":[` + strings.Replace(oneTier, `"max_lever":"125",`, ``, 1) + `]}`, false},
		{"a limit missing a field", `{"limits":[` + strings.Replace(oneLimit, `"pair":"BTC-USDT",`, ``, 1) + `]}`, false},
		{"tiers that are no list", `{"tiers":{}}`, false},
		{"Tiers", `{"Tiers":[]}`, false},
		{"broken", `{"tiers":[}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decode := func(b []byte) (RiskRecords, error) {
				var r RiskRecords
				err := r.UnmarshalJSON(b)
				return r, err
			}
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastRiskRecords, decode, unmarshalRisk, sameRisk)
		})
	}
	// A member left out leaves what the records held, as encoding/json does.
	held := RiskRecords{Tiers: []Tier{{ContractCode: "X"}}}
	if err := held.UnmarshalJSON([]byte(`{"limits":[]}`)); err != nil || len(held.Tiers) != 1 || held.Limits == nil {
		t.Fatalf("read into held records: %+v, %v", held, err)
	}
}

func FuzzFastRiskRecordsAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"tiers":[` + oneTier + `],"limits":[` + oneLimit + `]}`))
	f.Add([]byte(`{"tiers":null,"limits":null,"x":[{"tiers":1}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastRiskRecords, unmarshalRisk, sameRisk)
	})
}

func TestStringsDecodeAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool
	}{
		{"keys", `["riskchart/kline/BTC-USDT/1min","riskchart/risk/BTC-USDT"]`, true},
		{"none", `[]`, true},
		{"null", `null`, true},
		{"spaces", ` [ "a" , "é" ] `, true},
		{"an escape", `["a\"b"]`, false},
		{"a number", `["a",1]`, false},
		{"a null string", `[null]`, false},
		{"invalid UTF-8", "[\"\xff\"]", false},
		{"not a list", `{}`, false},
		{"trailing bytes", `[] []`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastStrings, DecodeStrings, unmarshal[[]string], sameStrings)
		})
	}
}

func FuzzFastStringsAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`["riskchart/kline/BTC-USDT/1min","riskchart/risk/BTC-USDT"]`))
	f.Add([]byte(` null `))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastStrings, unmarshal[[]string], sameStrings)
	})
}

func TestStreamStateDecodesAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool
	}{
		{"the gateway's event", `{"ch":"market.BTC-USDT.kline.1min","stale":true}`, true},
		{"fresh", `{"ch":"market.BTC-USDT.kline.1min","stale":false}`, true},
		{"a type code's, with its delivery", `{"ch":"market.BTC-USDT-CW.kline.1day","stale":false,"delivery":1764835200}`, true},
		{"a delivery as a string", `{"delivery":"1764835200"}`, true},
		{"a delivery with a fraction", `{"delivery":1764835200.5}`, false},
		{"nulls", `{"ch":null,"stale":null}`, true},
		{"an unknown field", `{"x":[1],"stale":true}`, true},
		{"stale as a string", `{"stale":"true"}`, false},
		{"an escaped channel", `{"ch":"market.BTC\u002dUSDT"}`, false},
		{"a repeated key", `{"stale":true,"stale":false}`, false},
		{"Stale", `{"Stale":true}`, false},
		{"not an object", `true`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastStreamState, DecodeStreamState, unmarshal[StreamState], sameState)
		})
	}
}

func FuzzFastStreamStateAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"ch":"market.BTC-USDT.kline.1min","stale":true}`))
	f.Add([]byte(`{"ch":"market.BTC-USDT-CW.kline.1day","stale":false,"delivery":1764835200}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastStreamState, unmarshal[StreamState], sameState)
	})
}

// oldLimitJSON is a position-limit record as PositionLimit.MarshalJSON wrote
// it by encoding/json: the bytes kept in browsers, which AppendJSON must
// write again.
func oldLimitJSON(p PositionLimit) ([]byte, error) {
	num := func(d decimal.Decimal) *json.Number { n := json.Number(d.String()); return &n }
	lever := json.Number(strconv.Itoa(p.LeverRate))
	return json.Marshal(struct {
		Symbol         string       `json:"symbol"`
		ContractCode   string       `json:"contract_code"`
		MarginMode     string       `json:"margin_mode"`
		BuyLimit       *json.Number `json:"buy_limit"`
		SellLimit      *json.Number `json:"sell_limit"`
		ContractType   string       `json:"contract_type"`
		Pair           string       `json:"pair"`
		BusinessType   string       `json:"business_type"`
		LeverRate      *json.Number `json:"lever_rate"`
		BuyLimitValue  *json.Number `json:"buy_limit_value"`
		SellLimitValue *json.Number `json:"sell_limit_value"`
		MarkPrice      *json.Number `json:"mark_price"`
		TradePartition string       `json:"trade_partition"`
	}{p.Symbol, p.ContractCode, p.MarginMode, num(p.BuyLimit), num(p.SellLimit), string(p.ContractType), p.Pair, p.BusinessType,
		&lever, num(p.BuyLimitValue), num(p.SellLimitValue), num(p.MarkPrice), p.TradePartition})
}

// The records' writers against encoding/json, on the strings and decimals
// where the two could part: HTML characters, bytes that are not UTF-8, line
// separators, quotes and controls; coefficients past 18 digits, positive
// exponents and negative zero.
func TestRiskRecordsWriteWhatEncodingJSONWrites(t *testing.T) {
	strs := []string{"BTC-USDT", "", "<b>&amp;</b>", "\xff\xfe", "a\u2028b\u2029", "say \"hi\"\\", "\x01\t\n", "é€𝄞"}
	decs := []decimal.Decimal{decimal.RequireFromString("95000.25"), decimal.RequireFromString("0.0040"), decimal.New(5, 3),
		decimal.RequireFromString("-123456789012345678901.5"), decimal.RequireFromString("-0"), decimal.Zero, decimal.New(-7, -20)}
	var risk RiskRecords
	for i, s := range strs {
		d := decs[i%len(decs)]
		tier := Tier{ContractCode: s, MarginMode: strs[(i+1)%len(strs)], Tier: TierNumber(i - 2), MaxLever: d,
			MaintenanceMarginRate: decs[(i+1)%len(decs)], MaxVolume: decs[(i+2)%len(decs)], MinVolume: decs[(i+3)%len(decs)], VolumeUnit: s}
		limit := PositionLimit{Symbol: s, ContractCode: strs[(i+2)%len(strs)], MarginMode: s, BuyLimit: d, SellLimit: decs[(i+1)%len(decs)],
			ContractType: ContractType(s), Pair: s, BusinessType: s, LeverRate: i * 25, BuyLimitValue: decs[(i+2)%len(decs)],
			SellLimitValue: decs[(i+3)%len(decs)], MarkPrice: decs[(i+4)%len(decs)], TradePartition: s}
		risk.Tiers, risk.Limits = append(risk.Tiers, tier), append(risk.Limits, limit)

		want, err := json.Marshal(tier)
		if got := tier.AppendJSON(nil); err != nil || string(got) != string(want) {
			t.Errorf("tier %d: wrote %s, encoding/json %s (%v)", i, got, want, err)
		}
		want, err = oldLimitJSON(limit)
		if got := limit.AppendJSON(nil); err != nil || string(got) != string(want) {
			t.Errorf("limit %d: wrote %s, encoding/json %s (%v)", i, got, want, err)
		}
		if got, err := json.Marshal(limit); err != nil || string(got) != string(want) {
			t.Errorf("limit %d: json.Marshal wrote %s, want %s (%v)", i, got, want, err)
		}
	}
	type plain RiskRecords
	for _, r := range []RiskRecords{risk, {}, {Tiers: []Tier{}, Limits: []PositionLimit{}}, {Tiers: risk.Tiers[:1]}} {
		want, err := json.Marshal(plain(r))
		if got := r.AppendJSON(nil); err != nil || string(got) != string(want) {
			t.Errorf("records: wrote %s, encoding/json %s (%v)", got, want, err)
		}
	}
	for _, ss := range [][]string{nil, {}, strs} {
		want, _ := json.Marshal(ss)
		if got := AppendStrings(nil, ss); string(got) != string(want) {
			t.Errorf("strings %q: wrote %s, encoding/json %s", ss, got, want)
		}
	}

	// And what the app keeps reads back, by both readers alike (a tier
	// needs its strings: those without are left out).
	kept := RiskRecords{Limits: risk.Limits}
	for _, t := range risk.Tiers {
		if t.ContractCode != "" && t.MarginMode != "" && t.VolumeUnit != "" {
			kept.Tiers = append(kept.Tiers, t)
		}
	}
	b := kept.AppendJSON(nil)
	var back RiskRecords
	if err := back.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	plainBack, err := unmarshalRisk(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameRisk(back, plainBack); d != "" {
		t.Fatalf("read back differently from encoding/json: %s", d)
	}
	if len(back.Limits) != len(strs) || back.Limits[3].LeverRate != 75 || len(back.Tiers) != len(kept.Tiers) || back.Tiers[0].ContractCode != kept.Tiers[0].ContractCode {
		t.Fatalf("read back %+v", back)
	}
}
