package venue_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// startSandbox serves a sandbox on an in-memory network and returns a
// client of it changed by mutate, and a maker of other clients of it.
func startSandbox(t *testing.T, cfg sandbox.Config, mutate func(*venue.Config)) (*venue.Client, *sandbox.Sandbox, func(mutate func(*venue.Config)) *venue.Client) {
	t.Helper()
	n := sandboxtest.NewNetwork()
	base, sb := sandboxtest.StartOn(t, n, cfg)
	client := func(mutate func(*venue.Config)) *venue.Client { return newClient(t, base, n, mutate) }
	return client(mutate), sb, client
}

var sandboxKeys = []sandbox.Key{
	{Access: "ak", Secret: "sk", Read: true},
	{Access: "no-read", Secret: "sk2"},
}

func TestSignedCallsSucceedAgainstTheSandbox(t *testing.T) {
	c, sb, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, nil)
	ctx := context.Background()
	tiers, err := c.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT"})
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range tiers.Data {
		if int(tr.Tier) != i+1 || tr.ContractCode != "BTC-USDT" || (i > 0 && !tr.MinVolume.Equal(tiers.Data[i-1].MaxVolume)) {
			t.Fatalf("tier %d is %+v: tiers must be numbered in order, each band starting where the last ended", i+1, tr)
		}
	}
	var future string
	for _, m := range sb.Markets() {
		if m.Kind == venueapi.KindFuture && m.Base == "BTC" {
			future = m.Code
			break
		}
	}
	tests := []struct {
		name string
		q    venueapi.LimitQuery
		want func(venueapi.PositionLimit) bool
	}{
		{"a swap by its code", venueapi.LimitQuery{ContractCode: "BTC-USDT"}, func(p venueapi.PositionLimit) bool { return p.ContractCode == "BTC-USDT" }},
		{"a dated future by its code", venueapi.LimitQuery{ContractCode: future, BusinessType: venueapi.BusinessFutures},
			func(p venueapi.PositionLimit) bool {
				return p.ContractCode == future && p.BusinessType == venueapi.BusinessFutures
			}},
		{"every contract of a pair", venueapi.LimitQuery{Pair: "BTC-USDT", BusinessType: venueapi.BusinessAll}, func(p venueapi.PositionLimit) bool { return p.Pair == "BTC-USDT" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := c.PositionLimits(ctx, tt.q)
			if err != nil || len(env.Data) == 0 {
				t.Fatalf("error %v with %d records", err, len(env.Data))
			}
			for _, p := range env.Data {
				if !tt.want(p) || !p.BuyLimitValue.IsPositive() || !p.MarkPrice.IsPositive() {
					t.Fatalf("record %+v does not answer the query", p)
				}
			}
		})
	}
}

func TestTheSandboxRefusesBadKeysAndTheClientSaysWhy(t *testing.T) {
	_, _, client := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, nil)
	tests := []struct {
		name     string
		mutate   func(*venue.Config)
		wantCode int
	}{
		{"a wrong secret", func(c *venue.Config) { c.SecretKey = "not-the-secret" }, venueapi.CodeBadSignature},
		{"a clock ten minutes fast", func(c *venue.Config) { c.Now = func() time.Time { return time.Now().Add(10 * time.Minute) } }, venueapi.CodeBadSignature},
		{"an unknown access key", func(c *venue.Config) { c.AccessKey = "nobody" }, venueapi.CodeForbidden},
		{"a key without read permission", func(c *venue.Config) { c.AccessKey, c.SecretKey = "no-read", "sk2" }, venueapi.CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(tt.mutate)
			for _, e := range endpoints[1:] {
				err := e.call(context.Background(), c)
				var au *venue.AuthError
				if !errors.As(err, &au) || au.Code != tt.wantCode {
					t.Fatalf("%s: error %v, want an AuthError with code %d", e.name, err, tt.wantCode)
				}
				if strings.Contains(err.Error(), "not-the-secret") || strings.Contains(err.Error(), "Signature=") {
					t.Fatalf("error %q shows the secret or the signature", err)
				}
			}
		})
	}
}

func TestAnUnlistedContractIsNotFoundAtTheSandbox(t *testing.T) {
	c, _, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, nil)
	_, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "NOPE-USDT", Period: venueapi.Period1Min, Size: 1})
	var nf *venue.NotFoundError
	if !errors.As(err, &nf) || nf.Code != venueapi.CodeNoSuchContract {
		t.Fatalf("error %v, want NotFound 1013", err)
	}
	_, err = c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "NOPE-USDT"})
	if !errors.As(err, &nf) {
		t.Fatalf("tiers: error %v, want NotFound", err)
	}
}

