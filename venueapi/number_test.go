package venueapi

import (
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestAppendDecimalWritesWhatStringWrites(t *testing.T) {
	for _, d := range []decimal.Decimal{
		decimal.Zero, decimal.New(0, -3), decimal.New(5, -1), decimal.New(-5, -1), decimal.New(950000, -1), decimal.New(1000, -3),
		decimal.New(1500, -3), decimal.New(7, -18), decimal.New(123, -20), decimal.New(42, 3), decimal.New(math.MaxInt64, -4),
		decimal.New(math.MinInt64, -2), decimal.RequireFromString("123456789012345678901234.5"), decimal.New(-100, 0),
	} {
		if got, want := string(AppendDecimal(nil, d)), d.String(); got != want {
			t.Errorf("%s: wrote %q", want, got)
		}
	}
}

func FuzzAppendDecimalWritesWhatStringWrites(f *testing.F) {
	f.Add(int64(950000), int32(-1))
	f.Add(int64(-1), int32(-18))
	f.Add(int64(0), int32(0))
	f.Fuzz(func(t *testing.T, c int64, exp int32) {
		d := decimal.New(c, exp%40)
		if got, want := string(AppendDecimal(nil, d)), d.String(); got != want {
			t.Fatalf("%s: wrote %q", want, got)
		}
	})
}

func BenchmarkAppendDecimal(b *testing.B) {
	d := decimal.New(9512345, -1)
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendDecimal(buf[:0], d)
	}
}

// TestNumbersPastTheWireBoundAreRefused: a record's number with more than
// maxWireDigits digits, or its point further than that from them, is a
// broken record, by the one-pass decoders and encoding/json alike; one as
// short as 1e-2000000000 would otherwise take gigabytes to write out. The
// numbers a venue sends, exponents included, are read as before.
func TestNumbersPastTheWireBoundAreRefused(t *testing.T) {
	candle := func(vol string) string {
		return `[{"id":1700000040,"vol":` + vol + `,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]`
	}
	tiers := func(rate string) string {
		return `{"code":200,"data":[{"contract_code":"BTC-USDT","margin_mode":"cross","tier":1,"max_lever":125,"maintenance_margin_rate":` + rate +
			`,"max_volume":1,"min_volume":0,"volume_unit":"usdt"}]}`
	}
	limits := func(mark string) string {
		return `{"status":"ok","data":[{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":1,"sell_limit":1,"contract_type":"swap",` +
			`"pair":"BTC-USDT","business_type":"swap","lever_rate":10,"buy_limit_value":1,"sell_limit_value":1,"mark_price":` + mark + `}]}`
	}
	decoders := map[string]func(string) (decimal.Decimal, error){
		"candles": func(n string) (decimal.Decimal, error) {
			cs, err := DecodeCandles([]byte(candle(n)))
			if err != nil || len(cs) != 1 {
				return decimal.Decimal{}, err
			}
			return cs[0].Vol, nil
		},
		"tiers": func(n string) (decimal.Decimal, error) {
			env, err := DecodeTiers([]byte(tiers(n)))
			if err != nil || len(env.Data) != 1 {
				return decimal.Decimal{}, err
			}
			return env.Data[0].MaintenanceMarginRate, nil
		},
		"limits": func(n string) (decimal.Decimal, error) {
			env, err := DecodeLimits([]byte(limits(n)))
			if err != nil || len(env.Data) != 1 {
				return decimal.Decimal{}, err
			}
			return env.Data[0].MarkPrice, nil
		},
	}
	long := "1" + strings.Repeat("0", maxWireDigits) // 65 digits
	for _, tt := range []struct {
		number string
		want   string // "" when refused
	}{
		{`1e-2000000000`, ""}, {`"1e-2000000000"`, ""}, {`1E2000000000`, ""}, {`1e65`, ""}, {`1e-65`, ""},
		{long, ""}, {`"` + long + `"`, ""}, {long + ".5", ""}, {`0.` + strings.Repeat("0", 64) + `1`, ""},
		{`4146`, "4146"}, {`"0.0040"`, "0.004"}, {`1.5e3`, "1500"}, {`1e-8`, "0.00000001"}, {`"2.5E-3"`, "0.0025"},
		{`1e64`, "1" + strings.Repeat("0", 64)}, {strings.Repeat("9", maxWireDigits), strings.Repeat("9", maxWireDigits)},
	} {
		for name, decode := range decoders {
			got, err := decode(tt.number)
			switch {
			case tt.want == "" && err == nil:
				t.Errorf("%s with %.40s: read (exponent %d, %d digits), want the record refused", name, tt.number, got.Exponent(), len(got.Coefficient().String()))
			case tt.want != "" && (err != nil || got.String() != tt.want):
				t.Errorf("%s with %s: %s, %v; want %s", name, tt.number, got.String(), err, tt.want)
			}
		}
	}
}
