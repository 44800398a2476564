package venue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/server/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// canned serves one answer (status, headers, body) to every request and
// counts them.
func canned(t *testing.T, status int, header map[string]string, body string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func newClient(t *testing.T, base string, mutate func(*venue.Config)) *venue.Client {
	t.Helper()
	cfg := venue.Config{BaseURL: base, AccessKey: "ak", SecretKey: "sk", Retries: -1, Timeout: 2 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := venue.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInvalidRequestsAreRefusedBeforeAnythingIsSent(t *testing.T) {
	srv, n := canned(t, 200, nil, `{}`)
	c := newClient(t, srv.URL, nil)
	ctx := context.Background()
	calls := map[string]func() error{
		"kline without a period": func() error {
			_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT"})
			return err
		},
		"kline size 2001": func() error {
			_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 2001})
			return err
		},
		"tiers of a future": func() error {
			_, err := c.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT-261225"})
			return err
		},
		"tiers in isolated margin": func() error {
			_, err := c.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT", MarginMode: "isolated"})
			return err
		},
		"limits of a future without business type": func() error {
			_, err := c.PositionLimits(ctx, venueapi.LimitQuery{ContractCode: "BTC-USDT-261225"})
			return err
		},
		"a range with from after to": func() error {
			_, err := c.KLineRange(ctx, "BTC-USDT", venueapi.Period1Min, 120, 60)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			var inv *venue.InvalidRequestError
			var pe *venueapi.ParamError
			if !errors.As(err, &inv) || !errors.As(err, &pe) {
				t.Fatalf("error %v, want an InvalidRequestError wrapping a ParamError", err)
			}
		})
	}
	if n.Load() != 0 {
		t.Fatalf("%d requests reached the venue", n.Load())
	}
}

func TestEachAnswerIsClassified(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		call   string // "kline", "tiers" or "limits"
		check  func(t *testing.T, err error)
	}{
		{"tier error envelope 1030 is a rejection", 200, nil, `{"code":1030,"message":"invalid contract_code","data":null,"ts":1}`, "tiers", func(t *testing.T, err error) {
			var e *venue.RejectedError
			if !errors.As(err, &e) || e.Code != 1030 || e.Message != "invalid contract_code" {
				t.Fatalf("%v", err)
			}
		}},
		{"status error envelope 1030 is a rejection", 200, nil, `{"status":"error","err_code":1030,"err_msg":"invalid size","ts":1}`, "kline", func(t *testing.T, err error) {
			var e *venue.RejectedError
			if !errors.As(err, &e) || e.Code != 1030 {
				t.Fatalf("%v", err)
			}
		}},
		{"1013 is not found", 200, nil, `{"status":"error","err_code":1013,"err_msg":"no such contract","ts":1}`, "kline", func(t *testing.T, err error) {
			var e *venue.NotFoundError
			if !errors.As(err, &e) {
				t.Fatalf("%v", err)
			}
		}},
		{"403 is an authentication error", 200, nil, `{"code":403,"message":"unknown key","data":null,"ts":1}`, "tiers", func(t *testing.T, err error) {
			var e *venue.AuthError
			if !errors.As(err, &e) || e.Code != 403 {
				t.Fatalf("%v", err)
			}
		}},
		{"1253 is an authentication error", 200, nil, `{"status":"error","err_code":1253,"err_msg":"bad signature","ts":1}`, "limits", func(t *testing.T, err error) {
			var e *venue.AuthError
			if !errors.As(err, &e) || e.Code != 1253 {
				t.Fatalf("%v", err)
			}
		}},
		{"429 with ratelimit-reset says when to retry", 429, map[string]string{"ratelimit-reset": "1500"}, `{"code":1032,"message":"too many","data":null,"ts":1}`, "tiers", func(t *testing.T, err error) {
			var e *venue.RateLimitedError
			if !errors.As(err, &e) || !e.Venue || e.RetryAfter != 1500*time.Millisecond {
				t.Fatalf("%v", err)
			}
		}},
		{"429 with Retry-After", 429, map[string]string{"Retry-After": "2"}, `not json`, "kline", func(t *testing.T, err error) {
			var e *venue.RateLimitedError
			if !errors.As(err, &e) || e.RetryAfter != 2*time.Second {
				t.Fatalf("%v", err)
			}
		}},
		{"5xx is unavailable", 503, nil, `{"status":"error","err_code":1004,"err_msg":"busy","ts":1}`, "kline", func(t *testing.T, err error) {
			var e *venue.UnavailableError
			if !errors.As(err, &e) || e.HTTPStatus != 503 {
				t.Fatalf("%v", err)
			}
		}},
		{"a body that is not the envelope is unavailable", 200, nil, `<html>maintenance</html>`, "tiers", func(t *testing.T, err error) {
			var e *venue.UnavailableError
			if !errors.As(err, &e) {
				t.Fatalf("%v", err)
			}
		}},
		{"a success without data is unavailable", 200, nil, `{"code":200,"message":"ok","ts":1}`, "tiers", func(t *testing.T, err error) {
			var e *venue.UnavailableError
			if !errors.As(err, &e) {
				t.Fatalf("%v", err)
			}
		}},
		{"a record missing a field is an error", 200, nil, `{"status":"ok","ch":"x","ts":1,"data":[{"id":1,"open":1}]}`, "kline", func(t *testing.T, err error) {
			var mf *venueapi.MissingFieldError
			if !errors.As(err, &mf) {
				t.Fatalf("%v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := canned(t, tt.status, tt.header, tt.body)
			c := newClient(t, srv.URL, nil)
			var err error
			switch tt.call {
			case "kline":
				_, err = c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 5})
			case "tiers":
				_, err = c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"})
			case "limits":
				_, err = c.PositionLimits(context.Background(), venueapi.LimitQuery{ContractCode: "BTC-USDT"})
			}
			tt.check(t, err)
		})
	}
}

