package venueapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// decimalText is d's value and exponent: "1.50" is not "1.5".
func decimalText(d decimal.Decimal) string { return fmt.Sprintf("%s e%d", d, d.Exponent()) }

// sameTiers reports how two decoded tier answers differ; "" when they do not.
func sameTiers(a, b TierEnvelope) string {
	top := func(x TierEnvelope) string {
		return fmt.Sprintf("code %d %q ts %d stale %t data %d (nil %t)", x.Code, x.Message, x.Ts, x.Stale, len(x.Data), x.Data == nil)
	}
	if top(a) != top(b) {
		return top(a) + " vs " + top(b)
	}
	for i := range a.Data {
		show := func(t Tier) string {
			return fmt.Sprintf("%q %q %d %s %s %s %s %q", t.ContractCode, t.MarginMode, t.Tier, decimalText(t.MaxLever),
				decimalText(t.MaintenanceMarginRate), decimalText(t.MaxVolume), decimalText(t.MinVolume), t.VolumeUnit)
		}
		if x, y := show(a.Data[i]), show(b.Data[i]); x != y {
			return fmt.Sprintf("tier %d: %s vs %s", i, x, y)
		}
	}
	return ""
}

// sameOffers reports how two decoded contract lists differ; "" when they do not.
func sameOffers(a, b []Offer) string {
	show := func(x []Offer) string {
		var out strings.Builder
		fmt.Fprintf(&out, "%d (nil %t):", len(x), x == nil)
		for _, o := range x {
			fmt.Fprintf(&out, " %q %s %d;", o.Code, decimalText(o.FaceValue), o.PriceDecimals)
		}
		return out.String()
	}
	if x, y := show(a), show(b); x != y {
		return x + " vs " + y
	}
	return ""
}

const oneTier = `{"contract_code":"BTC-USDT","margin_mode":"cross","tier":"1","max_lever":"125","maintenance_margin_rate":"0.0040","max_volume":"500000","min_volume":"0","volume_unit":"usdt"}`

func TestTierAnswerDecodesAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool // the one-pass reader takes it on itself
	}{
		{"the venue's answer", `{"code":200,"message":"ok","data":[` + oneTier + `,` + oneTier + `],"ts":1700000000000}`, true},
		{"the gateway's stale answer", `{"code":200,"message":"ok","data":[` + oneTier + `],"ts":1,"stale":true}`, true},
		{"numbers as numbers", `{"code":200,"data":[{"contract_code":"ETH-USDT","margin_mode":"isolated","tier":2,"max_lever":50,"maintenance_margin_rate":0.01,"max_volume":1e6,"min_volume":0,"volume_unit":"contract"}]}`, true},
		{"no tiers", `{"code":200,"message":"ok","data":[],"ts":1}`, true},
		{"data null", `{"code":200,"data":null}`, true},
		{"an error envelope", `{"code":1030,"message":"contract_code must be a swap","ts":1}`, true},
		{"an unknown field", `{"code":200,"data":[` + strings.Replace(oneTier, `"tier"`, `"extra":{"a":[1]},"tier"`, 1) + `],"extra":[true]}`, true},
		{"a missing tier field", `{"code":200,"data":[` + strings.Replace(oneTier, `"max_lever":"125",`, ``, 1) + `]}`, false},
		{"an empty contract code", `{"code":200,"data":[` + strings.Replace(oneTier, `"BTC-USDT"`, `""`, 1) + `]}`, false},
		{"a null tier number", `{"code":200,"data":[` + strings.Replace(oneTier, `"tier":"1"`, `"tier":null`, 1) + `]}`, false},
		{"a tier number with a sign", `{"code":200,"data":[` + strings.Replace(oneTier, `"tier":"1"`, `"tier":"+1"`, 1) + `]}`, false},
		{"a code as a string", `{"code":"200","data":[]}`, false},
		{"a fractional ts", `{"code":200,"ts":1.5,"data":[]}`, false},
		{"a key in other case", `{"Code":200,"data":[]}`, false},
		{"an escaped message", `{"code":200,"message":"\u006fk","data":[]}`, false},
		{"not an object", `[]`, false},
		{"trailing bytes", `{"code":200,"data":[]} x`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastTiers, DecodeTiers, unmarshal[TierEnvelope], sameTiers)
		})
	}
	env, err := DecodeTiers([]byte(`{"code":200,"data":[` + oneTier + `]}`))
	if err != nil || len(env.Data) != 1 || env.Data[0].Tier != 1 || decimalText(env.Data[0].MaintenanceMarginRate) != "0.004 e-4" {
		t.Fatalf("decoded %+v, %v", env, err)
	}
}

func TestContractListDecodesAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		fast       bool
	}{
		{"the server's list", `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1},{"contract_code":"ETH-USDT","face_value":0.01,"price_decimals":2}]}`, true},
		{"an empty list", `{"data":[]}`, true},
		{"no list", `{}`, true},
		{"data null", `{"data":null}`, true},
		{"a field left out", `{"data":[{"contract_code":"BTC-USDT"}],"other":1}`, true},
		{"a null field", `{"data":[{"contract_code":null,"face_value":"1","price_decimals":1}]}`, false},
		{"price decimals as a string", `{"data":[{"contract_code":"X-USDT","price_decimals":"1"}]}`, false},
		{"price decimals past int32", `{"data":[{"contract_code":"X-USDT","price_decimals":4294967296}]}`, false},
		{"a face value that is no number", `{"data":[{"contract_code":"X-USDT","face_value":"one"}]}`, false},
		{"a repeated key", `{"data":[],"data":[]}`, false},
		{"Data", `{"Data":[]}`, false},
		{"broken", `{"data":[{]}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodesAsEncodingJSON(t, tt.body, tt.fast, FastContracts, DecodeContracts, unmarshalContracts, sameOffers)
		})
	}
}

func FuzzFastTiersAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"code":200,"message":"ok","data":[` + oneTier + `],"ts":1700000000000,"stale":false}`))
	f.Add([]byte(`{"code":-0,"data":[{"contract_code":"é","margin_mode":"x","tier":"007","max_lever":1.50,"maintenance_margin_rate":"-0.0","max_volume":"1E+2","min_volume":"123456789012345678901","volume_unit":"u","x":null}]}`))
	f.Add([]byte(`{"code":1030,"message":"bad","data":null,"ts":null,"stale":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastTiers, unmarshal[TierEnvelope], sameTiers)
	})
}

func FuzzFastContractsAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1}]}`))
	f.Add([]byte(`{"x":{"data":1},"data":[{"face_value":1e-3,"price_decimals":-2147483648,"y":[]}]}`))
	f.Add([]byte(`{"data":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithEncodingJSON(t, body, FastContracts, unmarshalContracts, sameOffers)
	})
}

// agreesWithEncodingJSON fails t when a one-pass reader takes body (fast's
// ok) and reads other than encoding/json (want), or reads what it refuses.
func agreesWithEncodingJSON[T any](t *testing.T, body []byte, fast func([]byte) (T, bool), want func([]byte) (T, error), diff func(a, b T) string) {
	t.Helper()
	got, ok := fast(body)
	if !ok {
		return
	}
	w, err := want(body)
	if err != nil {
		t.Fatalf("the one-pass reader read %q, which encoding/json refuses: %v", body, err)
	}
	if d := diff(got, w); d != "" {
		t.Fatalf("%q decoded differently from encoding/json: %s", body, d)
	}
}

// decodesAsEncodingJSON checks a reader on body: whether its one-pass half
// (fast) takes it on itself, and that the reader (decode) gives what
// encoding/json (want) gives, error and all.
func decodesAsEncodingJSON[T any](t *testing.T, body string, fastOK bool, fast func([]byte) (T, bool), decode, want func([]byte) (T, error), diff func(a, b T) string) {
	t.Helper()
	if _, ok := fast([]byte(body)); ok != fastOK {
		t.Errorf("the one-pass reader took it: %t, want %t", ok, fastOK)
	}
	got, gotErr := decode([]byte(body))
	w, wantErr := want([]byte(body))
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, encoding/json says %v", gotErr, wantErr)
	}
	if d := diff(got, w); d != "" {
		t.Fatalf("decoded differently from encoding/json: %s", d)
	}
}

// unmarshalContracts is encoding/json's reading of the contract list.
func unmarshalContracts(b []byte) ([]Offer, error) {
	var v struct {
		Data []Offer `json:"data"`
	}
	err := json.Unmarshal(b, &v)
	return v.Data, err
}

// unmarshal is json.Unmarshal into a new T.
func unmarshal[T any](b []byte) (T, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}
