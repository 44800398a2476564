package venueapi

import (
	"errors"
	"net/url"
	"testing"
)

// namesAParameter fails t unless err is a *ParamError naming a parameter
// and a rule.
func namesAParameter(t *testing.T, raw string, err error) {
	t.Helper()
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param == "" || pe.Rule == "" {
		t.Fatalf("%q: error %v does not name a parameter and a rule", raw, err)
	}
}

// FuzzParseTierQuery: a refusal names a parameter and a rule; what is
// accepted reads back the same from its own values.
func FuzzParseTierQuery(f *testing.F) {
	for _, s := range []string{"contract_code=BTC-USDT", "contract_code=BTC-USDT&margin_mode=cross", "contract_code=BTC-USDT-CQ", "margin_mode=isolated&contract_code=ETH-USDT", "=%zz", "contract_code=a&contract_code=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := ParseQuery(raw)
		if err != nil {
			namesAParameter(t, raw, err)
			return
		}
		q, err := ParseTierQuery(v)
		if err != nil {
			namesAParameter(t, raw, err)
			return
		}
		if back, err := ParseTierQuery(q.Values()); err != nil || back != q {
			t.Fatalf("%q: %+v reads back as %+v, %v", raw, q, back, err)
		}
	})
}

// FuzzParseLimitQuery: a refusal names a parameter and a rule (a broken
// combination as a *CombinationError); what is accepted reads back the same
// from its own values.
func FuzzParseLimitQuery(f *testing.F) {
	for _, s := range []string{"contract_code=BTC-USDT", "pair=BTC-USDT&contract_type=quarter&business_type=futures", "contract_code=BTC-USDT-250328&business_type=swap", "contract_type=swap&business_type=futures", "pair=btc-usdt", "business_type=all&business_type=all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseLimitQuery(v)
		if err != nil {
			namesAParameter(t, raw, err)
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("%q: accepted, yet %+v breaks a rule: %v", raw, q, err)
		}
		if back, err := ParseLimitQuery(q.Values()); err != nil || back != q {
			t.Fatalf("%q: %+v reads back as %+v, %v", raw, q, back, err)
		}
	})
}
