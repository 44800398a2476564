package gateway_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/gateway"
	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/server/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/venue"
	"github.com/riskchart/riskchart/venueapi"
)

const (
	testAccess = "gw-access"
	testSecret = "gw-secret-never-shown"
)

// stack is browser → gateway → sandbox, all over loopback HTTP.
type stack struct {
	url  string
	sb   *sandbox.Sandbox
	logs *bytes.Buffer
}

func newStack(t testing.TB, mutate func(*gateway.Config), venueCfg func(*venue.Config)) *stack {
	t.Helper()
	base, sb := sandboxtest.Start(t, sandbox.Config{Keys: []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}}})
	// Shared venue calls outlive the browser requests that started them (up
	// to the upstream timeout): let them land before the sandbox stops.
	t.Cleanup(func() { quiet(sb, 5*time.Second) })
	vc := venue.Config{BaseURL: base, AccessKey: testAccess, SecretKey: testSecret, Retries: -1, Timeout: time.Second}
	if venueCfg != nil {
		venueCfg(&vc)
	}
	client, err := venue.New(vc)
	if err != nil {
		t.Fatal(err)
	}
	logs := &bytes.Buffer{}
	var mu sync.Mutex
	cfg := gateway.Config{
		Venue: client, Contracts: gateway.DefaultContracts(), RefreshInterval: time.Second,
		PerIPRate: 1e6, PerIPBurst: 1e6,
		Logger: slog.New(slog.NewJSONHandler(lockedWriter{&mu, logs}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		App:    http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("app")) }),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	h, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &stack{url: srv.URL, sb: sb, logs: logs}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (s *stack) get(t testing.TB, path string, header map[string]string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return send(t, req)
}

func send(t testing.TB, req *http.Request) answer {
	t.Helper()
	tr := &http.Transport{DisableCompression: true}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: b}
}

func (a answer) kline(t testing.TB) venueapi.KLineEnvelope {
	t.Helper()
	var env venueapi.KLineEnvelope
	if err := json.Unmarshal(a.body, &env); err != nil {
		t.Fatalf("decoding %s: %v", a.body, err)
	}
	return env
}

func (a answer) errCode(t testing.TB) (int, string) {
	t.Helper()
	var e struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		ErrCode int    `json:"err_code"`
		ErrMsg  string `json:"err_msg"`
	}
	json.Unmarshal(a.body, &e)
	if e.Code != nil {
		return *e.Code, e.Message
	}
	return e.ErrCode, e.ErrMsg
}

func TestKLineBadRequestsNeverReachTheVenue(t *testing.T) {
	s := newStack(t, nil, nil)
	for q, param := range map[string]string{
		"contract_code=BTC-USDT&period=2min":               "period",
		"contract_code=btc&period=1min":                    "contract_code",
		"contract_code=BTC-USDT&period=1min&size=0":        "size",
		"contract_code=BTC-USDT&period=1min&from=1":        "to",
		"contract_code=BTC-USDT&period=1min&from=0&to=1e9": "to",
	} {
		a := s.get(t, venueapi.PathKLine+"?"+q, nil)
		code, msg := a.errCode(t)
		if a.status != 400 || code != 1030 || !strings.Contains(msg, param) {
			t.Errorf("%s: HTTP %d code %d %q, want 400 1030 naming %s", q, a.status, code, msg, param)
		}
	}
	if n := s.sb.Received(venueapi.PathKLine); n != 0 {
		t.Fatalf("the venue received %d requests", n)
	}
}

func TestKLineAnswersWhatTheVenueHas(t *testing.T) {
	s := newStack(t, nil, nil)
	got := s.get(t, venueapi.PathKLine+"?contract_code=ETH-USDT&period=1hour&size=300", nil).kline(t)
	if got.Ch != "market.ETH-USDT.kline.1hour" || got.Status != "ok" || len(got.Data) != 300 {
		t.Fatalf("ch %q status %q %d candles", got.Ch, got.Status, len(got.Data))
	}
	res, err := http.Get(sandboxURL(t, s) + venueapi.PathKLine + "?contract_code=ETH-USDT&period=60min&size=300")
	if err != nil {
		t.Fatal(err)
	}
	var direct venueapi.KLineEnvelope
	json.NewDecoder(res.Body).Decode(&direct)
	res.Body.Close()
	for i := range got.Data[:299] { // the last one is live and may have moved
		if got.Data[i].ID != direct.Data[i].ID || !got.Data[i].Close.Equal(direct.Data[i].Close) || !got.Data[i].TradeTurnover.Equal(direct.Data[i].TradeTurnover) {
			t.Fatalf("candle %d differs from the venue's: %+v vs %+v", i, got.Data[i], direct.Data[i])
		}
	}
}

