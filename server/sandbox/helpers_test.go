package sandbox_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/server/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

// The sandbox's tests talk to it over real loopback HTTP, as the venue's
// clients do, on a clock they set.

var testNow = time.Date(2026, 11, 22, 12, 34, 56, 0, time.UTC)

const (
	testAccess = "test-access"
	testSecret = "test-secret-of-the-sandbox"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

type venueUnderTest struct {
	url   string
	sb    *sandbox.Sandbox
	clock *clock
}

func start(t testing.TB, cfg sandbox.Config) *venueUnderTest {
	t.Helper()
	c := &clock{t: testNow}
	if cfg.Now == nil {
		cfg.Now = c.Now
	}
	if cfg.Keys == nil {
		cfg.Keys = []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}, {Access: "no-read", Secret: "s", Read: false}}
	}
	u, sb := sandboxtest.Start(t, cfg)
	return &venueUnderTest{url: u, sb: sb, clock: c}
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("decoding %s: %v", a.body, err)
	}
}

// errCode reads the venue's error code from either envelope.
func (a answer) errCode(t testing.TB) (int, string) {
	t.Helper()
	var e struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		ErrCode int    `json:"err_code"`
		ErrMsg  string `json:"err_msg"`
		Status  string `json:"status"`
	}
	a.json(t, &e)
	if e.Code != nil {
		return *e.Code, e.Message
	}
	if e.Status != "error" {
		return 200, ""
	}
	return e.ErrCode, e.ErrMsg
}

func do(t testing.TB, req *http.Request) answer {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: res.StatusCode, header: res.Header, body: b}
}

func (v *venueUnderTest) kline(t testing.TB, query string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, v.url+venueapi.PathKLine+"?"+query, nil)
	return do(t, req)
}

func (v *venueUnderTest) candles(t testing.TB, query string) []venueapi.Candle {
	t.Helper()
	a := v.kline(t, query)
	var env venueapi.KLineEnvelope
	a.json(t, &env)
	if env.Status != "ok" {
		t.Fatalf("%s: %s", query, a.body)
	}
	return env.Data
}

// signed sends a signed request with the test key, signed at the clock's now.
func (v *venueUnderTest) signed(t testing.TB, method, path string, params url.Values, body string, mutate func(url.Values)) answer {
	t.Helper()
	return v.signedWith(t, method, path, params, body, testAccess, testSecret, v.clock.Now(), mutate)
}

func (v *venueUnderTest) signedWith(t testing.TB, method, path string, params url.Values, body, access, secret string, at time.Time, mutate func(url.Values)) answer {
	t.Helper()
	u, _ := url.Parse(v.url)
	q := venueapi.SignedQuery(method, venueapi.CanonicalHost("http", u.Host), path, access, []byte(secret), params, at)
	if mutate != nil {
		vals, _ := url.ParseQuery(q)
		mutate(vals)
		q = vals.Encode()
	}
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, _ := http.NewRequest(method, v.url+path+"?"+q, rd)
	if body != "" {
		ct := "application/json"
		if !strings.HasPrefix(body, "{") {
			ct = "application/x-www-form-urlencoded"
		}
		req.Header.Set("Content-Type", ct)
	}
	return do(t, req)
}
