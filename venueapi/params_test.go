package venueapi

import (
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestParseKLineQuery(t *testing.T) {
	tests := []struct {
		name      string
		query     string
		wantParam string // the parameter the error names; "" for success
		want      KLineQuery
	}{
		{name: "none of size, from, to means the latest 150", query: "contract_code=BTC-USDT&period=1min",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 150}},
		{name: "size alone", query: "contract_code=BTC-USDT&period=5min&size=2000",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period5Min, Size: 2000}},
		{name: "size wins over from and to", query: "contract_code=BTC-USDT&period=1min&size=3&from=0&to=60",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 3}},
		// With size, from and to are ignored: not read, so neither their
		// form, nor the range rules, nor a repetition is checked.
		{name: "size wins over from and to in milliseconds", query: "contract_code=BTC-USDT&period=1min&size=7&from=1700000000000&to=1700000600000",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 7}},
		{name: "size wins over from and to that are not numbers", query: "contract_code=BTC-USDT&period=1min&size=7&from=abc&to=def",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 7}},
		{name: "size wins over from and to that are empty", query: "contract_code=BTC-USDT&period=1min&size=7&from=&to=",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 7}},
		{name: "size wins over from after to", query: "contract_code=BTC-USDT&period=1min&size=7&from=120&to=60",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 7}},
		{name: "size wins over from and to given twice", query: "contract_code=BTC-USDT&period=1min&size=7&from=1&from=2&to=3&to=x",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 7}},
		{name: "from that is not a number without to is an error naming to, even with size", query: "contract_code=BTC-USDT&period=1min&size=7&from=abc", wantParam: "to"},
		{name: "from given twice without size", query: "contract_code=BTC-USDT&period=1min&from=60&from=120&to=180", wantParam: "from"},
		{name: "to given twice without size", query: "contract_code=BTC-USDT&period=1min&from=60&to=120&to=180", wantParam: "to"},
		{name: "to in milliseconds without size", query: "contract_code=BTC-USDT&period=1min&from=1700000000&to=1700000600000", wantParam: "to"},
		{name: "from and to select a range", query: "contract_code=ETH-USDT-CQ&period=1day&from=86400&to=172800",
			want: KLineQuery{ContractCode: "ETH-USDT-CQ", Period: Period1Day, From: 86400, To: 172800, Range: true}},
		{name: "from without to is an error naming to", query: "contract_code=BTC-USDT&period=1min&from=60", wantParam: "to"},
		{name: "to without from is an error naming from, even with size", query: "contract_code=BTC-USDT&period=1min&to=60&size=5", wantParam: "from"},
		{name: "from after to", query: "contract_code=BTC-USDT&period=1min&from=120&to=60", wantParam: "from"},
		{name: "from one second after to", query: "contract_code=BTC-USDT&period=1min&from=61&to=60", wantParam: "from"},
		{name: "from past 2^40 seconds", query: "contract_code=BTC-USDT&period=1min&from=1099511627777&to=1099511627778", wantParam: "from"},
		{name: "to at 2^40 seconds is a timestamp", query: "contract_code=BTC-USDT&period=1min&from=1099511627760&to=1099511627776",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, From: 1099511627760, To: 1099511627776, Range: true}},
		{name: "a range of more than 2000 candles", query: "contract_code=BTC-USDT&period=1min&from=0&to=120000", wantParam: "to"},
		{name: "a range of exactly 2000 candles", query: "contract_code=BTC-USDT&period=1min&from=0&to=119940",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, From: 0, To: 119940, Range: true}},
		{name: "size 0", query: "contract_code=BTC-USDT&period=1min&size=0", wantParam: "size"},
		{name: "size 2001", query: "contract_code=BTC-USDT&period=1min&size=2001", wantParam: "size"},
		{name: "size not a number", query: "contract_code=BTC-USDT&period=1min&size=ten", wantParam: "size"},
		{name: "an unknown period", query: "contract_code=BTC-USDT&period=2min", wantParam: "period"},
		{name: "a missing period", query: "contract_code=BTC-USDT", wantParam: "period"},
		{name: "a missing contract", query: "period=1min", wantParam: "contract_code"},
		{name: "a lower-case contract", query: "contract_code=btc-usdt&period=1min", wantParam: "contract_code"},
		{name: "a parameter given twice", query: "contract_code=BTC-USDT&period=1min&period=5min", wantParam: "period"},
		{name: "from not a timestamp", query: "contract_code=BTC-USDT&period=1min&from=yesterday&to=1", wantParam: "from"},
		// Numbers in plain digits only, as the venue writes them.
		{name: "size with a plus sign", query: "contract_code=BTC-USDT&period=1min&size=%2B5", wantParam: "size"},
		{name: "size with a leading space (a raw +)", query: "contract_code=BTC-USDT&period=1min&size=+5", wantParam: "size"},
		{name: "size with a trailing space", query: "contract_code=BTC-USDT&period=1min&size=5%20", wantParam: "size"},
		{name: "size with a leading zero", query: "contract_code=BTC-USDT&period=1min&size=05", wantParam: "size"},
		{name: "size negative", query: "contract_code=BTC-USDT&period=1min&size=-5", wantParam: "size"},
		{name: "size in hex", query: "contract_code=BTC-USDT&period=1min&size=0x10", wantParam: "size"},
		{name: "size empty", query: "contract_code=BTC-USDT&period=1min&size=", wantParam: "size"},
		{name: "size in other digits", query: "contract_code=BTC-USDT&period=1min&size=%EF%BC%95", wantParam: "size"},
		{name: "size far too long", query: "contract_code=BTC-USDT&period=1min&size=99999999999999999999999", wantParam: "size"},
		{name: "from in exponent form", query: "contract_code=BTC-USDT&period=1min&from=1e3&to=6000", wantParam: "from"},
		{name: "from with a plus sign", query: "contract_code=BTC-USDT&period=1min&from=%2B60&to=120", wantParam: "from"},
		{name: "to with a leading zero", query: "contract_code=BTC-USDT&period=1min&from=60&to=0120", wantParam: "to"},
		{name: "to with a fraction", query: "contract_code=BTC-USDT&period=1min&from=60&to=120.0", wantParam: "to"},
		{name: "from zero is plain", query: "contract_code=BTC-USDT&period=1min&from=0&to=60",
			want: KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, From: 0, To: 60, Range: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			q, err := ParseKLineQuery(v)
			if tt.wantParam != "" {
				var pe *ParamError
				if !errors.As(err, &pe) || pe.Param != tt.wantParam {
					t.Fatalf("error %v, want a ParamError naming %q", err, tt.wantParam)
				}
				if !strings.Contains(err.Error(), tt.wantParam) {
					t.Fatalf("message %q does not name %q", err, tt.wantParam)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Effective(); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestKLineQueryValidateBoundsTheSize checks Validate itself, which the venue
// client calls on a query it builds (not one read by ParseKLineQuery).
func TestKLineQueryValidateBoundsTheSize(t *testing.T) {
	for _, tt := range []struct {
		q         KLineQuery
		wantParam string
	}{
		{KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 2000}, ""},
		{KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: 2001}, "size"},
		{KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Size: -1}, "size"},
		{KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Range: true, From: 60, To: 59}, "from"},
		{KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Range: true, From: 60, To: 60}, ""},
		{KLineQuery{ContractCode: "BTC-USDT", Period: Period1Min, Range: true, From: 0, To: 120000}, "to"},
		{KLineQuery{ContractCode: "BTC-USDT", Period: "2min"}, "period"},
	} {
		err := tt.q.Validate()
		var pe *ParamError
		if tt.wantParam == "" && err != nil || tt.wantParam != "" && (!errors.As(err, &pe) || pe.Param != tt.wantParam) {
			t.Errorf("%+v: error %v, want param %q", tt.q, err, tt.wantParam)
		}
	}
}

