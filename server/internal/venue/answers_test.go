package venue_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestTiersDecodeExactlyWhateverTheVenueWritesNumbersAs(t *testing.T) {
	srv := canned(t, 200, nil, `{"code":200,"message":"success","ts":1763805600000,"extra":{"ignored":[1,2]},"data":[
		{"contract_code":"BTC-USDT","margin_mode":"cross","tier":1,"max_lever":"125","maintenance_margin_rate":"0.004","max_volume":"50000","min_volume":"0","volume_unit":"contract"},
		{"contract_code":"BTC-USDT","margin_mode":"cross","tier":"2","max_lever":100,"maintenance_margin_rate":0.0050000000000000001,"max_volume":"250000","min_volume":50000,"volume_unit":"contract","new":true}]}`)
	env, err := srv.client(t, nil).Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"})
	if err != nil {
		t.Fatal(err)
	}
	if env.Code != 200 || env.Ts != 1763805600000 || len(env.Data) != 2 {
		t.Fatalf("envelope %+v", env)
	}
	second := env.Data[1]
	if second.Tier != 2 || second.MaxLever.String() != "100" || second.MaintenanceMarginRate.String() != "0.0050000000000000001" || !second.MinVolume.Equal(env.Data[0].MaxVolume) {
		t.Fatalf("second tier %+v: numbers not exact", second)
	}
}

func TestPositionLimitsDecodeExactly(t *testing.T) {
	srv := canned(t, 200, nil, `{"status":"ok","ts":1,"data":[{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":12,"sell_limit":"12",
		"contract_type":"swap","pair":"BTC-USDT","business_type":"swap","lever_rate":"20","buy_limit_value":1000000.1,"sell_limit_value":"1000000.10","mark_price":81234.56789,"trade_partition":"USDT"}]}`)
	env, err := srv.client(t, nil).PositionLimits(context.Background(), venueapi.LimitQuery{})
	if err != nil {
		t.Fatal(err)
	}
	p := env.Data[0]
	if env.Status != "ok" || p.LeverRate != 20 || !p.BuyLimit.Equal(p.SellLimit) || p.SellLimitValue.String() != "1000000.1" ||
		!p.MarkPrice.Equal(decimal.RequireFromString("81234.56789")) || p.ContractType != venueapi.TypeSwap {
		t.Fatalf("decoded %+v", p)
	}
}

