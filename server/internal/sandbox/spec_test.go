package sandbox_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// One test per rule of docs/venue.md, over real HTTP; the name cites the
// section.

func TestSpec_Endpoints_TheThreePathsAndNothingElse(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", "/sapi/v1/market/history/kline?contract_code=BTC-USDT&period=1min", 200},
		{"GET", "/sapi/v1/position/risk/limit_tier", 200}, // an error body: unsigned
		{"POST", "/sapi/v1/position/position_limit", 200},
		{"GET", "/sapi/v1/position/position_limit", 200},
		{"GET", "/sapi/v2/market/history/kline", http.StatusNotFound},
		{"GET", "/", http.StatusNotFound},
		{"POST", "/sapi/v1/market/history/kline", http.StatusMethodNotAllowed},
		{"DELETE", "/sapi/v1/position/risk/limit_tier", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		if a := v.do(t, mustRequest(t, tt.method, v.url+tt.path)); a.status != tt.status {
			t.Errorf("%s %s: HTTP %d, want %d", tt.method, tt.path, a.status, tt.status)
		}
	}
	if n := v.sb.Received(venueapi.PathKLine); n != 2 {
		t.Errorf("Received counts %d KLine requests, want 2 (a refused method counts too)", n)
	}
}

func TestSpec_Authentication_PrivateEndpointsRefuseUnsignedRequests(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, path := range []string{venueapi.PathTiers, venueapi.PathPositionLimit} {
		a := v.do(t, mustRequest(t, "GET", v.url+path+"?contract_code=BTC-USDT"))
		if code, msg := a.errCode(t); code != 1253 || !strings.Contains(msg, "missing parameter AccessKeyId") {
			t.Errorf("%s unsigned: code %d %q", path, code, msg)
		}
	}
}

// --- Endpoint 1: risk-limit tiers ---

func TestSpec_Tiers_Parameters(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		name   string
		params url.Values
		code   int
		names  string // what the error message names
	}{
		{"contract_code alone", url.Values{"contract_code": {"BTC-USDT"}}, 200, ""},
		{"margin_mode cross", url.Values{"contract_code": {"ETH-USDT"}, "margin_mode": {"cross"}}, 200, ""},
		{"no contract_code", url.Values{}, 1030, "contract_code"},
		{"a future", url.Values{"contract_code": {"BTC-USDT-CQ"}}, 1030, "swap"},
		{"isolated margin", url.Values{"contract_code": {"BTC-USDT"}, "margin_mode": {"isolated"}}, 1030, "margin_mode"},
		{"contract_code twice", url.Values{"contract_code": {"BTC-USDT", "ETH-USDT"}}, 1030, "at most once"},
		{"an unlisted swap", url.Values{"contract_code": {"ABC-USDT"}}, 1013, "ABC-USDT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signed(t, "GET", venueapi.PathTiers, tt.params, "", nil)
			if code, msg := a.errCode(t); code != tt.code || !strings.Contains(msg, tt.names) || a.status != 200 {
				t.Fatalf("HTTP %d code %d %q, want code %d naming %q", a.status, code, msg, tt.code, tt.names)
			}
		})
	}
}

func TestSpec_Tiers_ARealisticLadderPerContract(t *testing.T) {
	v := start(t, sandbox.Config{})
	units := map[string]bool{}
	for _, code := range []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT", "SHIB-USDT"} {
		ladder := v.tiersOf(t, code)
		if len(ladder) < 5 || !ladder[0].MinVolume.IsZero() {
			t.Fatalf("%s: %d tiers, the first from %s", code, len(ladder), ladder[0].MinVolume)
		}
		for i, tr := range ladder {
			units[tr.VolumeUnit] = true
			im := decimal.NewFromInt(1).Div(tr.MaxLever)
			if int(tr.Tier) != i+1 || tr.ContractCode != code || tr.MarginMode != "cross" || (tr.VolumeUnit != "contract" && tr.VolumeUnit != "usdt") ||
				!tr.MaxVolume.GreaterThan(tr.MinVolume) || !tr.MaintenanceMarginRate.IsPositive() || !tr.MaintenanceMarginRate.LessThan(im) {
				t.Errorf("%s tier %d: %+v", code, i+1, tr)
			}
			if i == 0 {
				continue
			}
			prev := ladder[i-1]
			if !tr.MinVolume.Equal(prev.MaxVolume) || tr.VolumeUnit != prev.VolumeUnit {
				t.Errorf("%s tier %d band %s..%s %s does not follow %s %s", code, i+1, tr.MinVolume, tr.MaxVolume, tr.VolumeUnit, prev.MaxVolume, prev.VolumeUnit)
			}
			if !tr.MaxLever.LessThan(prev.MaxLever) || !tr.MaintenanceMarginRate.GreaterThan(prev.MaintenanceMarginRate) {
				t.Errorf("%s tier %d: leverage %s and rate %s after %s and %s", code, i+1, tr.MaxLever, tr.MaintenanceMarginRate, prev.MaxLever, prev.MaintenanceMarginRate)
			}
		}
	}
	if !units["contract"] || !units["usdt"] {
		t.Errorf("ladders use units %v, want both contract and usdt", units)
	}
}

