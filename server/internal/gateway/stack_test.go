package gateway_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

const (
	testAccess = "gw-access"
	testSecret = "gw-secret-never-shown"
	testViewer = "viewer-token-never-shown"
)

// options shape a stack; zero values are the defaults of each part.
type options struct {
	gateway func(*gateway.Config)
	venue   func(*venue.Config)
	sandbox func(*sandbox.Config)
	clock   *clock // nil: real time
}

// stack is browser → gateway → sandbox, all over HTTP on an in-memory
// network, so that a test may run it in a testing/synctest bubble.
type stack struct {
	url      string // the gateway
	venueURL string // the sandbox, for comparing with what the venue itself answers
	sb       *sandbox.Sandbox
	logs     *servertest.Buffer
	clock    *clock
	net      *sandboxtest.Network
	pass     int // which direct key askVenueRaw signs with
}

func newStack(t testing.TB, o options) *stack {
	t.Helper()
	sbCfg := sandbox.Config{Keys: []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}}}
	vc := venue.Config{AccessKey: testAccess, SecretKey: testSecret, Retries: -1, Timeout: time.Second}
	logs := &servertest.Buffer{}
	cfg := gateway.Config{
		Contracts: []venueapi.Offer{{Code: "BTC-USDT", FaceValue: decimal.RequireFromString("0.001"), PriceDecimals: 1}}, ClientRate: 1e6, ClientBurst: 1e6,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		App:    http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("app")) }),
	}
	if o.clock != nil {
		sbCfg.Now, vc.Now, cfg.Now = o.clock.Now, o.clock.Now, o.clock.Now
	}
	if o.sandbox != nil {
		o.sandbox(&sbCfg)
	}
	n := sandboxtest.NewNetwork()
	base, sb := sandboxtest.StartOn(t, n, sbCfg)
	vc.BaseURL = base
	cfg.Venue = venueOn(t, n, vc, o.venue)
	if o.gateway != nil {
		o.gateway(&cfg)
	}
	h, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = n.Listen()
	srv.Start()
	t.Cleanup(srv.Close)
	return &stack{url: srv.URL, venueURL: base, sb: sb, logs: logs, clock: o.clock, net: n}
}

// venueOn is a venue client of vc reaching the venue over the test network
// n, from 127.0.0.1; edit, if not nil, changes vc last.
func venueOn(t testing.TB, n *sandboxtest.Network, vc venue.Config, edit func(*venue.Config)) *venue.Client {
	t.Helper()
	tr := n.Transport("127.0.0.1")
	t.Cleanup(tr.CloseIdleConnections)
	vc.HTTPClient = &http.Client{Transport: tr}
	if edit != nil {
		edit(&vc)
	}
	client, err := venue.New(vc)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// klineCalls counts the KLine requests the venue received.
func (s *stack) klineCalls() int64 { return s.sb.Received(venueapi.PathKLine) }

// clock is a test's time, shared by the sandbox, the venue client and the
// gateway, moved only by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock starts a clock at the given second of a fixed minute, so that
// the sandbox has history behind it, a test advancing a few seconds stays
// within one 1min candle, and a testing/synctest bubble's own clock (which
// starts in 2000) does not matter.
func newClock(second int) *clock {
	return &clock{t: time.Date(2026, 11, 22, 12, 34, second, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// reply is an answer as a browser received it, body not decompressed.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (s *stack) get(t testing.TB, path string, header ...string) reply {
	t.Helper()
	return s.do(t, http.MethodGet, path, "", header...)
}

// warm asks for each path once, so that the gateway holds its answer.
func (s *stack) warm(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if a := s.get(t, p); a.status != 200 {
			t.Fatalf("warm-up %s: HTTP %d", p, a.status)
		}
	}
}

// heldPaths are a query of each cache (latest candles, a candle range,
// tiers, limits) for BTC-USDT, the range ending at the candle current at now.
func heldPaths(now time.Time) []string {
	current := venueapi.Period1Min.Start(now.Unix())
	return []string{
		venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=50",
		venueapi.PathKLine + fmt.Sprintf("?contract_code=BTC-USDT&period=1min&from=%d&to=%d", current-3000, current),
		venueapi.PathTiers + "?contract_code=BTC-USDT",
		venueapi.PathPositionLimit + "?contract_code=BTC-USDT",
	}
}

// do sends a request; header is name, value pairs, a name given twice sent
// as two field lines.
func (s *stack) do(t testing.TB, method, path, body string, header ...string) reply {
	t.Helper()
	return s.doFrom(t, "127.0.0.1", method, path, body, header...)
}

// doFrom is do from the client address ip.
func (s *stack) doFrom(t testing.TB, ip, method, path, body string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return send(t, s.from(ip), req)
}

func send(t testing.TB, tr *http.Transport, req *http.Request) reply {
	t.Helper()
	tr.DisableCompression = true
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	b := sandboxtest.Body(t, res, err)
	return reply{status: res.StatusCode, header: res.Header, body: b}
}

// direct asks the sandbox itself, for comparison.
func (s *stack) direct(t testing.TB, query string) venueapi.KLineEnvelope {
	t.Helper()
	tr := s.from("127.0.0.1")
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Get(s.venueURL + venueapi.PathKLine + "?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env venueapi.KLineEnvelope
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	return env
}

func (a reply) kline(t testing.TB) venueapi.KLineEnvelope {
	t.Helper()
	var env venueapi.KLineEnvelope
	if err := json.Unmarshal(a.body, &env); err != nil {
		t.Fatalf("decoding %.200s: %v", a.body, err)
	}
	return env
}

// errCode reads either error envelope: code and message, or err_code and err_msg.
func (a reply) errCode(t testing.TB) (int, string) {
	t.Helper()
	return sandboxtest.ErrCode(t, a.body)
}

// concurrently runs f n times at once and waits for all.
func concurrently(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

// from returns a transport whose connections come from the loopback
// address ip, so that a test can be two clients.
func (s *stack) from(ip string) *http.Transport { return s.net.Transport(ip) }