func TestLimitQueryRules(t *testing.T) {
	tests := []struct {
		name      string
		q         LimitQuery
		wantParam string
	}{
		{name: "all parameters are optional", q: LimitQuery{}},
		{name: "a swap", q: LimitQuery{ContractCode: "BTC-USDT"}},
		{name: "a dated future needs business type futures or all", q: LimitQuery{ContractCode: "BTC-USDT-261225"}, wantParam: "business_type"},
		{name: "a dated future with futures", q: LimitQuery{ContractCode: "BTC-USDT-261225", BusinessType: "futures"}},
		{name: "a dated future with all", q: LimitQuery{ContractCode: "BTC-USDT-261225", BusinessType: "all"}},
		{name: "a future contract type without business type", q: LimitQuery{Pair: "BTC-USDT", ContractType: TypeQuarter}, wantParam: "business_type"},
		{name: "a contract code wins over pair and type", q: LimitQuery{ContractCode: "BTC-USDT", ContractType: TypeQuarter}},
		{name: "a contract-type code is not a contract here", q: LimitQuery{ContractCode: "BTC-USDT-CQ", BusinessType: "all"}, wantParam: "contract_code"},
		{name: "an unknown business type", q: LimitQuery{BusinessType: "spot"}, wantParam: "business_type"},
		{name: "an unknown contract type", q: LimitQuery{ContractType: "perpetual"}, wantParam: "contract_type"},
		{name: "a malformed pair", q: LimitQuery{Pair: "BTCUSDT"}, wantParam: "pair"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.q.Validate()
			var pe *ParamError
			switch {
			case tt.wantParam == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantParam != "" && (!errors.As(err, &pe) || pe.Param != tt.wantParam):
				t.Fatalf("error %v, want one naming %q", err, tt.wantParam)
			}
		})
	}
	if (LimitQuery{}).Business() != BusinessSwap {
		t.Error("business_type does not default to swap")
	}
}

