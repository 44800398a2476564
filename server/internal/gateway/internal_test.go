package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestTheClientLimiterRemembersABoundedNumberOfClients(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newIPLimiter(1, 2, func() time.Time { return now })
	l.max = 100
	for i := range 1000 {
		if v := l.allow(netip.AddrFrom4([4]byte{10, 0, byte(i / 256), byte(i % 256)})); !v.ok {
			t.Fatalf("a new client %d was refused", i)
		}
		if len(l.m) > l.max {
			t.Fatalf("%d clients remembered, bound %d", len(l.m), l.max)
		}
	}
	l.allow(netip.MustParseAddr("192.0.2.1"))
	l.allow(netip.MustParseAddr("192.0.2.1"))
	if v := l.allow(netip.MustParseAddr("192.0.2.1")); v.ok || v.reset != time.Second {
		t.Fatalf("past the burst: allowed %v, retry %s; want refused, retry in 1s", v.ok, v.reset)
	}
}

func TestTheCSPAllowsTheAppAndTheConfiguredFramers(t *testing.T) {
	for _, tc := range []struct {
		ancestors, scripts []string
		want, wantScripts  string
	}{
		{nil, nil, "frame-ancestors 'self'", "script-src 'self' 'wasm-unsafe-eval';"},
		{[]string{"https://a.example", "https://b.example"}, nil, "frame-ancestors 'self' https://a.example https://b.example", "script-src 'self' 'wasm-unsafe-eval';"},
		{nil, []string{"'sha256-AAAA'", "'sha256-BBBB'"}, "frame-ancestors 'self'", "script-src 'self' 'wasm-unsafe-eval' 'sha256-AAAA' 'sha256-BBBB';"},
	} {
		csp := contentSecurityPolicy(tc.ancestors, tc.scripts)
		if !strings.HasSuffix(csp, tc.want) || !strings.Contains(csp, tc.wantScripts) || strings.Contains(csp, "'unsafe-eval'") {
			t.Errorf("CSP %q, want it to end with %q and hold %q", csp, tc.want, tc.wantScripts)
		}
	}
}

func FuzzLimitParams(f *testing.F) {
	for _, seed := range []struct{ query, contentType, body string }{
		{"contract_code=BTC-USDT", "", ""},
		{"", "application/json", `{"contract_code":"BTC-USDT","business_type":"all"}`},
		{"", "application/x-www-form-urlencoded", "pair=BTC-USDT&contract_type=quarter"},
		{"pair=%zz", "application/json", `[1,2]`},
		{"", "application/json; charset=utf-8", `{"contract_code":null}`},
	} {
		f.Add(seed.query, seed.contentType, seed.body)
	}
	f.Fuzz(func(t *testing.T, query, contentType, body string) {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", contentType)
		v, err := limitParams(httptest.NewRecorder(), r)
		if err != nil {
			var pe *venueapi.ParamError
			if !errors.As(err, &pe) || !strings.Contains(pe.Rule, "must") {
				t.Fatalf("error %q is not a ParamError stating a rule", err)
			}
			return
		}
		if _, err := venueapi.ParseLimitQuery(v); err != nil && !bytes.Contains([]byte(err.Error()), []byte("must")) {
			t.Fatalf("error %q does not state a rule", err)
		}
	})
}

// TestAStreamRefusedBeforeItStartsSaysWhyWithItsStatus: a stream is
// answered with a status a browser's EventSource acts on, the KLine path's
// envelope in its body: 404 for a contract the venue does not list, 400 for
// a query refused by the gateway's checks or by the venue's own (1030), and
// 502 for the venue's other business errors.
func TestAStreamRefusedBeforeItStartsSaysWhyWithItsStatus(t *testing.T) {
	s := &server{now: time.Now, log: slog.New(slog.DiscardHandler)}
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   int
		inMsg  string
	}{
		{"a contract the venue does not list", &venue.NotFoundError{Code: venueapi.CodeNoSuchContract, Message: "unknown contract"}, 404, venueapi.CodeNoSuchContract, "BTC-USDT-991231"},
		{"a query the venue refuses", &venue.RejectedError{Code: venueapi.CodeInvalidInput, Message: "invalid period: not offered for this contract", HTTPStatus: 200}, 400, venueapi.CodeInvalidInput, "invalid period"},
		{"another business error of the venue", &venue.RejectedError{Code: 1051, Message: "system maintenance", HTTPStatus: 200}, 502, 1051, "maintenance"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.writeStreamError(rec, httptest.NewRequest("GET", venueapi.PathStreamKLine+"?contract_code=BTC-USDT-991231&period=1min", nil), askedCode("BTC-USDT-991231"), tt.err)
			var env struct {
				Status  string `json:"status"`
				ErrCode int    `json:"err_code"`
				ErrMsg  string `json:"err_msg"`
			}
			json.Unmarshal(rec.Body.Bytes(), &env)
			if rec.Code != tt.status || env.Status != "error" || env.ErrCode != tt.code || !strings.Contains(env.ErrMsg, tt.inMsg) {
				t.Errorf("HTTP %d %s, want %d with code %d saying %q", rec.Code, rec.Body, tt.status, tt.code, tt.inMsg)
			}
		})
	}
}
