package components

import (
	"net/url"
	"testing"
)

// FuzzViewFromURL reads any query as a view: nothing panics, the view's own
// query reads back as the same view with no notice, and a contract code or
// a period the view does not take is never swapped for the default
// silently: ViewNotice names it (docs/decisions.md#unknown-view-parameters).
func FuzzViewFromURL(f *testing.F) {
	for _, q := range []string{
		"",
		"contract_code=eth-usdt&period=1DAY&tz=utc&theme=dark",
		"contract_code=%20BTC-USDT-CQ%20&period=60min&scale=log&style=hollow&indicators=ma:7,EMA:25,boll,vol_ma:20",
		"contract_code=BTC-USDT-261399&period=2min&scale=x&indicators=ma:0,rsi,rsi",
		"contract_code=&period=&theme=blue&tz=UTC",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u := &url.URL{RawQuery: raw}
		v := ViewFromURL(u)
		notice := ViewNotice(u)
		back := ViewFromURL(&url.URL{RawQuery: v.Query()})
		want := v
		want.Notice = ""
		if back != want {
			t.Fatalf("?%s reads as %+v, whose query %q reads as %+v", raw, v, v.Query(), back)
		}
		if n := ViewNotice(&url.URL{RawQuery: v.Query()}); n != "" {
			t.Fatalf("?%s: the view's own query %q has the notice %q", raw, v.Query(), n)
		}
		q := u.Query()
		if q.Has("contract_code") && v.Contract != contractParam(q) && notice == "" {
			t.Fatalf("?%s: contract_code %q shown as %s with no notice", raw, q.Get("contract_code"), v.Contract)
		}
		if q.Has("period") && string(v.Period) != periodParam(q) && notice == "" {
			t.Fatalf("?%s: period %q shown as %s with no notice", raw, q.Get("period"), v.Period)
		}
		if v.Notice != "" && notice == "" {
			t.Fatalf("?%s: the view has the notice %q, ViewNotice none", raw, v.Notice)
		}
	})
}
