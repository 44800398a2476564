package embedmsg

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

func TestParseSetReadsCommandsAndNamesTheBadField(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    Set
		badName string // the parameter a *ParamError names; "" for success
		ignored bool   // ErrNotACommand
	}{
		{name: "a period alone", data: `{"type":"riskchart:set","period":"5min"}`, want: Set{Period: venueapi.Period5Min}},
		{name: "all three fields", data: `{"type":"riskchart:set","contract_code":"ETH-USDT-CQ","period":"1day","theme":"dark"}`,
			want: Set{ContractCode: "ETH-USDT-CQ", Period: venueapi.Period1Day, Theme: ThemeDark}},
		{name: "the automatic theme", data: `{"type":"riskchart:set","theme":"auto"}`, want: Set{Theme: ThemeAuto}},
		{name: "unknown fields are ignored", data: `{"type":"riskchart:set","theme":"light","x":[1,2]}`, want: Set{Theme: ThemeLight}},
		{name: "a lower-case contract", data: `{"type":"riskchart:set","contract_code":"btc-usdt"}`, badName: "contract_code"},
		{name: "an empty contract", data: `{"type":"riskchart:set","contract_code":""}`, badName: "contract_code"},
		{name: "an unknown period", data: `{"type":"riskchart:set","period":"2min"}`, badName: "period"},
		{name: "an unknown theme", data: `{"type":"riskchart:set","theme":"sepia"}`, badName: "theme"},
		{name: "a scale and a style", data: `{"type":"riskchart:set","scale":"log","style":"hollow"}`, want: Set{Scale: "log", Style: "hollow"}},
		{name: "an OHLC style", data: `{"type":"riskchart:set","style":"ohlc"}`, want: Set{Style: "ohlc"}},
		{name: "an area on a percent scale", data: `{"type":"riskchart:set","scale":"percent","style":"area"}`, want: Set{Scale: "percent", Style: "area"}},
		{name: "an unknown scale", data: `{"type":"riskchart:set","scale":"foo"}`, badName: "scale"},
		{name: "an unknown style", data: `{"type":"riskchart:set","style":"bars"}`, badName: "style"},
		{name: "studies, in canonical form", data: `{"type":"riskchart:set","indicators":"rsi,vol_ma:20,ma:7"}`, want: Set{Indicators: "rsi,vol_ma,ma:7"}},
		{name: "no studies", data: `{"type":"riskchart:set","indicators":""}`, want: Set{Indicators: IndicatorsNone}},
		{name: "a bad study", data: `{"type":"riskchart:set","indicators":"ma:0"}`, badName: "indicators"},
		{name: "a command with nothing to set", data: `{"type":"riskchart:set"}`, badName: "type"},
		{name: "a number where a string belongs", data: `{"type":"riskchart:set","period":5}`, ignored: true},
		{name: "another protocol's message", data: `{"type":"webpackOk"}`, ignored: true},
		{name: "a string", data: `"riskchart:set"`, ignored: true},
		{name: "undefined data", data: `<undefined>`, ignored: true},
		{name: "our own outgoing message", data: Encode(NewHeight(300)), ignored: true},
		{name: "a huge message", data: `{"type":"riskchart:set","theme":"dark","pad":"` + strings.Repeat("x", 5000) + `"}`, ignored: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSet(tt.data)
			switch {
			case tt.ignored:
				if !errors.Is(err, ErrNotACommand) {
					t.Fatalf("got %+v, %v; want ErrNotACommand", got, err)
				}
			case tt.badName != "":
				var pe *venueapi.ParamError
				if !errors.As(err, &pe) || pe.Param != tt.badName {
					t.Fatalf("got %+v, %v; want an error naming %s", got, err, tt.badName)
				}
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			case got != tt.want:
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A parent that sends a style or scale the chart cannot draw is told every
// one it can: each value the refusal names is one the chart takes, and each
// value the chart takes is named.
func TestARefusedStyleOrScaleNamesEveryValueTheChartTakes(t *testing.T) {
	tests := []struct {
		field string
		takes []string
		parse func(string) error
	}{
		{"style", []string{"candles", "hollow", "ohlc", "line", "area"}, func(v string) error { _, err := chartopt.ParseKind(v); return err }},
		{"scale", []string{"linear", "log", "percent"}, func(v string) error { _, err := chartopt.ParseScale(v); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			_, err := ParseSet(`{"type":"riskchart:set","` + tt.field + `":"bars"}`)
			var pe *venueapi.ParamError
			if !errors.As(err, &pe) || pe.Param != tt.field {
				t.Fatalf("got %v, want an error naming %s", err, tt.field)
			}
			for _, v := range tt.takes {
				if err := tt.parse(v); err != nil {
					t.Fatalf("the chart refuses %s=%s: %v", tt.field, v, err)
				}
				if !strings.Contains(pe.Rule, v) {
					t.Errorf("the refusal %q does not name %s, which the chart takes", pe.Rule, v)
				}
			}
			words := strings.FieldsFunc(strings.TrimPrefix(pe.Rule, "must be "), func(r rune) bool { return r == ',' || r == ' ' })
			for _, w := range words {
				if w != "or" && tt.parse(w) != nil {
					t.Errorf("the refusal %q names %s, which the chart does not take", pe.Rule, w)
				}
			}
		})
	}
}

func TestTheAllowListReadsOriginsAsTheContentSecurityPolicyDoes(t *testing.T) {
	a := NewAllowList("http://127.0.0.1:8080/", []string{"'self'", "https://customer.example", "http://127.0.0.1:9000/",
		"https://*.partner.example", "HTTPS://Upper.Example"})
	tests := []struct {
		origin string
		want   bool
	}{
		{"http://127.0.0.1:8080", true}, // the embed's own origin
		{"https://customer.example", true},
		{"https://customer.example:443", true}, // the default port is the same origin
		{"https://customer.example/some/page?x=1", true},
		{"http://customer.example", false}, // another scheme is another origin
		{"https://customer.example:8443", false},
		{"https://evil-customer.example", false},
		{"https://customer.example.evil", false},
		{"http://127.0.0.1:9000", true},
		{"http://127.0.0.1:9001", false},
		{"https://a.partner.example", true},
		{"https://a.b.partner.example", true},
		{"https://partner.example", false}, // the wildcard needs a subdomain
		{"https://.partner.example", false},
		{"https://a.partner.example:8443", false},
		{"https://xpartner.example", false},
		{"https://upper.example", true},
		{"null", false},
		{"", false},
		{"file:///home/me/page.html", false},
		{"javascript:alert(1)", false},
		{"https://user@customer.example", false},
	}
	for _, tt := range tests {
		if got := a.Allows(tt.origin); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.origin, got, tt.want)
		}
	}
}

// TestAWildcardWithItsDefaultPortIsTheWildcard: the server takes
// "https://*.partner.example:443" (docs/decisions.md#frame-ancestors), and
// the policy lets its subdomains frame the embeds; the allow-list must let
// them talk to them too, and no other port.
func TestAWildcardWithItsDefaultPortIsTheWildcard(t *testing.T) {
	a := NewAllowList("http://127.0.0.1:8080", []string{"https://*.partner.example:443", "http://*.local.example:80"})
	tests := []struct {
		origin string
		want   bool
	}{
		{"https://a.partner.example", true},
		{"https://a.partner.example:443", true},
		{"https://a.partner.example:8443", false},
		{"https://partner.example", false},
		{"http://b.local.example", true},
		{"http://b.local.example:8080", false},
		{"https://b.local.example", false},
	}
	for _, tt := range tests {
		if got := a.Allows(tt.origin); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.origin, got, tt.want)
		}
	}
}