// sandboxURL finds the sandbox behind the stack through the readiness of a
// second client; tests that need it start their own.
func sandboxURL(t testing.TB, s *stack) string {
	t.Helper()
	base, _ := sandboxtest.Start(t, sandbox.Config{})
	return base
}

func TestManyBrowsersCostOneVenueCallPerSeriesPerRefresh(t *testing.T) {
	s := newStack(t, func(c *gateway.Config) { c.RefreshInterval = time.Hour }, nil)
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=300", nil)
			if a.status != 200 || len(a.kline(t).Data) != 300 {
				t.Errorf("HTTP %d", a.status)
			}
		}()
	}
	wg.Wait()
	if n := s.sb.Received(venueapi.PathKLine); n != 1 {
		t.Fatalf("64 concurrent browsers cost %d venue calls, want 1", n)
	}
	// Smaller sizes of a held series come from the cache too.
	s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=10", nil)
	if n := s.sb.Received(venueapi.PathKLine); n != 1 {
		t.Fatalf("a smaller size cost a venue call: %d", n)
	}
}

func TestTheCurrentCandleIsRefreshedOncePerInterval(t *testing.T) {
	s := newStack(t, func(c *gateway.Config) { c.RefreshInterval = 200 * time.Millisecond }, nil)
	deadline := time.Now().Add(time.Second)
	requests := 0
	for time.Now().Before(deadline) {
		s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=300", nil)
		requests++
	}
	calls := s.sb.Received(venueapi.PathKLine)
	if calls > 7 || requests < 20 {
		t.Fatalf("%d requests in 1s cost %d venue calls, want at most one per 200ms interval (+1)", requests, calls)
	}
}

func TestRangesHeldAreServedWithoutTheVenueAndGapsAloneAreFetched(t *testing.T) {
	s := newStack(t, nil, nil)
	p := venueapi.Period5Min
	now := p.Start(time.Now().Unix())
	to := now - 300*p.Seconds()
	from := to - 999*p.Seconds()
	q := func(f, t int64) string {
		return fmt.Sprintf("%s?contract_code=SOL-USDT&period=5min&from=%d&to=%d", venueapi.PathKLine, f, t)
	}
	first := s.get(t, q(from, to), nil)
	if n := len(first.kline(t).Data); n != 1000 {
		t.Fatalf("%d candles, want 1000", n)
	}
	calls := s.sb.Received(venueapi.PathKLine)
	inner := s.get(t, q(from+100*p.Seconds(), to-100*p.Seconds()), nil)
	if n := len(inner.kline(t).Data); n != 800 || s.sb.Received(venueapi.PathKLine) != calls {
		t.Fatalf("a held range: %d candles and %d venue calls", n, s.sb.Received(venueapi.PathKLine)-calls)
	}
	if cc := inner.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("closed range Cache-Control %q, want immutable", cc)
	}
	// Back-scroll: 500 older candles; only the 500 missing are fetched (one call).
	older := s.get(t, q(from-500*p.Seconds(), from+200*p.Seconds()), nil).kline(t)
	if len(older.Data) != 701 || s.sb.Received(venueapi.PathKLine) != calls+1 {
		t.Fatalf("partly held: %d candles, %d calls", len(older.Data), s.sb.Received(venueapi.PathKLine)-calls)
	}
	for i := 1; i < len(older.Data); i++ {
		if older.Data[i].ID != older.Data[i-1].ID+p.Seconds() {
			t.Fatalf("gap or duplicate at %d", older.Data[i].ID)
		}
	}
}

