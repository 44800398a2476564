package components

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

// viewAsTheScriptReadsIt reads the view from u with the configuration's
// rules, as web/chart-boot.js does.
func viewAsTheScriptReadsIt(t *testing.T, u *url.URL) View {
	t.Helper()
	c, err := firstPaintConfig()
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	v := View{Contract: c.Contract, Period: c.Period, Theme: "auto"}
	if code := q.Get("contract_code"); len(code) <= c.ContractMaxLen && regexp.MustCompile(c.ContractPattern).MatchString(code) {
		v.Contract = code
	}
	if p := venueapi.Period(q.Get("period")); c.Labels[p] != "" {
		v.Period = p
	}
	v.UTC = q.Get("tz") == c.UTC
	if th := q.Get("theme"); slices.Contains(c.Themes, th) {
		v.Theme = th
	}
	return v
}

// A contract code the pattern accepts with a delivery date that does not
// exist is the one difference: the app reads the default view, and merely
// does not adopt the first paint.
func TestTheFirstPaintReadsTheURLAsViewFromURLDoes(t *testing.T) {
	for _, query := range []string{
		"",
		"contract_code=ETH-USDT&period=1day&tz=utc&theme=dark",
		"contract_code=BTC-USDT-CQ&period=1mon&tz=local&theme=light",
		"contract_code=BTC-USDT-261225&period=1hour",
		"contract_code=btc-usdt&period=2min&tz=UTC&theme=blue",
		"contract_code=" + strings.Repeat("A", 38) + "-B",
		"contract_code=" + strings.Repeat("A", 37) + "-B",
		"contract_code=BTC-USDT-XW&period=",
		"contract_code=BTC&period=4hour&theme=",
	} {
		u, err := url.Parse("/?" + query)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := viewAsTheScriptReadsIt(t, u), ViewFromURL(u); got != want {
			t.Errorf("?%s: the first paint reads %+v, the app %+v", query, got, want)
		}
	}
}