func TestTierQueryRules(t *testing.T) {
	for _, tt := range []struct {
		q         TierQuery
		wantParam string
	}{
		{TierQuery{ContractCode: "BTC-USDT"}, ""},
		{TierQuery{ContractCode: "BTC-USDT", MarginMode: "cross"}, ""},
		{TierQuery{ContractCode: "BTC-USDT", MarginMode: "isolated"}, "margin_mode"},
		{TierQuery{ContractCode: "BTC-USDT-261225"}, "contract_code"},
		{TierQuery{}, "contract_code"},
	} {
		err := tt.q.Validate()
		var pe *ParamError
		if tt.wantParam == "" && err != nil || tt.wantParam != "" && (!errors.As(err, &pe) || pe.Param != tt.wantParam) {
			t.Errorf("%+v: error %v, want param %q", tt.q, err, tt.wantParam)
		}
	}
}

func TestParseTierAndLimitQueriesFromValues(t *testing.T) {
	tests := []struct {
		name      string
		parse     func(url.Values) error
		query     string
		wantParam string
	}{
		{"tiers of a swap", func(v url.Values) error { _, err := ParseTierQuery(v); return err }, "contract_code=BTC-USDT", ""},
		{"tiers in cross margin", func(v url.Values) error { _, err := ParseTierQuery(v); return err }, "contract_code=BTC-USDT&margin_mode=cross", ""},
		{"tiers with a repeated contract", func(v url.Values) error { _, err := ParseTierQuery(v); return err }, "contract_code=BTC-USDT&contract_code=ETH-USDT", "contract_code"},
		{"tiers without a contract", func(v url.Values) error { _, err := ParseTierQuery(v); return err }, "margin_mode=cross", "contract_code"},
		{"limits with nothing", func(v url.Values) error { _, err := ParseLimitQuery(v); return err }, "", ""},
		{"limits of a future contract type for all businesses", func(v url.Values) error { _, err := ParseLimitQuery(v); return err }, "pair=BTC-USDT&contract_type=this_week&business_type=all", ""},
		{"limits with a repeated business type", func(v url.Values) error { _, err := ParseLimitQuery(v); return err }, "business_type=swap&business_type=all", "business_type"},
		{"limits of a future without a business type", func(v url.Values) error { _, err := ParseLimitQuery(v); return err }, "contract_code=BTC-USDT-261225", "business_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.parse(v)
			var pe *ParamError
			switch {
			case tt.wantParam == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantParam != "" && (!errors.As(err, &pe) || pe.Param != tt.wantParam):
				t.Fatalf("error %v, want one naming %q", err, tt.wantParam)
			}
		})
	}
}