func TestKLineDecodesEveryShapeOfNumber(t *testing.T) {
	tests := []struct {
		name, body string
		want       []venueapi.Candle // compared by id, open and trade_turnover
	}{
		{"numbers", `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[{"id":60,"vol":1,"count":1,"open":98803.8,"close":1,"low":1,"high":1,"amount":0.001,"trade_turnover":98.8038}]}`,
			[]venueapi.Candle{{ID: 60, Open: dec("98803.8"), TradeTurnover: dec("98.8038")}}},
		{"strings, ids too, and white space", "{ \"status\" : \"ok\" ,\n\"data\" : [ { \"id\" : \"60\", \"vol\":\"1\",\"count\":\"1\",\"open\":\"-0.5\",\"close\":\"1\",\"low\":\"1\",\"high\":\"1\",\"amount\":\"1\",\"trade_turnover\":\"12345678901234567890.123\" } ] }\n",
			[]venueapi.Candle{{ID: 60, Open: dec("-0.5"), TradeTurnover: dec("12345678901234567890.123")}}},
		{"exponents and unknown fields", `{"status":"ok","data":[{"id":0,"vol":1e2,"count":1,"open":2.5E-3,"close":1,"low":1,"high":1,"amount":1,"trade_turnover":1,"mrid":[{"a":null}]}],"extra":"x"}`,
			[]venueapi.Candle{{ID: 0, Open: dec("0.0025"), TradeTurnover: dec("1")}}},
		{"data left out: it is optional", `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1}`, []venueapi.Candle{}},
		{"data null", `{"status":"ok","data":null}`, []venueapi.Candle{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := canned(t, 200, nil, tt.body)
			env, err := srv.client(t, nil).KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 1})
			if err != nil {
				t.Fatal(err)
			}
			if env.Data == nil || len(env.Data) != len(tt.want) {
				t.Fatalf("data %v, want %d candles", env.Data, len(tt.want))
			}
			for i, w := range tt.want {
				g := env.Data[i]
				if g.ID != w.ID || g.Open.String() != w.Open.String() || g.TradeTurnover.String() != w.TradeTurnover.String() {
					t.Fatalf("candle %d is %+v, want id %d open %s turnover %s", i, g, w.ID, w.Open, w.TradeTurnover)
				}
			}
		})
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestEachAnswerIsClassifiedAsErrorsOfTheirOwnType(t *testing.T) {
	tests := []struct {
		name   string
		call   string // an endpoint's name
		status int
		header map[string]string
		body   string
		want   error // its type and the fields that must match
	}{
		{"the tier envelope's 1030 is a rejection", "tiers", 200, nil, `{"code":1030,"message":"invalid contract_code","data":null,"ts":1}`,
			&venue.RejectedError{Code: 1030, Message: "invalid contract_code", HTTPStatus: 200}},
		{"the status envelope's 1030 is a rejection", "kline", 200, nil, `{"status":"error","err_code":1030,"err_msg":"invalid size","ts":1}`,
			&venue.RejectedError{Code: 1030, Message: "invalid size", HTTPStatus: 200}},
		{"a busy venue is a rejection with 1004", "limits", 200, nil, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`,
			&venue.RejectedError{Code: 1004, Message: "busy", HTTPStatus: 200}},
		{"1013 is not found", "kline", 200, nil, `{"status":"error","err_code":1013,"err_msg":"no such contract","ts":1}`,
			&venue.NotFoundError{Code: 1013, Message: "no such contract"}},
		{"1013 in the tier envelope is not found", "tiers", 200, nil, `{"code":1013,"message":"no such contract","data":null,"ts":1}`,
			&venue.NotFoundError{Code: 1013, Message: "no such contract"}},
		{"403 is an authentication error", "tiers", 200, nil, `{"code":403,"message":"unknown key","data":null,"ts":1}`,
			&venue.AuthError{Code: 403, Message: "unknown key"}},
		{"1253 is an authentication error", "limits", 200, nil, `{"status":"error","err_code":1253,"err_msg":"timestamp out of window","ts":1}`,
			&venue.AuthError{Code: 1253, Message: "timestamp out of window"}},
		{"a 429 says when to retry by ratelimit-reset", "tiers", 429, map[string]string{"ratelimit-reset": "1500", "Retry-After": "2"}, `{"code":1032,"message":"too many","data":null,"ts":1}`,
			&venue.RateLimitedError{RetryAfter: 1500 * time.Millisecond, Venue: true}},
		{"a 429 says when to retry by Retry-After, even without an envelope", "kline", 429, map[string]string{"Retry-After": "2"}, `Too Many Requests`,
			&venue.RateLimitedError{RetryAfter: 2 * time.Second, Venue: true}},
		{"a 429 without a header means a second", "kline", 429, nil, `{"status":"error","err_code":1032,"err_msg":"too many","ts":1}`,
			&venue.RateLimitedError{RetryAfter: time.Second, Venue: true}},
		{"1032 with HTTP 200 is the venue's rate limit", "limits", 200, nil, `{"status":"error","err_code":1032,"err_msg":"too many","ts":1}`,
			&venue.RateLimitedError{RetryAfter: time.Second, Venue: true}},
		{"a 5xx with an envelope is unavailable", "kline", 503, nil, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 503}},
		{"a 502 from a proxy is unavailable", "tiers", 502, nil, `<html>bad gateway</html>`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathTiers, HTTPStatus: 502}},
		{"a 200 that is not JSON is unavailable", "tiers", 200, nil, `<html>maintenance</html>`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathTiers, HTTPStatus: 200}},
		{"JSON without code or status is unavailable", "kline", 200, nil, `{"data":[]}`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 200}},
		{"a success envelope with HTTP 404 is unavailable", "limits", 404, nil, limitsOK,
			&venue.UnavailableError{Op: "POST " + venueapi.PathPositionLimit, HTTPStatus: 404}},
		{"tiers without data are unavailable", "tiers", 200, nil, `{"code":200,"message":"ok","ts":1}`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathTiers, HTTPStatus: 200}},
		{"position limits with null data are unavailable", "limits", 200, nil, `{"status":"ok","data":null,"ts":1}`,
			&venue.UnavailableError{Op: "POST " + venueapi.PathPositionLimit, HTTPStatus: 200}},
		{"a candle without its turnover is unavailable", "kline", 200, nil, `{"status":"ok","data":[{"id":1,"vol":1,"count":1,"open":1,"close":1,"low":1,"high":1,"amount":1}]}`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 200}},
		{"a price that is not a number is unavailable", "kline", 200, nil, `{"status":"ok","data":[{"id":1,"vol":1,"count":1,"open":"n/a","close":1,"low":1,"high":1,"amount":1,"trade_turnover":1}]}`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathKLine, HTTPStatus: 200}},
		{"a tier without its maximum leverage is unavailable", "tiers", 200, nil, `{"code":200,"data":[{"contract_code":"BTC-USDT","margin_mode":"cross","tier":1,"maintenance_margin_rate":"0.004","max_volume":"1","min_volume":"0","volume_unit":"contract"}]}`,
			&venue.UnavailableError{Op: "GET " + venueapi.PathTiers, HTTPStatus: 200}},
		{"an error envelope with broken data is still the venue's error", "tiers", 200, nil, `{"code":1030,"message":"bad","data":{"x":1}}`,
			&venue.RejectedError{Code: 1030, Message: "bad", HTTPStatus: 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := canned(t, tt.status, tt.header, tt.body)
			err := callNamed(t, tt.call)(context.Background(), srv.client(t, nil))
			assertErrorLike(t, err, tt.want)
		})
	}
}

func callNamed(t *testing.T, name string) func(context.Context, *venue.Client) error {
	t.Helper()
	for _, e := range endpoints {
		if e.name == name {
			return e.call
		}
	}
	t.Fatalf("no endpoint %q", name)
	return nil
}

// assertErrorLike checks that err holds an error of want's type whose fields
// equal want's (UnavailableError: Op and HTTPStatus; its cause is free).
func assertErrorLike(t *testing.T, err, want error) {
	t.Helper()
	ok := false
	switch w := want.(type) {
	case *venue.RejectedError:
		var e *venue.RejectedError
		ok = errors.As(err, &e) && *e == *w
	case *venue.NotFoundError:
		var e *venue.NotFoundError
		ok = errors.As(err, &e) && *e == *w
	case *venue.AuthError:
		var e *venue.AuthError
		ok = errors.As(err, &e) && *e == *w
	case *venue.RateLimitedError:
		var e *venue.RateLimitedError
		ok = errors.As(err, &e) && *e == *w
	case *venue.UnavailableError:
		var e *venue.UnavailableError
		ok = errors.As(err, &e) && e.Op == w.Op && e.HTTPStatus == w.HTTPStatus && e.Err != nil
	default:
		t.Fatalf("no check for %T", want)
	}
	if !ok {
		t.Fatalf("error %#v (%v), want one like %#v", err, err, want)
	}
}

func TestSignedCallsWithoutAKeyFailWithoutARequest(t *testing.T) {
	srv := canned(t, 200, nil, tiersOK)
	c := srv.client(t, func(c *venue.Config) { c.AccessKey, c.SecretKey = "", "" })
	if c.HasKey() {
		t.Fatal("a client without a key says it has one")
	}
	for _, e := range endpoints[1:] {
		t.Run(e.name, func(t *testing.T) {
			var au *venue.AuthError
			if err := e.call(context.Background(), c); !errors.As(err, &au) {
				t.Fatalf("error %v, want an AuthError", err)
			}
		})
	}
	if n := srv.n.Load(); n != 0 {
		t.Fatalf("%d requests sent without a key", n)
	}
}

func TestAVenueThatCannotBeReachedIsUnavailable(t *testing.T) {
	srv := canned(t, 200, nil, klineOK)
	base := srv.URL
	srv.Close() // nothing listens there any more
	err := endpoints[0].call(context.Background(), newClient(t, base, srv.net, nil))
	assertErrorLike(t, err, &venue.UnavailableError{Op: "GET " + venueapi.PathKLine})
}

func TestAnAttemptThatOutlastsItsTimeoutIsUnavailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		srv := serve(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
		t.Cleanup(func() { close(release) })
		c := srv.client(t, func(c *venue.Config) { c.Timeout = 50 * time.Millisecond })
		err := endpoints[0].call(context.Background(), c)
		var un *venue.UnavailableError
		if !errors.As(err, &un) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want Unavailable wrapping the deadline", err)
		}
	})
}

// TestARateLimitSaysWhoseAndWhenInWholeMilliseconds: the retry time is
// rounded to the millisecond, and a wait under one never reads "0s", which
// would tell a caller to retry at once.
func TestARateLimitSaysWhoseAndWhenInWholeMilliseconds(t *testing.T) {
	for _, tt := range []struct {
		err  venue.RateLimitedError
		want string
	}{
		{venue.RateLimitedError{RetryAfter: 300 * time.Microsecond}, "over the client's quota: retry in 1ms"},
		{venue.RateLimitedError{RetryAfter: 1499 * time.Microsecond}, "over the client's quota: retry in 1ms"},
		{venue.RateLimitedError{RetryAfter: 1500 * time.Millisecond, Venue: true}, "over the venue's rate limit: retry in 1.5s"},
		{venue.RateLimitedError{Venue: true}, "over the venue's rate limit: retry in 0s"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.err, got, tt.want)
		}
	}
}
