package venueapi

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
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
		{name: "from and to select a range", query: "contract_code=ETH-USDT-CQ&period=1day&from=86400&to=172800",
			want: KLineQuery{ContractCode: "ETH-USDT-CQ", Period: Period1Day, From: 86400, To: 172800, Range: true}},
		{name: "from without to is an error naming to", query: "contract_code=BTC-USDT&period=1min&from=60", wantParam: "to"},
		{name: "to without from is an error naming from, even with size", query: "contract_code=BTC-USDT&period=1min&to=60&size=5", wantParam: "from"},
		{name: "from after to", query: "contract_code=BTC-USDT&period=1min&from=120&to=60", wantParam: "from"},
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

func TestParseContractCode(t *testing.T) {
	for _, tt := range []struct {
		code string
		kind ContractKind
		typ  ContractType
		ok   bool
	}{
		{"BTC-USDT", KindSwap, TypeSwap, true},
		{"1000PEPE-USDT", KindSwap, TypeSwap, true},
		{"BTC-USDT-261225", KindFuture, "", true},
		{"BTC-USDT-CW", KindTypeCode, TypeThisWeek, true},
		{"BTC-USDT-NW", KindTypeCode, TypeNextWeek, true},
		{"BTC-USDT-CQ", KindTypeCode, TypeQuarter, true},
		{"BTC-USDT-NQ", KindTypeCode, TypeNextQuarter, true},
		{"BTC-USDT-261332", 0, "", false}, // no 32nd of a 13th month
		{"BTC-USDT-XX", 0, "", false},
		{"btc-usdt", 0, "", false},
		{"BTC_USDT", 0, "", false},
		{"BTC--USDT", 0, "", false},
		{"BTC-USDT-CQ-1", 0, "", false},
		{"", 0, "", false},
	} {
		c, err := ParseContractCode(tt.code)
		if (err == nil) != tt.ok || (tt.ok && (c.Kind != tt.kind || c.Type != tt.typ)) {
			t.Errorf("ParseContractCode(%q) = %+v, %v", tt.code, c, err)
		}
	}
}

func TestPeriodAlignment(t *testing.T) {
	ts := time.Date(2026, 11, 22, 13, 47, 31, 0, time.UTC).Unix()
	for _, tt := range []struct {
		p          Period
		start, nxt time.Time
	}{
		{Period1Min, time.Date(2026, 11, 22, 13, 47, 0, 0, time.UTC), time.Date(2026, 11, 22, 13, 48, 0, 0, time.UTC)},
		{Period15Min, time.Date(2026, 11, 22, 13, 45, 0, 0, time.UTC), time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)},
		{Period1Hour, time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)},
		{Period4Hour, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)},
		{Period1Day, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{Period1Mon, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if got := tt.p.Start(ts); got != tt.start.Unix() {
			t.Errorf("%s Start = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.start)
		}
		if got := tt.p.Next(tt.start.Unix()); got != tt.nxt.Unix() {
			t.Errorf("%s Next = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.nxt)
		}
		if got := tt.p.Prev(tt.nxt.Unix()); got != tt.start.Unix() {
			t.Errorf("%s Prev = %s, want %s", tt.p, time.Unix(got, 0).UTC(), tt.start)
		}
	}
	dec := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Unix()
	if n := Period1Mon.Count(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), dec); n != 12 {
		t.Errorf("1mon Count Jan..Dec = %d, want 12", n)
	}
	if n := Period1Min.Count(0, 119940); n != 2000 {
		t.Errorf("1min Count = %d, want 2000", n)
	}
	if Period60Min.Canonical() != Period1Hour.Canonical() {
		t.Error("60min and 1hour are not one series")
	}
}