func TestQueriesSurviveTheirOwnEncoding(t *testing.T) {
	k := KLineQuery{ContractCode: "BTC-USDT-CQ", Period: Period4Hour, From: 1767225600, To: 1767240000, Range: true}
	if got, err := ParseKLineQuery(k.Values()); err != nil || got != k {
		t.Fatalf("kline query %+v came back as %+v, %v", k, got, err)
	}
	tq := TierQuery{ContractCode: "BTC-USDT", MarginMode: MarginCross}
	if got, err := ParseTierQuery(tq.Values()); err != nil || got != tq {
		t.Fatalf("tier query %+v came back as %+v, %v", tq, got, err)
	}
	lq := LimitQuery{Pair: "BTC-USDT", ContractType: TypeQuarter, BusinessType: BusinessFutures}
	if got, err := ParseLimitQuery(lq.Values()); err != nil || got != lq {
		t.Fatalf("limit query %+v came back as %+v, %v", lq, got, err)
	}
}

func TestParamErrorsNameTheParameterTheRuleAndAShortValue(t *testing.T) {
	err := &ParamError{Param: "size", Rule: "must be an integer from 1 to 2000", Value: strings.Repeat("9", 100)}
	msg := err.Error()
	if !strings.Contains(msg, "size") || !strings.Contains(msg, "1 to 2000") || strings.Contains(msg, strings.Repeat("9", 65)) {
		t.Fatalf("message %q", msg)
	}
	if msg := (&ParamError{Param: "period", Rule: "is required"}).Error(); msg != "invalid period: is required" {
		t.Fatalf("message %q", msg)
	}
}

// FuzzParseKLineQuery reads any query string: nothing panics, and what is
// accepted obeys the rules and reads back the same from its own encoding.
func FuzzParseKLineQuery(f *testing.F) {
	f.Add("contract_code=BTC-USDT&period=1min&size=150")
	f.Add("contract_code=ETH-USDT-CQ&period=1mon&from=0&to=1767225600")
	f.Add("contract_code=BTC-USDT-261225&period=60min&from=60&to=60&size=2")
	f.Fuzz(func(t *testing.T, query string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		q, err := ParseKLineQuery(v)
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param == "" || pe.Rule == "" {
				t.Fatalf("%q: error %v does not name a parameter and a rule", query, err)
			}
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("%q: accepted, yet %+v breaks a rule: %v", query, q, err)
		}
		back, err := ParseKLineQuery(q.Values())
		if err != nil || back.Effective() != q.Effective() {
			t.Fatalf("%q: %+v reads back as %+v, %v", query, q, back, err)
		}
	})
}