func TestRetriesOnlyWhatIsSafeAndStopsAtTheDeadline(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.WriteHeader(502)
			return
		}
		w.Write([]byte(`{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[]}`))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, func(c *venue.Config) { c.Retries = 2 })
	if _, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 5}); err != nil || n.Load() != 3 {
		t.Fatalf("err %v after %d attempts, want success on the third", err, n.Load())
	}
	rej, rejN := canned(t, 200, nil, `{"status":"error","err_code":1030,"err_msg":"invalid","ts":1}`)
	c = newClient(t, rej.URL, func(c *venue.Config) { c.Retries = 5 })
	c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 5})
	if rejN.Load() != 1 {
		t.Fatalf("a rejection was retried: %d attempts", rejN.Load())
	}
	down, downN := canned(t, 503, nil, ``)
	c = newClient(t, down.URL, func(c *venue.Config) { c.Retries = 50 })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 5})
	var un *venue.UnavailableError
	if !errors.As(err, &un) || time.Since(began) > 2*time.Second || downN.Load() >= 50 {
		t.Fatalf("err %v after %s and %d attempts: retries must stop at the deadline", err, time.Since(began), downN.Load())
	}
}

func TestATimeoutIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, func(c *venue.Config) { c.Timeout = 100 * time.Millisecond })
	_, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 5})
	var un *venue.UnavailableError
	if !errors.As(err, &un) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want Unavailable wrapping the deadline", err)
	}
}

