package sandbox_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// The sandbox's tests talk to it over HTTP on an in-memory network, as the
// venue's clients do, on a clock they set; a test that waits runs in a
// testing/synctest bubble.

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
	url    string
	sb     *sandbox.Sandbox
	clock  *clock
	client *http.Client
}

func start(t testing.TB, cfg sandbox.Config) *venueUnderTest {
	t.Helper()
	c := &clock{t: testNow}
	if cfg.Now == nil {
		cfg.Now = c.Now
	}
	if cfg.Keys == nil {
		cfg.Keys = []sandbox.Key{
			{Access: testAccess, Secret: testSecret, Read: true},
			{Access: "no-read", Secret: "s", Read: false},
			{Access: "disabled", Secret: "s", Read: true, Disabled: true},
		}
	}
	n := sandboxtest.NewNetwork()
	u, sb := sandboxtest.StartOn(t, n, cfg)
	tr := n.Transport("127.0.0.1")
	t.Cleanup(tr.CloseIdleConnections)
	return &venueUnderTest{url: u, sb: sb, clock: c, client: &http.Client{Transport: tr}}
}

// unlimited is a sandbox at testNow whose limits do not interfere, called
// in-process, for benchmarks and fuzz targets.
func unlimited(t testing.TB) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New(sandbox.Config{
		Now:          func() time.Time { return testNow },
		Keys:         []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}},
		PublicLimit:  venueapi.Limit{Requests: 1 << 30, Per: time.Second},
		PrivateLimit: venueapi.Limit{Requests: 1 << 30, Per: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb
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
	return sandboxtest.ErrCode(t, a.body)
}

// marketOf finds the listed contract of pair and type, e.g. the current BTC-USDT quarter.
func (v *venueUnderTest) marketOf(t testing.TB, pair string, typ venueapi.ContractType) sandbox.Market {
	t.Helper()
	for _, m := range v.sb.Markets() {
		if m.Pair() == pair && m.Type == typ {
			return m
		}
	}
	t.Fatalf("no %s %s listed", pair, typ)
	return sandbox.Market{}
}

func (v *venueUnderTest) do(t testing.TB, req *http.Request) answer {
	t.Helper()
	res, err := v.client.Do(req)
	b := sandboxtest.Body(t, res, err)
	return answer{status: res.StatusCode, header: res.Header, body: b}
}

func (v *venueUnderTest) kline(t testing.TB, query string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, v.url+venueapi.PathKLine+"?"+query, nil)
	return v.do(t, req)
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

// signed sends a signed request with the test key, signed at the clock's
// now; a body starting with '{' is sent as JSON, another as a form.
func (v *venueUnderTest) signed(t testing.TB, method, path string, params url.Values, body string, mutate func(url.Values)) answer {
	t.Helper()
	return v.signedWith(t, method, path, params, body, testAccess, testSecret, v.clock.Now(), mutate)
}

func (v *venueUnderTest) signedWith(t testing.TB, method, path string, params url.Values, body, access, secret string, at time.Time, mutate func(url.Values)) answer {
	t.Helper()
	req := v.signedRequest(t, method, path, params, access, secret, at, mutate)
	if body != "" {
		req.Body = io.NopCloser(strings.NewReader(body))
		req.ContentLength = int64(len(body))
		ct := "application/json"
		if !strings.HasPrefix(body, "{") {
			ct = "application/x-www-form-urlencoded"
		}
		req.Header.Set("Content-Type", ct)
	}
	return v.do(t, req)
}

// signedRequest builds a request signed as venueapi signs, then lets mutate
// change its query (re-encoded as the canonical string encodes).
func (v *venueUnderTest) signedRequest(t testing.TB, method, path string, params url.Values, access, secret string, at time.Time, mutate func(url.Values)) *http.Request {
	t.Helper()
	u, err := url.Parse(v.url)
	if err != nil {
		t.Fatal(err)
	}
	q := sign.SignedQuery(method, sign.CanonicalHost("http", u.Host), path, access, []byte(secret), params, at)
	if mutate != nil {
		vals, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		mutate(vals)
		q = sign.EncodeQuery(vals)
	}
	req, err := http.NewRequest(method, v.url+path+"?"+q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// signedWithTimestamp builds a request signed with the test key whose
// Timestamp is timestamp as given, whatever its shape: venueapi's signer
// writes only the right one.
func (v *venueUnderTest) signedWithTimestamp(t testing.TB, method, path string, params url.Values, timestamp string) *http.Request {
	t.Helper()
	q := url.Values{
		sign.ParamAccessKeyID: {testAccess}, sign.ParamSignatureMethod: {sign.SignatureMethod},
		sign.ParamSignatureVersion: {sign.SignatureVersion}, sign.ParamTimestamp: {timestamp},
	}
	for k, vs := range params {
		q[k] = vs
	}
	q.Set(sign.ParamSignature, sign.Sign([]byte(testSecret), sign.Canonical(method, sign.CanonicalHost("http", hostOf(t, v.url)), path, q)))
	return mustRequest(t, method, v.url+path+"?"+sign.EncodeQuery(q))
}

func mustRequest(t testing.TB, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func hostOf(t testing.TB, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not an integer", s)
	}
	return n
}

// tiersOf fetches the tier ladder of a swap.
func (v *venueUnderTest) tiersOf(t testing.TB, swap string) []venueapi.Tier {
	t.Helper()
	a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {swap}}, "", nil)
	var env venueapi.TierEnvelope
	a.json(t, &env)
	if env.Code != 200 {
		t.Fatalf("tiers of %s: %s", swap, a.body)
	}
	return env.Data
}

// aggregate is what docs/decisions.md, Period consistency says a longer
// candle is: open of the first, close of the last, max high, min low, sums of
// the rest.
func aggregate(cs []venueapi.Candle) venueapi.Candle {
	a := cs[0]
	for _, c := range cs[1:] {
		a.Close = c.Close
		a.High = decimal.Max(a.High, c.High)
		a.Low = decimal.Min(a.Low, c.Low)
		a.Vol = a.Vol.Add(c.Vol)
		a.Count = a.Count.Add(c.Count)
		a.Amount = a.Amount.Add(c.Amount)
		a.TradeTurnover = a.TradeTurnover.Add(c.TradeTurnover)
	}
	return a
}

func readCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
