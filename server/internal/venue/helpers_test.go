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

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// exchange is one request a test server received.
type exchange struct {
	method, path, rawQuery, contentType, host string
	body                                      []byte
}

// venueStub is a loopback server that answers every request with reply and
// records what it received.
type venueStub struct {
	*httptest.Server
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
	s := &venueStub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, exchange{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Host, body})
		s.mu.Unlock()
		reply(w, r, s.n.Add(1))
	}))
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

// newClient is a client of base with a key, no retries and a short timeout,
// changed by mutate.
func newClient(t testing.TB, base string, mutate func(*venue.Config)) *venue.Client {
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

// dialing sends every connection to addr, whatever host the URL names, so a
// client can sign for a fixed host while talking to a loopback server.
func dialing(addr string) *http.Client {
	d := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
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