func TestETagsAndCompression(t *testing.T) {
	s := newStack(t, func(c *gateway.Config) { c.RefreshInterval = time.Hour }, nil)
	path := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1day&size=300"
	a := s.get(t, path, map[string]string{"Accept-Encoding": "gzip"})
	if a.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("not compressed: %v", a.header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !bytes.HasPrefix(plain, []byte(`{"ch":"market.BTC-USDT.kline.1day"`)) {
		t.Fatalf("decompressed %q", plain[:40])
	}
	etag := a.header.Get("ETag")
	if b := s.get(t, path, map[string]string{"If-None-Match": etag}); b.status != http.StatusNotModified {
		t.Fatalf("If-None-Match: HTTP %d, want 304", b.status)
	}
}

func TestTheCacheStaysWithinItsMemoryBound(t *testing.T) {
	s := newStack(t, func(c *gateway.Config) { c.CacheBytes = 300 << 10; c.RefreshInterval = time.Hour }, nil)
	codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"}
	for _, c := range codes {
		s.get(t, venueapi.PathKLine+"?contract_code="+c+"&period=1min&size=1000", nil)
	}
	calls := s.sb.Received(venueapi.PathKLine)
	// 1000 candles are ~200 KB: the first series went to make room.
	s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=1000", nil)
	if s.sb.Received(venueapi.PathKLine) != calls+1 {
		t.Fatal("the least recently used series was still held past the bound")
	}
	s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=1000", nil)
	if s.sb.Received(venueapi.PathKLine) != calls+1 {
		t.Fatal("the most recent series was evicted")
	}
	m := s.get(t, "/metrics", nil)
	if !strings.Contains(string(m.body), `riskchart_cache_total{cache="candles",result="hit"}`) {
		t.Fatalf("cache metrics missing:\n%s", m.body)
	}
}

func TestVenueFailuresServeStaleOrAnActionableError(t *testing.T) {
	faults := map[string]sandbox.Fault{
		"5xx":       {Rate5xx: 1},
		"malformed": {RateMalformed: 1},
		"hang-up":   {RateHangup: 1},
		"429":       {Rate429: 1},
		"timeout":   {Latency: 3 * time.Second},
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			s := newStack(t, func(c *gateway.Config) { c.RefreshInterval = 50 * time.Millisecond; c.TierTTL = 50 * time.Millisecond }, nil)
			path := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=50"
			if a := s.get(t, path, nil); a.status != 200 {
				t.Fatalf("warm-up: HTTP %d", a.status)
			}
			s.get(t, venueapi.PathTiers+"?contract_code=BTC-USDT", nil)
			s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": f}})
			time.Sleep(60 * time.Millisecond)
			a := s.get(t, path, nil)
			env := a.kline(t)
			if a.status != 200 || !env.Stale || a.header.Get("X-Riskchart-Stale") != "true" || len(env.Data) != 50 {
				t.Fatalf("with a cached answer: HTTP %d stale %v header %q, %d candles", a.status, env.Stale, a.header.Get("X-Riskchart-Stale"), len(env.Data))
			}
			tiers := s.get(t, venueapi.PathTiers+"?contract_code=BTC-USDT", nil)
			if !strings.Contains(string(tiers.body), `"stale":true`) {
				t.Fatalf("tiers not served stale: %s", tiers.body)
			}
			b := s.get(t, venueapi.PathKLine+"?contract_code=ETH-USDT&period=1min&size=50", nil)
			code, msg := b.errCode(t)
			want := map[string]int{"5xx": 502, "malformed": 502, "hang-up": 502, "429": 429, "timeout": 504}[name]
			if b.status != want || code == 0 || msg == "" || strings.Contains(msg, testSecret) {
				t.Fatalf("nothing cached: HTTP %d code %d %q, want %d with the venue envelope", b.status, code, msg, want)
			}
			if want == 429 && b.header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		})
	}
}

func TestTheVenueNeverReceivesMoreThanThePrivateBudget(t *testing.T) {
	s := newStack(t, nil, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	status := map[int]int{}
	for i := 0; i < 150; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Distinct well-formed codes defeat the cache: each is a venue call.
			a := s.get(t, fmt.Sprintf("%s?contract_code=X%d-USDT", venueapi.PathTiers, i), nil)
			mu.Lock()
			status[a.status]++
			mu.Unlock()
			if a.status == 429 && a.header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
		}()
	}
	wg.Wait()
	// The venue counts in windows of 3 s: it must never have refused one.
	m := string(s.get(t, "/metrics", nil).body)
	if strings.Contains(m, `outcome="venue_rate_limited"`) {
		t.Fatalf("the venue refused requests for the rate:\n%s", m)
	}
	if status[429] == 0 || !strings.Contains(m, `riskchart_venue_calls_total{endpoint="tiers",outcome="budget_spent"}`) {
		t.Fatalf("no browser was told to retry: %v", status)
	}
	if n := s.sb.Received(venueapi.PathTiers); n > 2*72 {
		t.Fatalf("the venue received %d private requests within about two windows", n)
	}
}

