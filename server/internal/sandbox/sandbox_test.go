package sandbox_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

func TestNew_RefusesAConfigurationItCannotServe(t *testing.T) {
	tests := []struct {
		name    string
		cfg     sandbox.Config
		wantErr string
	}{
		{"a key without a secret", sandbox.Config{Keys: []sandbox.Key{{Access: "ak"}}}, "key 1 needs an access key and a secret"},
		{"two keys with one access key", sandbox.Config{Keys: []sandbox.Key{{Access: "ak", Secret: "a"}, {Access: "ak", Secret: "b"}}}, `key 2 repeats the access key "ak"`},
		{"a limit of no requests", sandbox.Config{PrivateLimit: venueapi.Limit{Requests: 0, Per: time.Second}}, "PrivateLimit"},
		{"a limit over no time", sandbox.Config{PublicLimit: venueapi.Limit{Requests: 5}}, "PublicLimit"},
		{"a lever rate of a contract not listed", sandbox.Config{LeverRates: map[string]int{"ABC-USDT": 5}}, "ABC-USDT is not one the sandbox lists"},
		{"a lever rate of a malformed code", sandbox.Config{LeverRates: map[string]int{"btc": 5}}, "contract_code"},
		{"a lever rate of futures not listed", sandbox.Config{LeverRates: map[string]int{"SOL-USDT-CQ": 5}}, "SOL-USDT-CQ is not one"},
		{"a lever rate over the first tier's", sandbox.Config{LeverRates: map[string]int{"SOL-USDT": 100}}, "lever rate 100 of SOL-USDT must be from 1 to 75"},
		{"a lever rate of zero", sandbox.Config{LeverRates: map[string]int{"BTC-USDT": 0}}, "must be from 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sandbox.New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := sandbox.New(sandbox.Config{LeverRates: map[string]int{"BTC-USDT": 200, "ETH-USDT-NQ": 1, "LTC-USDT": 75}}); err != nil {
		t.Fatalf("lever rates within the ladders: %v", err)
	}
}

func TestMarkets_ListsSixSwapsAndTheFuturesOfBTCAndETH(t *testing.T) {
	v := start(t, sandbox.Config{})
	swaps, futures := map[string]bool{}, map[string]int{}
	for _, m := range v.sb.Markets() {
		if m.Quote != "USDT" || !m.FaceValue.IsPositive() || m.PriceDecimals < 0 || m.Pair() != m.Base+"-USDT" {
			t.Errorf("market %+v", m)
		}
		switch m.Kind {
		case venueapi.KindSwap:
			swaps[m.Base] = m.Code == m.Pair() && m.Type == venueapi.TypeSwap && m.Delivery.IsZero()
		case venueapi.KindFuture:
			futures[m.Base]++
		}
	}
	for _, b := range []string{"BTC", "ETH", "SOL", "XRP", "DOGE", "LTC", "SHIB"} {
		if !swaps[b] {
			t.Errorf("no swap of %s", b)
		}
	}
	if len(futures) != 2 || futures["BTC"] != 4 || futures["ETH"] != 4 {
		t.Errorf("futures %v, want four of BTC and of ETH", futures)
	}
}

// serving starts sb.Serve on an in-memory network, for a test in a
// testing/synctest bubble, and returns a client of it, the sandbox's base
// URL, the end of its context, and what Serve returns.
func serving(t *testing.T, cfg sandbox.Config) (sb *sandbox.Sandbox, client *http.Client, base string, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	sb, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := sandboxtest.NewNetwork()
	ln := n.Listen()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	served := make(chan error, 1)
	go func() { served <- sb.Serve(ctx, ln) }()
	tr := n.Transport("127.0.0.1")
	t.Cleanup(tr.CloseIdleConnections)
	return sb, &http.Client{Transport: tr}, "http://" + ln.Addr().String(), cancel, served
}

func TestServe_AnswersUntilTheContextEndsThenShutsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sb, client, base, cancel, done := serving(t, sandbox.Config{Faults: sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathTiers: {Latency: time.Hour}}}})
		res, err := client.Get(base + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=1")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("while serving: %v %v", res, err)
		}
		res.Body.Close()
		// A request held by an hour of latency does not hold up the shutdown.
		held := make(chan error, 1)
		go func() {
			res, err := client.Get(base + venueapi.PathTiers)
			if err == nil {
				res.Body.Close()
			}
			held <- err
		}()
		synctest.Wait()
		if sb.Received(venueapi.PathTiers) != 1 {
			t.Fatal("the held request did not arrive")
		}
		start := time.Now()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Serve returned %v after the context ended, want nil", err)
		}
		if waited := time.Since(start); waited >= time.Second {
			t.Fatalf("the shutdown waited %s for a request whose latency ends with the context", waited)
		}
		<-held
		if _, err := client.Get(base + venueapi.PathKLine); err == nil {
			t.Fatal("still answering after shutdown")
		}
	})
}

// A client may open a connection and never send on it (a Riskchart server
// stopped while its transport dialled): net/http's Shutdown waits 5 s for
// such a connection before it counts it idle, as long as Serve's own limit.
func TestServe_ShutsDownWithAConnectionThatNeverSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client, base, cancel, done := serving(t, sandbox.Config{})
		conn, err := client.Transport.(*http.Transport).DialContext(context.Background(), "tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		synctest.Wait()
		start := time.Now()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Serve returned %v with no request in flight, want nil", err)
		}
		if waited := time.Since(start); waited >= time.Second {
			t.Fatalf("the shutdown waited %s for a connection that never sent", waited)
		}
	})
}

func TestServe_ReportsAListenerThatFails(t *testing.T) {
	sb, err := sandbox.New(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := sb.Serve(context.Background(), ln); err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve on a closed listener: %v", err)
	}
}
