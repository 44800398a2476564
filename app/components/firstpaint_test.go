package components

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/boot"
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

// A chart whose view names studies, a price scale or a chart style carries
// its look for its first paint (boot.Look), after the configuration and
// before the script that reads it, marked (boot.SketchAttr) when the first
// paint sketches it; one with none of them, or with only the defaults
// named, carries none, and a value the app does not draw is drawn as the
// default.
func TestTheServersChartCarriesTheLookOfItsView(t *testing.T) {
	for _, tc := range []struct {
		query   string
		grids   int    // in the look's light frame; 0: no look
		draw    string // the light drawing's function
		axis    string // the price axis' type; "": a value axis
		percent bool
		marked  string // boot.SketchAttr's mark, or none
	}{
		{"contract_code=BTC-USDT", 0, "", "", false, ""},
		{"scale=linear&style=candles", 0, "", "", false, ""},
		{"scale=LOG&style=bars", 0, "", "", false, ""},
		{"indicators=ma:7", 2, "", "", false, ""},
		{"indicators=ma:7,macd", 3, "", "", false, ""},
		{"indicators=boll,macd,rsi&theme=dark", 4, "", "", false, ""},
		{"scale=log", 2, "", "log", false, ""},
		{"scale=percent", 2, "", "", true, ` data-sketch="true"`},
		{"style=hollow", 2, "", "", false, ` data-sketch="true"`},
		{"style=ohlc", 2, "ohlcBars", "", false, ` data-sketch="true"`},
		{"style=line&scale=percent", 2, "closeLine", "", true, ` data-sketch="true"`},
		{"style=line&indicators=ma:7", 2, "closeLine", "", false, ""},
		{"style=area&scale=log&indicators=rsi", 3, "closeLine", "log", false, ""},
	} {
		u, err := url.Parse("/?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		v := ViewFromURL(u)
		html := app.HTMLString(&KLineChart{Contract: v.Contract, Period: v.Period, Look: v.Look})
		m := regexp.MustCompile(`<script type="application/json" id="` + boot.LookID + `"( ` + boot.SketchMark + `)?>([^<]*)</script>`).FindStringSubmatchIndex(html)
		if tc.grids == 0 {
			if m != nil {
				t.Errorf("?%s: the chart carries a look", tc.query)
			}
			continue
		}
		if m == nil {
			t.Fatalf("?%s: the chart carries no look", tc.query)
		}
		var look struct {
			Frames map[string]struct {
				Grid  []any
				YAxis []struct{ Type string }
			}
			Draw    map[string]struct{ Fn string }
			Percent bool
			Log     *boot.LogRule
		}
		if mark := html[max(m[2], 0):max(m[3], 0)]; mark != tc.marked {
			t.Errorf("?%s: the look is marked %q, want %q", tc.query, mark, tc.marked)
		}
		if err := json.Unmarshal([]byte(html[m[4]:m[5]]), &look); err != nil || len(look.Frames["light"].Grid) != tc.grids || len(look.Frames["dark"].Grid) != tc.grids {
			t.Errorf("?%s: the look's frames have %d and %d grids (%v), want %d", tc.query, len(look.Frames["light"].Grid), len(look.Frames["dark"].Grid), err, tc.grids)
		}
		if axis := look.Frames["light"].YAxis[0].Type; axis != tc.axis || (look.Log != nil) != (tc.axis == "log") || look.Percent != tc.percent {
			t.Errorf("?%s: the look's price axis is %q (log rule %v, percent %v), want %q (percent %v)", tc.query, axis, look.Log, look.Percent, tc.axis, tc.percent)
		}
		if look.Draw["light"].Fn != tc.draw || look.Draw["dark"].Fn != tc.draw {
			t.Errorf("?%s: the look draws the prices with %q and %q, want %q", tc.query, look.Draw["light"].Fn, look.Draw["dark"].Fn, tc.draw)
		}
		if conf, script := strings.Index(html, `id="`+boot.ConfigID+`"`), strings.Index(html, boot.Script); conf < 0 || conf > m[0] || script < m[1] {
			t.Errorf("?%s: the look is not between the configuration and the script", tc.query)
		}
	}
}