// --- Endpoint 2: position limits ---

func TestSpec_PositionLimits_Rules(t *testing.T) {
	v := start(t, sandbox.Config{})
	quarter := v.marketOf(t, "BTC-USDT", venueapi.TypeQuarter).Code
	var btcFutures, allQuarters []string
	for _, m := range v.sb.Markets() {
		if m.Base == "BTC" && m.Kind == venueapi.KindFuture {
			btcFutures = append(btcFutures, m.Code)
		}
		if m.Type == venueapi.TypeQuarter {
			allQuarters = append(allQuarters, m.Code)
		}
	}
	tests := []struct {
		name  string
		body  string
		code  int
		names string   // what the error message names
		want  []string // the contract codes answered, in order
	}{
		{"no parameters list the seven swaps (business type swap by default)", `{}`, 200, "",
			[]string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT", "SHIB-USDT"}},
		{"rule 2: contract_code wins over pair and contract_type", `{"contract_code":"ETH-USDT","pair":"BTC-USDT","contract_type":"quarter","business_type":"all"}`, 200, "", []string{"ETH-USDT"}},
		{"rule 3: a future without business_type is refused", `{"contract_code":"` + quarter + `"}`, 1030, "business_type", nil},
		{"rule 3: a future with business_type swap is refused", `{"contract_code":"` + quarter + `","business_type":"swap"}`, 1030, "business_type", nil},
		{"rule 3: a future with business_type futures", `{"contract_code":"` + quarter + `","business_type":"futures"}`, 200, "", []string{quarter}},
		{"rule 3: a future with business_type all", `{"contract_code":"` + quarter + `","business_type":"all"}`, 200, "", []string{quarter}},
		{"rule 3: a futures contract_type needs futures or all", `{"contract_type":"quarter"}`, 1030, "business_type", nil},
		{"pair and contract_type select one future", `{"pair":"BTC-USDT","contract_type":"quarter","business_type":"futures"}`, 200, "", []string{quarter}},
		{"contract_type alone selects that type of every pair", `{"contract_type":"quarter","business_type":"futures"}`, 200, "", allQuarters},
		{"pair with business type futures lists its futures", `{"pair":"BTC-USDT","business_type":"futures"}`, 200, "", btcFutures},
		{"pair with business type all lists its swap and futures", `{"pair":"BTC-USDT","business_type":"all"}`, 200, "", append([]string{"BTC-USDT"}, btcFutures...)},
		{"a pair without futures lists none of them", `{"pair":"SOL-USDT","business_type":"futures"}`, 200, "", []string{}},
		{"a contract-type code is not a contract_code here", `{"contract_code":"BTC-USDT-CQ","business_type":"futures"}`, 1030, "contract_code", nil},
		{"an unlisted contract is 1013", `{"contract_code":"ABC-USDT"}`, 1013, "ABC-USDT", nil},
		{"a malformed pair", `{"pair":"BTCUSDT"}`, 1030, "pair", nil},
		{"an unknown contract_type", `{"contract_type":"monthly","business_type":"futures"}`, 1030, "contract_type", nil},
		{"an unknown business_type", `{"business_type":"spot"}`, 1030, "business_type", nil},
		{"a parameter that is not a string", `{"contract_code":5}`, 1030, "contract_code", nil},
		{"a body that is not a JSON object", `{"contract_code":`, 1030, "body", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signed(t, "POST", venueapi.PathPositionLimit, nil, tt.body, nil)
			code, msg := a.errCode(t)
			if code != tt.code || !strings.Contains(msg, tt.names) || a.status != 200 {
				t.Fatalf("HTTP %d code %d %q, want code %d naming %q", a.status, code, msg, tt.code, tt.names)
			}
			if tt.want == nil {
				return
			}
			var env venueapi.LimitEnvelope
			a.json(t, &env)
			got := []string{}
			for _, p := range env.Data {
				got = append(got, p.ContractCode)
				if p.MarginMode != "cross" || p.TradePartition == "" || p.Symbol+"-USDT" != p.Pair {
					t.Errorf("rule 1 and the record: %+v", p)
				}
				if wantBusiness := map[bool]string{true: "swap", false: "futures"}[p.ContractType == venueapi.TypeSwap]; p.BusinessType != wantBusiness {
					t.Errorf("%s: business_type %s", p.ContractCode, p.BusinessType)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSpec_PositionLimits_PayloadEdges(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		query       url.Values
		code        int
		names       string
	}{
		{"a parameter in the query and the body is given twice", "application/json", `{"contract_code":"BTC-USDT"}`, url.Values{"contract_code": {"BTC-USDT"}}, 1030, "at most once"},
		{"a member named twice is given twice", "application/json", `{"pair":"BTC-USDT","pair":"ETH-USDT"}`, nil, 1030, "pair"},
		{"a body of another type", "text/plain", `contract_code=BTC-USDT`, nil, 1030, "Content-Type"},
		{"a JSON body with a charset", "application/json; charset=utf-8", `{"contract_code":"BTC-USDT"}`, nil, 200, ""},
		{"a null parameter is no parameter", "application/json", `{"contract_code":null,"pair":"LTC-USDT"}`, nil, 200, ""},
		{"an empty body", "application/json", ` `, url.Values{"pair": {"LTC-USDT"}}, 200, ""},
		{"a body over 16 KiB", "application/json", `{"pair":"` + strings.Repeat("A", 17<<10) + `"}`, nil, 1030, "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := start(t, sandbox.Config{})
				req := v.signedRequest(t, "POST", venueapi.PathPositionLimit, tt.query, testAccess, testSecret, v.clock.Now(), nil)
				req.Body = http.NoBody
				if tt.body != "" {
					req.Body, req.ContentLength = readCloser(tt.body), int64(len(tt.body))
				}
				req.Header.Set("Content-Type", tt.contentType)
				a := v.do(t, req)
				if code, msg := a.errCode(t); code != tt.code || !strings.Contains(msg, tt.names) {
					t.Fatalf("HTTP %d code %d %q, want code %d naming %q", a.status, code, msg, tt.code, tt.names)
				}
			})
		})
	}
}

// --- Endpoint 3: KLine ---

func TestSpec_KLine_Parameters(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		query string
		code  int
		names string
	}{
		{"period=1min", 1030, "contract_code"},
		{"contract_code=BTC-USDT", 1030, "period"},
		{"contract_code=BTC-USDT&period=2min", 1030, "period"},
		{"contract_code=BTC-USDT&period=1min&size=0", 1030, "size"},
		{"contract_code=BTC-USDT&period=1min&size=2001", 1030, "size"},
		{"contract_code=BTC-USDT&period=1min&size=ten", 1030, "size"},
		{"contract_code=BTC-USDT&period=1min&from=yesterday&to=1795000000", 1030, "from"},
		{"contract_code=BTC-USDT&period=1min&period=5min", 1030, "period"},
		{"contract_code=BTC-USDT&period=1min&size=1", 200, ""},
		{"contract_code=BTC-USDT&period=1min&size=2000", 200, ""},
		{"contract_code=BTC-USDT-CW&period=1mon&size=3", 200, ""},
	}
	for _, tt := range tests {
		a := v.kline(t, tt.query)
		if code, msg := a.errCode(t); code != tt.code || !strings.Contains(msg, tt.names) {
			t.Errorf("%s: code %d %q, want %d naming %q", tt.query, code, msg, tt.code, tt.names)
		}
	}
}

func TestSpec_KLine_Envelope_ChStatusTsData(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.kline(t, "contract_code=DOGE-USDT&period=4hour&size=5")
	var env venueapi.KLineEnvelope
	a.json(t, &env)
	if env.Ch != "market.DOGE-USDT.kline.4hour" || env.Status != "ok" || env.Ts != testNow.UnixMilli() || len(env.Data) != 5 {
		t.Fatalf("envelope %s", a.body)
	}
	if a.header.Get("Content-Type") != "application/json" || a.header.Get("ratelimit-limit") != "" {
		t.Fatalf("headers %v: JSON, and no private rate-limit headers on the public endpoint", a.header)
	}
}

// A body that breaks off is refused as one that broke off, not as one too
// large: the message says what is wrong with it.
func TestSpec_PositionLimits_ABodyCutShortIsNotCalledTooLarge(t *testing.T) {
	sb := unlimited(t)
	q := sign.SignedQuery("POST", "venue.test", venueapi.PathPositionLimit, testAccess, []byte(testSecret), nil, testNow)
	body := io.MultiReader(strings.NewReader(`{"pair":"BTC`), iotest.ErrReader(io.ErrUnexpectedEOF))
	req := httptest.NewRequest("POST", "http://venue.test"+venueapi.PathPositionLimit+"?"+q, body)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	sb.ServeHTTP(w, req)
	code, msg := sandboxtest.ErrCode(t, w.Body.Bytes())
	if code != 1030 || !strings.Contains(msg, "body") || strings.Contains(msg, "at most") {
		t.Fatalf("code %d %q, want 1030 naming the body as cut short, not as too large", code, msg)
	}
}