func TestTheParentIsTheFirstAllowedCandidate(t *testing.T) {
	a := NewAllowList("http://127.0.0.1:8080", []string{"https://customer.example", "https://other.example"})
	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"the browser's record first", []string{"https://customer.example", "https://other.example"}, "https://customer.example"},
		{"a disallowed record is passed over", []string{"https://evil.example", "https://other.example/page"}, "https://other.example"},
		{"a referrer is cut to its origin", []string{"", "", "https://customer.example/a/b?c=d"}, "https://customer.example"},
		{"nobody allowed", []string{"https://evil.example", "null", ""}, ""},
		{"no candidates", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.Parent(tt.candidates...); got != tt.want {
				t.Fatalf("Parent(%q) = %q, want %q", tt.candidates, got, tt.want)
			}
		})
	}
}

func TestMessagesCarryExactDecimalsAndTheirType(t *testing.T) {
	d := decimal.RequireFromString
	c := venueapi.Candle{ID: 1700000040, Open: d("48725.60"), High: d("48800.1"), Low: d("48700"), Close: d("0.000000012345678901"),
		Vol: d("12"), Amount: d("0.012"), TradeTurnover: d("584.7072"), Count: d("3")}
	tests := []struct {
		name string
		msg  any
		want string
	}{
		{"a hovered candle", NewCandle(c, false), `{"type":"riskchart:candle","clicked":false,"candle":{"id":1700000040,` +
			`"open":"48725.6","high":"48800.1","low":"48700","close":"0.000000012345678901","vol":"12","amount":"0.012",` +
			`"trade_turnover":"584.7072","count":"3"}}`},
		{"a chart's ready", ChartReady("BTC-USDT", venueapi.Period15Min), `{"type":"riskchart:ready","route":"chart","contract_code":"BTC-USDT","period":"15min"}`},
		{"a panel without access", PanelReady(RouteLimits, "ETH-USDT", false), `{"type":"riskchart:ready","route":"limits","contract_code":"ETH-USDT","access":false}`},
		{"a panel with access", PanelReady(RouteTiers, "ETH-USDT", true), `{"type":"riskchart:ready","route":"tiers","contract_code":"ETH-USDT","access":true}`},
		{"a height", NewHeight(412), `{"type":"riskchart:height","height":412}`},
		{"an error with quotes", NewError(`invalid period: "2min"`), `{"type":"riskchart:error","message":"invalid period: \"2min\""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Encode(tt.msg); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzParseSet feeds the parser what any page could post: it must never
// panic, and whatever it accepts must be a valid command.
func FuzzParseSet(f *testing.F) {
	for _, s := range []string{`{"type":"riskchart:set","period":"5min"}`, `{"type":"riskchart:set","contract_code":"BTC-USDT-CW","theme":"dark"}`,
		`{"type":"riskchart:set","contract_code":"BTC-USDT-261225"}`, `{}`, `null`, `[]`, `{"type":"riskchart:set","theme":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		s, err := ParseSet(data)
		if err != nil {
			return
		}
		if s == (Set{}) {
			t.Fatalf("accepted %q as a command that sets nothing", data)
		}
		if s.ContractCode != "" {
			if _, err := venueapi.ParseContractCode(s.ContractCode); err != nil {
				t.Fatalf("accepted contract %q: %v", s.ContractCode, err)
			}
		}
		if s.Period != "" && !s.Period.Valid() {
			t.Fatalf("accepted period %q", s.Period)
		}
		if s.Theme != "" && s.Theme != ThemeAuto && s.Theme != ThemeLight && s.Theme != ThemeDark {
			t.Fatalf("accepted theme %q", s.Theme)
		}
		var round map[string]any
		if json.Unmarshal([]byte(data), &round) != nil {
			t.Fatalf("accepted %q, which is not a JSON object", data)
		}
	})
}

// FuzzAllows: an origin is allowed only if it is exactly one the list
// names (after normalising), or under its wildcard.
func FuzzAllows(f *testing.F) {
	for _, s := range []string{"https://customer.example", "https://a.partner.example", "http://127.0.0.1:8080", "null", "https://customer.example.evil"} {
		f.Add(s)
	}
	a := NewAllowList("http://127.0.0.1:8080", []string{"https://customer.example", "https://*.partner.example"})
	f.Fuzz(func(t *testing.T, origin string) {
		if !a.Allows(origin) {
			return
		}
		o := Origin(origin)
		if o != "http://127.0.0.1:8080" && o != "https://customer.example" && !strings.HasSuffix(o, ".partner.example") {
			t.Fatalf("allowed %q (origin %q)", origin, o)
		}
	})
}

func BenchmarkParseSet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSet(`{"type":"riskchart:set","contract_code":"ETH-USDT","period":"5min","theme":"dark"}`); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAnHTTPSourceAlsoAllowsItsHTTPSOrigin: the Content-Security-Policy lets
// an http source match the same host over https (CSP3, "scheme-part match":
// http also matches https), so a page of https://customer.example may frame
// the embeds when the list names http://customer.example. The allow-list is
// the same list read the same way (README, Embedding; docs/decisions.md#frame-ancestors):
// the embed must talk to the page the policy let frame it, and to no other.
func TestAnHTTPSourceAlsoAllowsItsHTTPSOrigin(t *testing.T) {
	a := NewAllowList("http://127.0.0.1:8080", []string{"http://customer.example", "http://*.partner.example", "http://localhost:3000"})
	tests := []struct {
		origin string
		want   bool
	}{
		{"http://customer.example", true},
		{"https://customer.example", true}, // the policy lets it frame the embed
		{"https://customer.example:8443", false},
		{"https://a.partner.example", true},
		{"https://partner.example", false},
		{"http://localhost:3000", true},
		{"https://localhost:3000", true},
		{"https://localhost:3001", false},
		{"https://localhost", false},
	}
	for _, tt := range tests {
		if got := a.Allows(tt.origin); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.origin, got, tt.want)
		}
	}
	// The reverse is no match: an https source never admits plain http.
	if b := NewAllowList("http://127.0.0.1:8080", []string{"https://customer.example"}); b.Allows("http://customer.example") {
		t.Errorf("an https source allows http://customer.example")
	}
}