func TestParseQueryNamesThePairItCannotDecode(t *testing.T) {
	for _, tt := range []struct {
		name, raw string
		wantParam string // "" for success
	}{
		{"a plain query", "contract_code=BTC-USDT&period=1min&size=5", ""},
		{"escapes and pluses", "contract_code=BTC%2DUSDT&note=a+b", ""},
		{"an empty query", "", ""},
		{"empty pairs", "&&size=5&", ""},
		{"a broken escape in a value", "contract_code=BTC-USDT&period=1min&size=%ZZ", "size"},
		{"a cut escape at the end", "contract_code=BTC-USDT&size=5%", "size"},
		{"a broken escape in a name", "contract_code=BTC-USDT&si%ZZe=5", "query"},
		{"a semicolon separator", "contract_code=BTC-USDT;size=5", "contract_code"},
		{"a broken escape in a value with no name", "contract_code=BTC-USDT&=%ZZ", "query"},
		{"a semicolon in a pair with no name", "=a;size=5", "query"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseQuery(tt.raw)
			if tt.wantParam == "" {
				want, _ := url.ParseQuery(tt.raw)
				if err != nil || v.Encode() != want.Encode() {
					t.Fatalf("%v %v, want %v", v, err, want)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != tt.wantParam || v != nil {
				t.Fatalf("%v %v, want an error naming %q", v, err, tt.wantParam)
			}
		})
	}
}

// FuzzParseQuery: ParseQuery accepts what url.ParseQuery accepts, with the
// same values, and refuses the rest with a ParamError that states a rule.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{"size=5", "size=%ZZ", "a=1;b=2", "%zz=1", "a=%", "x=1&&y=%41", strings.Repeat("a=1&", 20),
		"a=1&a=2&b&a=3", "=x&y=&&", "a=b=c", "x=+"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := ParseQuery(raw)
		want, wantErr := url.ParseQuery(raw)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("ParseQuery %v, url.ParseQuery %v", err, wantErr)
		}
		if err == nil {
			if v.Encode() != want.Encode() {
				t.Fatalf("%v, want %v", v, want)
			}
			return
		}
		var pe *ParamError
		if !errors.As(err, &pe) || !strings.Contains(pe.Rule, "must") {
			t.Fatalf("error %v is not a ParamError stating a rule", err)
		}
	})
}

// The body the app sends is what encoding/json writes of the query.
func TestLimitQueryAppendsTheJSONEncodingJSONWrites(t *testing.T) {
	for _, q := range []LimitQuery{
		{},
		{ContractCode: "BTC-USDT"},
		{Pair: "BTC-USDT", ContractType: TypeQuarter, BusinessType: BusinessFutures},
		{ContractCode: "BTC-USDT-250328", BusinessType: BusinessAll},
		{BusinessType: BusinessSwap},
		{ContractCode: `a"b\c<d>&é` + "\n\x7f\u2028\xff"}, // not valid, but written as encoding/json writes it
	} {
		want, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%+v: AppendJSON %s, encoding/json %s", q, got, want)
		}
	}
}

func FuzzLimitQueryAppendJSON(f *testing.F) {
	f.Add("BTC-USDT", "", "swap", "all")
	f.Add("", "ETH-USDT", "quarter", "")
	f.Add("<\"\\>", "\x00\xff", "\u2028", "é")
	f.Fuzz(func(t *testing.T, code, pair, typ, business string) {
		q := LimitQuery{ContractCode: code, Pair: pair, ContractType: ContractType(typ), BusinessType: business}
		want, _ := json.Marshal(q)
		if got := q.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("%+v: AppendJSON %s, encoding/json %s", q, got, want)
		}
	})
}

func TestTheSecondsRuleNamesTheBound(t *testing.T) {
	if want := strconv.FormatInt(KLineMaxSeconds, 10); !strings.HasSuffix(SecondsRule, " "+want) {
		t.Errorf("the rule of from and to is %q, want it to end with the bound %s", SecondsRule, want)
	}
}

// A browser's query, which needs no decoding, is read into one map and one
// slice of values: every request the gateway answers is parsed.
func TestParsingAPlainQueryAllocatesAMapAndOneSlice(t *testing.T) {
	const raw = "contract_code=BTC-USDT&period=1min&size=300"
	var kept url.Values // kept, as a handler keeps what it parsed, so that nothing is on the stack
	n := testing.AllocsPerRun(100, func() {
		var err error
		if kept, err = ParseQuery(raw); err != nil {
			t.Fatal(err)
		}
	})
	std := testing.AllocsPerRun(100, func() { kept, _ = url.ParseQuery(raw) })
	_ = kept
	if n > 3 || n >= std {
		t.Errorf("ParseQuery(%q): %v allocations, url.ParseQuery %v; want at most 3, and fewer", raw, n, std)
	}
	t.Logf("%v allocations, url.ParseQuery's %v", n, std)
}