func TestEachClientIPHasItsOwnRate(t *testing.T) {
	s := newStack(t, func(c *gateway.Config) { c.PerIPRate, c.PerIPBurst = 1, 5 }, nil)
	for i := 0; i < 5; i++ {
		if a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=5", nil); a.status != 200 {
			t.Fatalf("request %d: HTTP %d", i+1, a.status)
		}
	}
	a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=5", nil)
	if code, _ := a.errCode(t); a.status != 429 || code != 1032 || a.header.Get("Retry-After") == "" {
		t.Fatalf("6th: HTTP %d code %d", a.status, code)
	}
}

func TestPrivatePathsNeedAViewerTokenOffLoopback(t *testing.T) {
	if _, err := gateway.New(gateway.Config{Venue: mustClient(t), Public: true}); err == nil || !strings.Contains(err.Error(), "RISKCHART_VIEWER_TOKENS") {
		t.Fatalf("New without tokens off loopback: %v", err)
	}
	s := newStack(t, func(c *gateway.Config) { c.Public, c.ViewerTokens = true, []venue.Secret{"viewer-token-1"} }, nil)
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	if a := s.get(t, tiers, nil); a.status != 401 {
		t.Fatalf("no token: HTTP %d", a.status)
	}
	if a := s.get(t, tiers, map[string]string{"Authorization": "Bearer wrong"}); a.status != 401 {
		t.Fatalf("wrong token: HTTP %d", a.status)
	}
	a := s.get(t, tiers, map[string]string{"Authorization": "Bearer viewer-token-1"})
	if a.status != 200 || a.header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("bearer: HTTP %d Cache-Control %q", a.status, a.header.Get("Cache-Control"))
	}
	if a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=5", nil); a.status != 200 {
		t.Fatalf("KLine is public: HTTP %d", a.status)
	}
	// The login page sets a cookie that grants access.
	jar := &cookieJar{}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(s.url+"/login", url.Values{"token": {"viewer-token-1"}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %v %v", res, err)
	}
	res.Body.Close()
	res, err = client.Get(s.url + tiers)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("with the login cookie: %v %v", res, err)
	}
	res.Body.Close()
}

type cookieJar struct {
	mu sync.Mutex
	c  []*http.Cookie
}

func (j *cookieJar) SetCookies(_ *url.URL, cs []*http.Cookie) {
	j.mu.Lock()
	j.c = append(j.c, cs...)
	j.mu.Unlock()
}
func (j *cookieJar) Cookies(*url.URL) []*http.Cookie {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.c
}

func mustClient(t testing.TB) *venue.Client {
	c, err := venue.New(venue.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNoKeyMeansNoAccessToPrivateData(t *testing.T) {
	s := newStack(t, nil, func(v *venue.Config) { v.AccessKey, v.SecretKey = "", "" })
	a := s.get(t, venueapi.PathTiers+"?contract_code=BTC-USDT", nil)
	if code, msg := a.errCode(t); a.status != 403 || code != 403 || !strings.Contains(msg, "no venue key") {
		t.Fatalf("HTTP %d code %d %q", a.status, code, msg)
	}
}

func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	s := newStack(t, func(c *gateway.Config) { c.FrameAncestors = []string{"https://partner.example"} }, nil)
	for _, path := range []string{"/", venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2", venueapi.PathTiers + "?contract_code=BTC-USDT", "/healthz", "/api/v1/contracts", "/nope"} {
		a := s.get(t, path, nil)
		csp := a.header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self' 'wasm-unsafe-eval'", "frame-ancestors 'self' https://partner.example", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") && strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
			t.Errorf("%s: inline scripts allowed", path)
		}
		if a.header.Get("X-Content-Type-Options") != "nosniff" || a.header.Get("Referrer-Policy") == "" || a.header.Get("X-Request-Id") == "" {
			t.Errorf("%s: headers %v", path, a.header)
		}
	}
}

