package venue_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// exchange is one request a test server received.
type exchange struct {
	method, path, rawQuery, contentType, host string
	body                                      []byte
}

// venueStub is a server on an in-memory network that answers every request
// with reply and records what it received. Tests that wait run in a
// testing/synctest bubble, where time passes only while everything waits.
type venueStub struct {
	*httptest.Server
	net  *sandboxtest.Network
	mu   sync.Mutex
	seen []exchange
	n    atomic.Int64
}

func (s *venueStub) requests() []exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]exchange(nil), s.seen...)
}

func serve(t testing.TB, reply func(w http.ResponseWriter, r *http.Request, n int64)) *venueStub {
	t.Helper()
	s := &venueStub{net: sandboxtest.NewNetwork()}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, exchange{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Host, body})
		s.mu.Unlock()
		reply(w, r, s.n.Add(1))
	}))
	s.Listener = s.net.Listen()
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// canned answers every request with one status, headers and body.
func canned(t testing.TB, status int, header map[string]string, body string) *venueStub {
	t.Helper()
	return serve(t, func(w http.ResponseWriter, _ *http.Request, _ int64) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// client is a client of s (see newClient).
func (s *venueStub) client(t testing.TB, mutate func(*venue.Config)) *venue.Client {
	t.Helper()
	return newClient(t, s.URL, s.net, mutate)
}

// newClient is a client of base on n with a key, no retries and a short
// timeout, changed by mutate.
func newClient(t testing.TB, base string, n *sandboxtest.Network, mutate func(*venue.Config)) *venue.Client {
	t.Helper()
	tr := n.Transport("127.0.0.1")
	t.Cleanup(tr.CloseIdleConnections)
	cfg := venue.Config{BaseURL: base, HTTPClient: &http.Client{Transport: tr}, AccessKey: "ak", SecretKey: "sk", Retries: -1, Timeout: 2 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := venue.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dialing sends every connection to s, whatever host the URL names, so a
// client can sign for a fixed host while talking to the stub.
func (s *venueStub) dialing() *http.Client {
	tr := s.net.Transport("127.0.0.1")
	dial, addr := tr.DialContext, s.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) { return dial(ctx, network, addr) }
	return &http.Client{Transport: tr}
}

// The three calls, each with a valid query, for tables over every endpoint.
var endpoints = []struct {
	name string
	call func(context.Context, *venue.Client) error
}{
	{"kline", func(ctx context.Context, c *venue.Client) error {
		_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 5})
		return err
	}},
	{"tiers", func(ctx context.Context, c *venue.Client) error {
		_, err := c.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT"})
		return err
	}},
	{"limits", func(ctx context.Context, c *venue.Client) error {
		_, err := c.PositionLimits(ctx, venueapi.LimitQuery{ContractCode: "BTC-USDT"})
		return err
	}},
}

const (
	klineOK  = `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[]}`
	tiersOK  = `{"code":200,"message":"success","data":[],"ts":1}`
	limitsOK = `{"status":"ok","data":[],"ts":1}`
)