func TestKLineRangeAgainstTheSandboxHasNoGapsOrDuplicates(t *testing.T) {
	now := time.Now().UTC()
	c, sb, _ := startSandbox(t, sandbox.Config{Now: func() time.Time { return now }}, nil)
	last := func(p venueapi.Period) int64 { return p.Prev(p.Start(now.Unix())) } // the last closed candle
	tests := []struct {
		p    venueapi.Period
		n    int
		from int64
	}{
		{venueapi.Period1Min, 5000, last(venueapi.Period1Min) - 4999*60},
		{venueapi.Period5Min, 2001, last(venueapi.Period5Min) - 2000*300},
		{venueapi.Period1Mon, 19, time.Date(now.Year()-1, now.Month()-7, 1, 0, 0, 0, 0, time.UTC).Unix()},
	}
	for _, tt := range tests {
		t.Run(string(tt.p), func(t *testing.T) {
			before := sb.Received(venueapi.PathKLine)
			got, err := c.KLineRange(context.Background(), "BTC-USDT", tt.p, tt.from, last(tt.p))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n || got[0].ID != tt.from || got[len(got)-1].ID != last(tt.p) {
				t.Fatalf("%d candles %d..%d, want %d from %d to %d", len(got), got[0].ID, got[len(got)-1].ID, tt.n, tt.from, last(tt.p))
			}
			for i := 1; i < len(got); i++ {
				if got[i].ID != tt.p.Next(got[i-1].ID) {
					t.Fatalf("candle %d follows %d: a gap or a duplicate", got[i].ID, got[i-1].ID)
				}
				if !got[i].Open.IsPositive() || got[i].High.LessThan(got[i].Low) {
					t.Fatalf("candle %+v is not a candle", got[i])
				}
			}
			if calls, want := sb.Received(venueapi.PathKLine)-before, int64((tt.n+1999)/2000); calls != want {
				t.Fatalf("%d requests for %d candles, want %d", calls, tt.n, want)
			}
		})
	}
}

func TestTheSandboxNeverSeesMoreThanItsPrivateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sb, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys, PrivateLimit: venueapi.Limit{Requests: 10, Per: time.Second}},
			func(c *venue.Config) { c.PrivateQuota = venueapi.Limit{Requests: 10, Per: time.Second} })
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range errs {
			wg.Go(func() { errs[i] = endpoints[1+i%2].call(ctx, c) })
		}
		wg.Wait()
		sent := sb.Received(venueapi.PathTiers) + sb.Received(venueapi.PathPositionLimit)
		// Ten go at once and ten a window later, well within the deadline.
		if err := errors.Join(errs...); err != nil || sent != 20 {
			t.Fatalf("%d sent; error: %v", sent, err)
		}
	})
}

func TestRetriesRideOutTheSandboxsFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _, _ := startSandbox(t, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{
			"": {Rate5xx: 0.1, RateMalformed: 0.05, Rate429: 0.05, RateHangup: 0.05},
		}}}, func(c *venue.Config) { c.Retries = 8 })
		for i := range 10 {
			if _, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "ETH-USDT", Period: venueapi.Period15Min, Size: 10}); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
	})
}

// docs/decisions.md#canonical-host: the host signed is the one the Host
// header carries, lower-cased, without a default port, whatever form the
// base URL gives it. Go's client sends "venue.test:" as "venue.test".
func TestSignedCallsSucceedWhateverFormTheBaseURLGivesTheHost(t *testing.T) {
	for _, base := range []string{"http://venue.test", "http://VENUE.test:80", "http://venue.test:"} {
		t.Run(base, func(t *testing.T) {
			n := sandboxtest.NewNetwork()
			sandboxURL, _ := sandboxtest.StartOn(t, n, sandbox.Config{Keys: sandboxKeys})
			tr := n.Transport("127.0.0.1")
			t.Cleanup(tr.CloseIdleConnections)
			dial, addr := tr.DialContext, strings.TrimPrefix(sandboxURL, "http://")
			tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) { return dial(ctx, network, addr) }
			c := newClient(t, base, n, func(c *venue.Config) { c.HTTPClient = &http.Client{Transport: tr} })
			if _, err := c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