func TestSecretsAppearInNoAnswerAndNoLogLine(t *testing.T) {
	s := newStack(t, nil, nil)
	for _, path := range []string{venueapi.PathTiers + "?contract_code=BTC-USDT", venueapi.PathPositionLimit, "/metrics", "/readyz", "/api/v1/contracts",
		venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2"} {
		if a := s.get(t, path, nil); bytes.Contains(a.body, []byte(testSecret)) || strings.Contains(fmt.Sprint(a.header), testSecret) {
			t.Errorf("%s shows the secret", path)
		}
	}
	s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}})
	s.get(t, venueapi.PathTiers+"?contract_code=ETH-USDT", nil)
	if strings.Contains(s.logs.String(), testSecret) || strings.Contains(s.logs.String(), "Signature=") {
		t.Fatalf("a log line shows the secret or a signature:\n%s", s.logs.String())
	}
	if !strings.Contains(s.logs.String(), `"msg":"request"`) {
		t.Fatalf("no request log lines:\n%s", s.logs.String())
	}
}

func TestOperationsEndpoints(t *testing.T) {
	s := newStack(t, nil, nil)
	s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=2", nil)
	if a := s.get(t, "/healthz", nil); a.status != 200 {
		t.Fatalf("healthz: %d", a.status)
	}
	if a := s.get(t, "/readyz", nil); a.status != 200 {
		t.Fatalf("readyz: %d %s", a.status, a.body)
	}
	var contracts struct {
		Data []gateway.Contract `json:"data"`
	}
	json.Unmarshal(s.get(t, "/api/v1/contracts", nil).body, &contracts)
	if len(contracts.Data) != 6 || contracts.Data[0].Code != "BTC-USDT" || contracts.Data[0].FaceValue.String() != "0.001" {
		t.Fatalf("contracts %+v", contracts)
	}
	s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}})
	if a := s.get(t, "/readyz", nil); a.status != 503 {
		t.Fatalf("readyz with the venue down: %d", a.status)
	}
	m := string(s.get(t, "/metrics", nil).body)
	for _, want := range []string{"riskchart_requests_total", "riskchart_request_duration_seconds", "riskchart_venue_budget_private_available", "riskchart_venue_calls_total"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestParseContracts(t *testing.T) {
	got, err := gateway.ParseContracts("BTC-USDT:0.001:1,ETH-USDT-CQ:0.01:2")
	if err != nil || len(got) != 2 || got[1].PriceDecimals != 2 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"BTC-USDT", "btc:1:1", "BTC-USDT:-1:1", "BTC-USDT:0.1:x", "BTC-USDT:0.1:40"} {
		if _, err := gateway.ParseContracts(bad); err == nil || !strings.Contains(err.Error(), "RISKCHART_CONTRACTS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func benchCacheHit(b *testing.B, size int) {
	base, _ := sandboxtest.Start(b, sandbox.Config{})
	client, err := venue.New(venue.Config{BaseURL: base})
	if err != nil {
		b.Fatal(err)
	}
	h, err := gateway.New(gateway.Config{Venue: client, RefreshInterval: time.Hour, PerIPRate: 1e9, PerIPBurst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", fmt.Sprintf("%s?contract_code=BTC-USDT&period=1min&size=%d", venueapi.PathKLine, size), nil)
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req) // fill the cache
	if w.Code != 200 {
		b.Fatal(w.Code)
	}
	b.SetBytes(int64(w.Body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

func BenchmarkKLineCacheHitSize300(b *testing.B)  { benchCacheHit(b, 300) }
func BenchmarkKLineCacheHitSize2000(b *testing.B) { benchCacheHit(b, 2000) }

// quiet waits until the sandbox has received nothing for 300 ms, or max.
func quiet(sb *sandbox.Sandbox, max time.Duration) {
	total := func() int64 {
		return sb.Received(venueapi.PathKLine) + sb.Received(venueapi.PathTiers) + sb.Received(venueapi.PathPositionLimit)
	}
	deadline := time.Now().Add(max)
	for last := total(); time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		now := total()
		if now == last {
			return
		}
		last = now
	}
}