func TestTheQuotaFailsFastWhenTheDeadlineCannotWait(t *testing.T) {
	srv, n := canned(t, 200, nil, `{"ch":"x","status":"ok","ts":1,"data":[]}`)
	c := newClient(t, srv.URL, func(c *venue.Config) { c.PublicQuota = venue.Quota{Requests: 2, Per: 10 * time.Second} })
	q := venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: "1min", Size: 1}
	for i := 0; i < 2; i++ {
		if _, err := c.KLine(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := c.KLine(ctx, q)
	var rl *venue.RateLimitedError
	if !errors.As(err, &rl) || rl.Venue || rl.RetryAfter < time.Second {
		t.Fatalf("error %v, want our quota's RateLimitedError with a retry time", err)
	}
	if time.Since(began) > 100*time.Millisecond || n.Load() != 2 {
		t.Fatalf("waited %s, sent %d: the third call must fail at once without a request", time.Since(began), n.Load())
	}
	private, public := c.QuotaStatus()
	if private.Requests != 72 || public.Requests != 2 || public.Available > 0.5 {
		t.Fatalf("quota status %+v %+v", private, public)
	}
}

func TestSignedCallsAgainstTheSandbox(t *testing.T) {
	base, sb := sandboxtest.Start(t, sandbox.Config{Keys: []sandbox.Key{{Access: "ak", Secret: "sk", Read: true}}})
	c := newClient(t, base, nil)
	ctx := context.Background()
	tiers, err := c.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT"})
	if err != nil || len(tiers.Data) == 0 || tiers.Data[0].Tier != 1 {
		t.Fatalf("tiers: %v %+v", err, tiers)
	}
	limits, err := c.PositionLimits(ctx, venueapi.LimitQuery{Pair: "BTC-USDT", BusinessType: "all"})
	if err != nil || len(limits.Data) != 5 {
		t.Fatalf("limits: %v %+v", err, limits)
	}
	wrong := newClient(t, base, func(c *venue.Config) { c.SecretKey = "not-the-secret" })
	_, err = wrong.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT"})
	var au *venue.AuthError
	if !errors.As(err, &au) || au.Code != 1253 {
		t.Fatalf("wrong secret: %v", err)
	}
	before := sb.Received(venueapi.PathTiers)
	keyless := newClient(t, base, func(c *venue.Config) { c.AccessKey, c.SecretKey = "", "" })
	if _, err := keyless.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT"}); !errors.As(err, &au) || sb.Received(venueapi.PathTiers) != before {
		t.Fatalf("keyless: %v, and %d requests sent", err, sb.Received(venueapi.PathTiers)-before)
	}
	_, err = c.KLine(ctx, venueapi.KLineQuery{ContractCode: "ABC-USDT", Period: "1min", Size: 1})
	var nf *venue.NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("unlisted contract: %v", err)
	}
}

func TestKLineRangePagesWithoutGapsOrDuplicates(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC)
	base, sb := sandboxtest.Start(t, sandbox.Config{Now: func() time.Time { return now }})
	c := newClient(t, base, func(c *venue.Config) { c.Now = func() time.Time { return now } })
	tests := []struct {
		p        venueapi.Period
		from, to time.Time
		want     int
	}{
		{venueapi.Period1Min, now.Add(-5000 * time.Minute), now.Add(-time.Minute), 5000},
		{venueapi.Period1Min, now.Add(-2000 * time.Minute), now.Add(-time.Minute), 2000},
		{venueapi.Period1Mon, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), 18},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d", tt.p, tt.want), func(t *testing.T) {
			before := sb.Received(venueapi.PathKLine)
			from, to := tt.p.Start(tt.from.Unix()), tt.p.Start(tt.to.Unix())
			got, err := c.KLineRange(context.Background(), "BTC-USDT", tt.p, from, to)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want || got[0].ID != from || got[len(got)-1].ID != to {
				t.Fatalf("got %d candles %d..%d, want %d from %d to %d", len(got), got[0].ID, got[len(got)-1].ID, tt.want, from, to)
			}
			for i := 1; i < len(got); i++ {
				if got[i].ID != tt.p.Next(got[i-1].ID) {
					t.Fatalf("gap or duplicate at %d after %d", got[i].ID, got[i-1].ID)
				}
			}
			if calls, max := sb.Received(venueapi.PathKLine)-before, int64((tt.want+1999)/2000); calls != max {
				t.Fatalf("%d calls for %d candles, want %d", calls, tt.want, max)
			}
		})
	}
}

func TestSecretsNeverPrint(t *testing.T) {
	s := venue.Secret("hunter2-secret")
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "secret", s)
	js, _ := json.Marshal(struct{ S venue.Secret }{s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %s %#v", s, s, s), logs.String(), string(js)} {
		if strings.Contains(out, "hunter2") {
			t.Fatalf("secret printed: %s", out)
		}
	}
	// An error of a signed call names neither the signature nor the query.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, func(c *venue.Config) { c.SecretKey = "hunter2-secret" })
	_, err := c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"})
	if err == nil || strings.Contains(err.Error(), "Signature") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error %v", err)
	}
}

func TestNewRefusesABaseURLItCannotUse(t *testing.T) {
	for _, u := range []string{"", "venue.example", "ftp://venue.example", "https://venue.example/?x=1"} {
		if _, err := venue.New(venue.Config{BaseURL: u}); err == nil {
			t.Errorf("New accepted %q", u)
		}
	}
}
