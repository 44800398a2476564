package sandbox_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// One test per decision of docs/decisions.md, each over real HTTP; the name
// cites the section and the decision.

// --- Signing ---

func TestDecisions_Signing_CanonicalString_SortedAndPercentEncodedAsRFC3986(t *testing.T) {
	v := start(t, sandbox.Config{})
	// Parameters the endpoint ignores are signed all the same: every query
	// parameter but Signature is in the canonical string.
	params := url.Values{"contract_code": {"BTC-USDT"}, "note": {"a b+c/d~e*"}, "Zed": {"1"}}
	if a := v.signed(t, "GET", venueapi.PathTiers, params, "", nil); a.status != 200 {
		t.Fatalf("signed as DECISIONS says: HTTP %d %s", a.status, a.body)
	} else if code, msg := a.errCode(t); code != 200 {
		t.Fatalf("signed as DECISIONS says: code %d %q", code, msg)
	}
	// A client that encodes a space as '+' (Go's url.Values.Encode) signs another string.
	req := v.signedRequest(t, "GET", venueapi.PathTiers, params, testAccess, testSecret, v.clock.Now(), nil)
	u, _ := url.Parse(v.url)
	signed := url.Values{}
	for k, vs := range params {
		signed[k] = vs
	}
	signed.Set("AccessKeyId", testAccess)
	signed.Set("SignatureMethod", "HmacSHA256")
	signed.Set("SignatureVersion", "2")
	signed.Set("Timestamp", v.clock.Now().UTC().Format(sign.TimestampLayout))
	plus := "GET\n" + u.Host + "\n" + venueapi.PathTiers + "\n" + signed.Encode()
	signed.Set("Signature", sign.Sign([]byte(testSecret), plus))
	req.URL.RawQuery = signed.Encode()
	if code, msg := v.do(t, req).errCode(t); code != venueapi.CodeBadSignature || !strings.Contains(msg, "does not match") {
		t.Fatalf("signed with '+' for spaces: code %d %q, want 1253", code, msg)
	}
}

func TestDecisions_Signing_Host_LowerCasedWithThePortOnlyWhenNotDefault(t *testing.T) {
	v := start(t, sandbox.Config{})
	u, _ := url.Parse(v.url)
	params := url.Values{"contract_code": {"BTC-USDT"}}
	tests := []struct {
		name       string
		signedHost string // the host in the canonical string
		sentHost   string // the Host header
		want       int
	}{
		{"host and port as sent", u.Host, u.Host, 200},
		{"a Host header in capitals, signed lower-cased", strings.ToLower("LOCALHOST:" + u.Port()), "LOCALHOST:" + u.Port(), 200},
		{"signed without the non-default port", u.Hostname(), u.Host, venueapi.CodeBadSignature},
		{"signed for another host", "api.example.com", u.Host, venueapi.CodeBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := sign.SignedQuery("GET", tt.signedHost, venueapi.PathTiers, testAccess, []byte(testSecret), params, v.clock.Now())
			req, _ := http.NewRequest("GET", v.url+venueapi.PathTiers+"?"+q, nil)
			req.Host = tt.sentHost
			if code, msg := v.do(t, req).errCode(t); code != tt.want {
				t.Fatalf("code %d %q, want %d", code, msg, tt.want)
			}
		})
	}
}

func TestDecisions_Signing_Signature_IsStandardPaddedBase64OfHMACSHA256(t *testing.T) {
	v := start(t, sandbox.Config{})
	params := url.Values{"contract_code": {"BTC-USDT"}}
	// A signature holding '+' or '/', so that the URL-safe alphabet differs.
	var at time.Time
	var sum []byte
	for k := range 60 {
		at = v.clock.Now().Add(-time.Duration(k) * time.Second)
		q, _ := url.ParseQuery(sign.SignedQuery("GET", hostOf(t, v.url), venueapi.PathTiers, testAccess, []byte(testSecret), params, at))
		if sig := q.Get("Signature"); strings.ContainsAny(sig, "+/") {
			sum, _ = base64.StdEncoding.DecodeString(sig)
			break
		}
	}
	if sum == nil {
		t.Fatal("no signature in a minute of timestamps holds + or /")
	}
	tests := []struct {
		name string
		sig  string
		want int
	}{
		{"standard, padded", base64.StdEncoding.EncodeToString(sum), 200},
		{"unpadded", base64.RawStdEncoding.EncodeToString(sum), 1253},
		{"URL-safe alphabet", base64.URLEncoding.EncodeToString(sum), 1253},
		{"hexadecimal", hex.EncodeToString(sum), 1253},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signedWith(t, "GET", venueapi.PathTiers, params, "", testAccess, testSecret, at, func(q url.Values) { q.Set("Signature", tt.sig) })
			if code, msg := a.errCode(t); code != tt.want {
				t.Fatalf("code %d %q, want %d", code, msg, tt.want)
			}
		})
	}
}

func TestDecisions_Signing_Timestamp_Within5MinutesEitherWay(t *testing.T) {
	v := start(t, sandbox.Config{})
	params := url.Values{"contract_code": {"BTC-USDT"}}
	now := v.clock.Now()
	tests := []struct {
		name     string
		at       time.Time
		code     int
		contains string
	}{
		{"4m59s behind", now.Add(-4*time.Minute - 59*time.Second), 200, ""},
		{"4m59s ahead", now.Add(4*time.Minute + 59*time.Second), 200, ""},
		{"exactly 5m behind", now.Add(-5 * time.Minute), 200, ""},
		{"exactly 5m ahead", now.Add(5 * time.Minute), 200, ""},
		{"5m01s behind", now.Add(-5*time.Minute - time.Second), 1253, "timestamp outside the 5-minute window"},
		{"5m01s ahead", now.Add(5*time.Minute + time.Second), 1253, "timestamp outside the 5-minute window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signedWith(t, "GET", venueapi.PathTiers, params, "", testAccess, testSecret, tt.at, nil)
			if code, msg := a.errCode(t); code != tt.code || !strings.Contains(msg, tt.contains) {
				t.Fatalf("code %d %q, want %d %q", code, msg, tt.code, tt.contains)
			}
		})
	}
	// A zone suffix is not the layout, even for the right instant.
	a := v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("Timestamp", q.Get("Timestamp")+"Z") })
	if code, msg := a.errCode(t); code != 1253 || !strings.Contains(msg, "YYYY-MM-DDThh:mm:ss") {
		t.Fatalf("a Timestamp with Z: code %d %q", code, msg)
	}
}

func TestDecisions_Signing_Timestamp_ExactlyYYYYMMDDThhmmssWithNoZoneOrFraction(t *testing.T) {
	v := start(t, sandbox.Config{})
	now := v.clock.Now().UTC()
	layout := now.Format(sign.TimestampLayout)
	const shape = "invalid Timestamp: must be YYYY-MM-DDThh:mm:ss in UTC: no zone, no fractional seconds"
	tests := []struct {
		name, timestamp string
		says            string // the refusal's message; "" for none
	}{
		{"the layout", layout, ""},
		{"a zone suffix", now.Format("2006-01-02T15:04:05Z"), shape},
		{"a numeric zone", now.Format("2006-01-02T15:04:05-07:00"), shape},
		{"fractional seconds", now.Format("2006-01-02T15:04:05.000"), shape},
		{"fractional seconds after a comma", layout + ",5", shape},
		{"a space for the T", now.Format("2006-01-02 15:04:05"), shape},
		{"epoch seconds", fmt.Sprint(now.Unix()), shape},
		{"the shape, but hour 24", now.Format("2006-01-02T") + "24:00:00", "invalid Timestamp: must be a real date and time of day"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Signed with this Timestamp, so that only its shape can be refused.
			a := v.do(t, v.signedWithTimestamp(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, tt.timestamp))
			code, msg := a.errCode(t)
			switch {
			case tt.says == "" && code != 200:
				t.Fatalf("code %d %q, want 200", code, msg)
			case tt.says != "" && (code != 1253 || a.status != http.StatusOK || !strings.Contains(msg, tt.says)):
				t.Fatalf("HTTP %d code %d %q, want HTTP 200 code 1253 saying %q", a.status, code, msg, tt.says)
			}
		})
	}
}

func TestDecisions_Signing_PostPayload_JSONBodyQueryFormAndTheSamplesGET(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		name, method, body string
		query              url.Values
	}{
		{"POST with a JSON body", "POST", `{"contract_code":"ETH-USDT"}`, nil},
		{"POST with the parameters in the query string", "POST", "", url.Values{"contract_code": {"ETH-USDT"}}},
		{"POST with a form body", "POST", "contract_code=ETH-USDT", nil},
		{"GET as in the spec's sample", "GET", "", url.Values{"contract_code": {"ETH-USDT"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signed(t, tt.method, venueapi.PathPositionLimit, tt.query, tt.body, nil)
			var env venueapi.LimitEnvelope
			a.json(t, &env)
			if env.Status != "ok" || len(env.Data) != 1 || env.Data[0].ContractCode != "ETH-USDT" {
				t.Fatalf("answer %s", a.body)
			}
		})
	}
	// The body is not signed: changing it after signing is no signature error.
	a := v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"BTC-USDT"}`, nil)
	var env venueapi.LimitEnvelope
	if a.json(t, &env); env.Status != "ok" || env.Data[0].ContractCode != "BTC-USDT" {
		t.Fatalf("answer %s", a.body)
	}
}

// A form body whose pair cannot be read is refused naming the pair and the
// rule, as a query string's is (docs/decisions.md#query-numbers).
func TestDecisions_Signing_PostPayload_ABrokenFormPairIsNamed(t *testing.T) {
	v := start(t, sandbox.Config{})
	for body, want := range map[string]string{
		"contract_code=ETH-USDT&pair=%zz": "invalid pair: must be valid percent-encoding",
		"contract_code=ETH-USDT;x":        "invalid contract_code: must not contain ';'",
	} {
		code, msg := v.signed(t, "POST", venueapi.PathPositionLimit, nil, body, nil).errCode(t)
		if code != venueapi.CodeInvalidInput || !strings.Contains(msg, want) {
			t.Errorf("body %q: code %d %q, want %d saying %q", body, code, msg, venueapi.CodeInvalidInput, want)
		}
	}
}

func TestDecisions_Signing_Permission_EndpointsOneAndTwoNeedRead(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, path := range []string{venueapi.PathTiers, venueapi.PathPositionLimit} {
		a := v.signedWith(t, "GET", path, url.Values{"contract_code": {"BTC-USDT"}}, "", "no-read", "s", v.clock.Now(), nil)
		if code, msg := a.errCode(t); code != venueapi.CodeForbidden || !strings.Contains(msg, "read permission") {
			t.Errorf("%s with a key without read: code %d %q, want 403", path, code, msg)
		}
	}
	// The public endpoint needs no key at all.
	if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1"); a.status != 200 {
		t.Fatalf("KLine without a key: HTTP %d", a.status)
	}
}

func TestDecisions_Signing_EachFailureHasItsOwnError(t *testing.T) {
	v := start(t, sandbox.Config{})
	params := url.Values{"contract_code": {"BTC-USDT"}}
	now := v.clock.Now
	tests := []struct {
		name     string
		send     func() answer
		code     int
		contains string
	}{
		{"a wrong secret", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", testAccess, "wrong", now(), nil)
		}, 1253, "does not match"},
		{"a parameter changed after signing", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("contract_code", "ETH-USDT") })
		}, 1253, "does not match"},
		{"a parameter added after signing", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("margin_mode", "cross") })
		}, 1253, "does not match"},
		{"an unknown key", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", "who", testSecret, now(), nil)
		}, 403, "unknown or disabled"},
		{"a disabled key", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", "disabled", "s", now(), nil)
		}, 403, "unknown or disabled"},
		{"a key without read permission", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, params, "", "no-read", "s", now(), nil)
		}, 403, "read permission"},
		{"a duplicated Signature", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Add("Signature", "x") })
		}, 1253, "Signature is given more than once"},
		{"a duplicated AccessKeyId", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Add("AccessKeyId", "other") })
		}, 1253, "AccessKeyId is given more than once"},
		{"another signature method", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("SignatureMethod", "HmacSHA1") })
		}, 1253, "SignatureMethod must be HmacSHA256"},
		{"another signature version", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Set("SignatureVersion", "1") })
		}, 1253, "SignatureVersion must be 2"},
		{"a malformed query string", func() answer {
			req := v.signedRequest(t, "GET", venueapi.PathTiers, params, testAccess, testSecret, now(), nil)
			req.URL.RawQuery += "&bad=%zz"
			return v.do(t, req)
		}, 1253, "invalid bad: must be valid percent-encoding"},
		{"a query string with a ';'", func() answer {
			req := v.signedRequest(t, "GET", venueapi.PathTiers, params, testAccess, testSecret, now(), nil)
			req.URL.RawQuery += "&bad=1;2"
			return v.do(t, req)
		}, 1253, "invalid bad: must not contain ';'"},
	}
	for _, p := range []string{"AccessKeyId", "SignatureMethod", "SignatureVersion", "Timestamp", "Signature"} {
		tests = append(tests, struct {
			name     string
			send     func() answer
			code     int
			contains string
		}{"a missing " + p, func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, params, "", func(q url.Values) { q.Del(p) })
		}, 1253, "missing parameter " + p})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.send()
			code, msg := a.errCode(t)
			if code != tt.code || !strings.Contains(msg, tt.contains) || a.status != http.StatusOK {
				t.Fatalf("HTTP %d code %d %q, want HTTP 200 code %d containing %q", a.status, code, msg, tt.code, tt.contains)
			}
			if strings.Contains(string(a.body), testSecret) {
				t.Fatal("the answer repeats the secret")
			}
		})
	}
}

// --- Errors ---

func TestDecisions_Errors_Endpoint1ErrorBody_IsCodeMessageNullDataTs(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}, "margin_mode": {"isolated"}}, "", nil)
	var body map[string]json.RawMessage
	a.json(t, &body)
	var code int
	var msg string
	var ts int64
	json.Unmarshal(body["code"], &code)
	json.Unmarshal(body["message"], &msg)
	json.Unmarshal(body["ts"], &ts)
	if len(body) != 4 || code != 1030 || !strings.Contains(msg, "margin_mode") || string(body["data"]) != "null" || ts != v.clock.Now().UnixMilli() {
		t.Fatalf("tier error body %s", a.body)
	}
}

func TestDecisions_Errors_Endpoints2And3ErrorBody_IsStatusErrCodeErrMsgTs(t *testing.T) {
	v := start(t, sandbox.Config{})
	for name, a := range map[string]answer{
		"KLine":           v.kline(t, "contract_code=BTC-USDT&period=7min"),
		"position limits": v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"business_type":"spot"}`, nil),
	} {
		var body map[string]json.RawMessage
		a.json(t, &body)
		var e venueapi.StatusErrorBody
		a.json(t, &e)
		if len(body) != 4 || e.Status != "error" || e.ErrCode != 1030 || e.ErrMsg == "" || e.Ts != v.clock.Now().UnixMilli() {
			t.Errorf("%s error body %s", name, a.body)
		}
	}
}

func TestDecisions_Errors_CodesAndTheirHTTPStatus(t *testing.T) {
	v := start(t, sandbox.Config{PrivateLimit: venueapi.Limit{Requests: 1, Per: time.Minute}})
	tiers := url.Values{"contract_code": {"BTC-USDT"}}
	tests := []struct {
		name   string
		send   func() answer
		status int
		code   int
	}{
		{"403 unknown key", func() answer {
			return v.signedWith(t, "GET", venueapi.PathTiers, tiers, "", "who", "s", v.clock.Now(), nil)
		}, 200, 403},
		{"1013 no such contract", func() answer { return v.kline(t, "contract_code=ABC-USDT&period=1min") }, 200, 1013},
		{"1030 invalid input", func() answer { return v.kline(t, "contract_code=BTC-USDT&period=1min&size=0") }, 200, 1030},
		{"1253 bad signature", func() answer {
			// A key the sandbox has: an unknown one counts against the IP, which the 403 spent.
			return v.signedWith(t, "GET", venueapi.PathTiers, tiers, "", "no-read", "s", v.clock.Now(), func(q url.Values) { q.Del("Timestamp") })
		}, 200, 1253},
		{"1032 over the limit", func() answer {
			v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil)
			return v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil)
		}, 429, 1032},
		{"1004 busy, the venue's own fault", func() answer {
			v.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: {Rate5xx: 1}}})
			defer v.sb.SetFaults(sandbox.Faults{})
			return v.kline(t, "contract_code=BTC-USDT&period=1min")
		}, 503, 1004},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.send()
			if code, msg := a.errCode(t); a.status != tt.status || code != tt.code {
				t.Fatalf("HTTP %d code %d %q, want HTTP %d code %d", a.status, code, msg, tt.status, tt.code)
			}
		})
	}
}

func TestDecisions_Errors_RateLimitHeadersOnEveryAnswerOfEndpoints1And2(t *testing.T) {
	v := start(t, sandbox.Config{})
	tiers := url.Values{"contract_code": {"BTC-USDT"}}
	answers := map[string]answer{
		"a success":              v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil),
		"a position limit":       v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{}`, nil),
		"an invalid parameter":   v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC"}}, "", nil),
		"a bad signature":        v.signedWith(t, "GET", venueapi.PathTiers, tiers, "", testAccess, "wrong", v.clock.Now(), nil),
		"an unknown key":         v.signedWith(t, "GET", venueapi.PathTiers, tiers, "", "who", "s", v.clock.Now(), nil),
		"no signature at all":    v.do(t, mustRequest(t, "GET", v.url+venueapi.PathTiers+"?contract_code=BTC-USDT")),
		"an unlisted contract":   v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"ABC-USDT"}}, "", nil),
		"a position limit error": v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"pair":"x"}`, nil),
	}
	for name, a := range answers {
		if a.header.Get("ratelimit-limit") != "72" || a.header.Get("ratelimit-interval") != "3000" ||
			a.header.Get("ratelimit-remaining") == "" || a.header.Get("ratelimit-reset") == "" {
			t.Errorf("%s: headers %v", name, a.header)
		}
	}
	// The remaining count falls by one per request of the key; reset is what is left of 3 s.
	first := v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil)
	v.clock.Set(v.clock.Now().Add(time.Second))
	second := v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil)
	r1, r2 := first.header.Get("ratelimit-remaining"), second.header.Get("ratelimit-remaining")
	if r1 == "" || r2 == "" || atoi(t, r1)-1 != atoi(t, r2) {
		t.Errorf("remaining %s then %s, want one less", r1, r2)
	}
	if reset := atoi(t, second.header.Get("ratelimit-reset")); reset <= 0 || reset > 2000 {
		t.Errorf("reset %d ms a second into the window", reset)
	}
}

// --- Limits ---

func TestDecisions_Limits_Private_72Per3sPerKey_SharedByBothEndpoints(t *testing.T) {
	v := start(t, sandbox.Config{Keys: []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}, {Access: "second", Secret: "s2", Read: true}}})
	tiers := url.Values{"contract_code": {"BTC-USDT"}}
	for i := range 72 {
		var a answer
		if i%2 == 0 {
			a = v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil)
		} else {
			a = v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"BTC-USDT"}`, nil)
		}
		if a.status != 200 {
			t.Fatalf("request %d: HTTP %d %s", i+1, a.status, a.body)
		}
	}
	// Half a second into the window, 2.5 s are left of it: Retry-After, in
	// whole seconds, rounds that up, never down to a retry that fails again.
	v.clock.Set(v.clock.Now().Add(500 * time.Millisecond))
	a := v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{}`, nil)
	if code, _ := a.errCode(t); a.status != http.StatusTooManyRequests || code != 1032 || a.header.Get("ratelimit-remaining") != "0" || a.header.Get("Retry-After") != "3" {
		t.Fatalf("73rd: HTTP %d code %d headers %v, want 429 1032 with none remaining, Retry-After 3", a.status, code, a.header)
	}
	if b := v.signedWith(t, "GET", venueapi.PathTiers, tiers, "", "second", "s2", v.clock.Now(), nil); b.status != 200 {
		t.Fatalf("another key shares the quota: HTTP %d", b.status)
	}
	v.clock.Set(v.clock.Now().Add(3 * time.Second))
	if a := v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil); a.status != 200 {
		t.Fatalf("after the window: HTTP %d", a.status)
	}
}

func TestDecisions_Limits_Public_800PerSecondPerClientIP(t *testing.T) {
	v := start(t, sandbox.Config{})
	for i := range 800 {
		if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1"); a.status != 200 {
			t.Fatalf("request %d: HTTP %d", i+1, a.status)
		}
	}
	a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1")
	if code, _ := a.errCode(t); a.status != http.StatusTooManyRequests || code != 1032 {
		t.Fatalf("801st: HTTP %d code %d, want 429 1032", a.status, code)
	}
	// The private endpoints have their own quota.
	if b := v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil); b.status != 200 {
		t.Fatalf("tiers after the public quota ran out: HTTP %d", b.status)
	}
	v.clock.Set(v.clock.Now().Add(time.Second))
	if a := v.kline(t, "contract_code=BTC-USDT&period=1min&size=1"); a.status != 200 {
		t.Fatalf("a second later: HTTP %d", a.status)
	}
}

func TestDecisions_Limits_Counting_ARequestCountsWhenItArrivesEvenIfItFails(t *testing.T) {
	v := start(t, sandbox.Config{})
	tiers := url.Values{"contract_code": {"BTC-USDT"}}
	for range 36 {
		v.signedWith(t, "GET", venueapi.PathTiers, tiers, "", testAccess, "wrong", v.clock.Now(), nil)
		v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"NOPE-USDT"}}, "", nil)
	}
	if a := v.signed(t, "GET", venueapi.PathTiers, tiers, "", nil); a.status != http.StatusTooManyRequests {
		t.Fatalf("HTTP %d after 72 failed requests, want 429", a.status)
	}
	for range 800 {
		v.kline(t, "contract_code=BTC-USDT&period=2min")
	}
	if a := v.kline(t, "contract_code=BTC-USDT&period=1min"); a.status != http.StatusTooManyRequests {
		t.Fatalf("HTTP %d after 800 invalid KLine requests, want 429", a.status)
	}
}

// --- KLine ---

func TestDecisions_KLine_NoneOfSizeFromTo_IsSize150(t *testing.T) {
	v := start(t, sandbox.Config{})
	got := v.candles(t, "contract_code=BTC-USDT&period=1min")
	if len(got) != 150 || got[149].ID != venueapi.Period1Min.Start(testNow.Unix()) {
		t.Fatalf("got %d candles, want the latest 150", len(got))
	}
}

func TestDecisions_KLine_FromWithoutTo_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, q := range []string{"from=1795000000", "from=1795000000&size=5", "from=abc&size=5"} {
		a := v.kline(t, "contract_code=BTC-USDT&period=1min&"+q)
		if code, msg := a.errCode(t); code != 1030 || a.status != 200 || !strings.Contains(msg, "to") {
			t.Errorf("%s: HTTP %d code %d %q, want HTTP 200 code 1030 naming to", q, a.status, code, msg)
		}
	}
}

func TestDecisions_KLine_ToWithoutFrom_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, q := range []string{"to=1795000000", "to=1795000000&size=5", "to=abc&size=5"} {
		a := v.kline(t, "contract_code=BTC-USDT&period=1min&"+q)
		if code, msg := a.errCode(t); code != 1030 || a.status != 200 || !strings.Contains(msg, "from") {
			t.Errorf("%s: HTTP %d code %d %q, want HTTP 200 code 1030 naming from", q, a.status, code, msg)
		}
	}
}

// Ignored means not read: with size, from and to may hold anything, any
// number of times; only that both are there matters (one alone is 1030).
func TestDecisions_KLine_SizeWithFromAndTo_SizeWins(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, tt := range []struct{ name, fromTo string }{
		{"a range in seconds", "from=1700000000&to=1700000600"},
		{"a range in milliseconds", "from=1700000000000&to=1700000600000"},
		{"from and to that are not numbers", "from=abc&to=def"},
		{"from and to empty", "from=&to="},
		{"from and to with signs and leading zeros", "from=-5&to=%2B0060"},
		{"from after to", "from=1795000600&to=1795000000"},
		{"a range of more than 2000 candles", "from=0&to=1795000000"},
		{"from and to given twice", "from=1&from=2&to=3&to=abc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := v.candles(t, "contract_code=BTC-USDT&period=1min&size=7&"+tt.fromTo)
			if len(got) != 7 || got[6].ID != venueapi.Period1Min.Start(testNow.Unix()) {
				t.Fatalf("got %d candles, want the latest 7", len(got))
			}
		})
	}
}

func TestDecisions_KLine_FromToRange_InclusiveAscending(t *testing.T) {
	v := start(t, sandbox.Config{})
	from := venueapi.Period5Min.Start(testNow.Add(-10 * time.Hour).Unix())
	to := from + 300*10
	got := v.candles(t, fmt.Sprintf("contract_code=ETH-USDT&period=5min&from=%d&to=%d", from, to))
	if len(got) != 11 || got[0].ID != from || got[10].ID != to {
		t.Fatalf("got %d candles, want 11 from %d to %d inclusive", len(got), from, to)
	}
	// Bounds that are not aligned hold the candles that start inside them.
	got = v.candles(t, fmt.Sprintf("contract_code=ETH-USDT&period=5min&from=%d&to=%d", from+1, to-1))
	if len(got) != 9 || got[0].ID != from+300 || got[8].ID != to-300 {
		t.Fatalf("unaligned bounds: got %d candles", len(got))
	}
}

func TestDecisions_KLine_FromToRange_Over2000Candles_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	to := venueapi.Period1Min.Start(testNow.Unix())
	a := v.kline(t, fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", to-2000*60, to))
	if code, msg := a.errCode(t); code != 1030 || !strings.Contains(msg, "2000") {
		t.Fatalf("code %d %q, want 1030 naming the 2000 limit", code, msg)
	}
	if n := len(v.candles(t, fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", to-1999*60, to))); n != 2000 {
		t.Fatalf("exactly 2000: got %d", n)
	}
}

func TestDecisions_KLine_FromToRange_FromAfterTo_Is1030(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.kline(t, "contract_code=BTC-USDT&period=1min&from=1795000600&to=1795000000")
	if code, msg := a.errCode(t); code != 1030 || !strings.Contains(msg, "from") {
		t.Fatalf("code %d %q, want 1030", code, msg)
	}
}

func TestDecisions_KLine_SizeN_IsTheLatestNEndingWithTheOpenCandle(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, p := range venueapi.Periods() {
		got := v.candles(t, "contract_code=SOL-USDT&period="+string(p)+"&size=20")
		if len(got) != 20 {
			t.Fatalf("%s: %d candles", p, len(got))
		}
		if last := got[19].ID; last != p.Start(testNow.Unix()) {
			t.Errorf("%s: last candle %d is not the open one %d", p, last, p.Start(testNow.Unix()))
		}
		for i := 1; i < len(got); i++ {
			if got[i].ID != p.Next(got[i-1].ID) {
				t.Errorf("%s: candle %d at %d does not follow %d", p, i, got[i].ID, got[i-1].ID)
			}
		}
	}
}

func TestDecisions_KLine_Alignment(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, p := range venueapi.Periods() {
		for _, c := range v.candles(t, "contract_code=BTC-USDT&period="+string(p)+"&size=50") {
			tm := time.Unix(c.ID, 0).UTC()
			aligned := c.ID%max(p.Seconds(), 1) == 0
			if p == venueapi.Period1Mon {
				aligned = tm.Day() == 1 && tm.Hour() == 0 && tm.Minute() == 0 && tm.Second() == 0
			}
			if p == venueapi.Period1Day {
				aligned = aligned && tm.Hour() == 0
			}
			if !aligned {
				t.Errorf("%s candle at %s is not aligned", p, tm)
			}
		}
	}
}

func TestDecisions_KLine_Alignment_60minAnd1hourAreOneSeries(t *testing.T) {
	v := start(t, sandbox.Config{})
	a := v.kline(t, "contract_code=BTC-USDT&period=60min&size=30")
	b := v.kline(t, "contract_code=BTC-USDT&period=1hour&size=30")
	if strings.Replace(string(a.body), "kline.60min", "kline.1hour", 1) != string(b.body) {
		t.Fatalf("60min and 1hour differ:\n%s\n%s", a.body, b.body)
	}
}

func TestDecisions_KLine_HistoryDepth_NoCandleStartsBeforeTwoYearsBack(t *testing.T) {
	// testNow is in no period's first second, so the candle holding its
	// horizon starts before the horizon; at the start of a month it starts
	// on it.
	for _, now := range []time.Time{testNow, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)} {
		v := start(t, sandbox.Config{})
		v.clock.Set(now)
		horizon := now.AddDate(-2, 0, 0).Unix()
		for _, p := range venueapi.Periods() {
			first := p.Ceil(horizon) // the oldest candle the venue may answer
			// The candle holding the horizon is answered only when it starts on it.
			holding, holdingCount := int64(0), int64(0)
			if first == horizon {
				holding, holdingCount = first, 1
			}
			tests := []struct {
				name  string
				query string
				first int64 // the first id answered; 0: data is empty
				count int64
			}{
				{"a range ending just before the horizon", fmt.Sprintf("from=%d&to=%d", p.Back(p.Start(horizon), 5), horizon-1), 0, 0},
				{"a range ending at the candle holding the horizon", fmt.Sprintf("from=%d&to=%d", p.Back(p.Start(horizon), 5), p.Start(horizon)), holding, holdingCount},
				{"a range across the horizon", fmt.Sprintf("from=%d&to=%d", p.Back(p.Start(horizon), 5), ahead(p, first, 5)), first, 6},
				{"a range in 2017", fmt.Sprintf("from=%d&to=%d", p.Start(1500000000), ahead(p, p.Start(1500000000), 20)), 0, 0},
				{"size=2000", "size=2000", max(first, p.Back(p.Start(now.Unix()), 1999)), min(p.Count(horizon, now.Unix()), 2000)},
			}
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s/%s/%s", now.Format("Jan 2 15:04:05"), p, tt.name), func(t *testing.T) {
					a := v.kline(t, "contract_code=ETH-USDT&period="+string(p)+"&"+tt.query)
					var env venueapi.KLineEnvelope
					a.json(t, &env)
					if env.Status != "ok" {
						t.Fatalf("%s", a.body)
					}
					for _, c := range env.Data {
						if c.ID < horizon {
							t.Fatalf("candle %d (%s) starts before the horizon %s", c.ID, time.Unix(c.ID, 0).UTC(), time.Unix(horizon, 0).UTC())
						}
					}
					if tt.first == 0 {
						if !strings.Contains(string(a.body), `"data":[]`) {
							t.Fatalf("%d candles from %s, want an empty data array", len(env.Data), time.Unix(env.Data[0].ID, 0).UTC())
						}
						return
					}
					if len(env.Data) == 0 || env.Data[0].ID != tt.first || int64(len(env.Data)) != tt.count {
						t.Fatalf("%d candles, want %d from %s: %.300s", len(env.Data), tt.count, time.Unix(tt.first, 0).UTC(), a.body)
					}
				})
			}
		}
	}
}

// ahead is the id n candles of period p after id.
func ahead(p venueapi.Period, id int64, n int) int64 {
	for range n {
		id = p.Next(id)
	}
	return id
}

func TestDecisions_KLine_ContractTypeCodes_NameTheCurrentFutureAndEchoInCh(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, typ := range []venueapi.ContractType{venueapi.TypeThisWeek, venueapi.TypeNextWeek, venueapi.TypeQuarter, venueapi.TypeNextQuarter} {
		code := "BTC-USDT-" + venueapi.TypeCodeSuffix(typ)
		a := v.kline(t, "contract_code="+code+"&period=5min&size=3")
		var env venueapi.KLineEnvelope
		a.json(t, &env)
		dated := v.marketOf(t, "BTC-USDT", typ).Code
		b := v.kline(t, "contract_code="+dated+"&period=5min&size=3")
		if env.Ch != "market."+code+".kline.5min" || len(env.Data) != 3 {
			t.Fatalf("%s: ch %q, %d candles", code, env.Ch, len(env.Data))
		}
		if strings.Replace(string(a.body), code, dated, 1) != string(b.body) {
			t.Errorf("%s and %s answer different candles", code, dated)
		}
	}
}

func TestDecisions_KLine_Consistency_ALongerCandleIsTheAggregateOfTheShorterOnes(t *testing.T) {
	v := start(t, sandbox.Config{})
	// The open day, as it stands now, is the aggregate of its minutes so far.
	day := venueapi.Period1Day.Start(testNow.Unix())
	long := v.candles(t, "contract_code=ETH-USDT&period=1day&size=1")
	short := v.candles(t, fmt.Sprintf("contract_code=ETH-USDT&period=1min&from=%d&to=%d", day, testNow.Unix()))
	if got, want := long[0], aggregate(short); !got.Equal(want) {
		t.Fatalf("the open day is not the aggregate of its %d minutes:\n got %+v\nwant %+v", len(short), got, want)
	}
}

// --- Contracts ---

func TestDecisions_Contracts_Codes_MalformedIs1030_UnlistedIs1013(t *testing.T) {
	v := start(t, sandbox.Config{})
	for code, want := range map[string]int{
		"btc-usdt": 1030, "BTC_USDT": 1030, "BTC-USDT-991399": 1030, "BTC-USDT-XX": 1030, "BTC-USDT-261127-1": 1030, "": 1030,
		"ABC-USDT": 1013, "BTC-USD": 1013, "BTC-USDT-200103": 1013, "SOL-USDT-CQ": 1013, "LTC-USDT-261225": 1013,
	} {
		if got, msg := v.kline(t, "contract_code="+url.QueryEscape(code)+"&period=1min").errCode(t); got != want {
			t.Errorf("%q: code %d %q, want %d", code, got, msg, want)
		}
	}
}

func TestDecisions_Contracts_Codes_UnlistedIs1013OnBothPrivateEndpoints_NeverAnEmptyList(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		name, method, path string
		query              url.Values
		body               string
		code               int
		names              string   // what the error message names
		want               []string // the contract codes answered; nil for an error
	}{
		{"tiers of an unlisted swap", "GET", venueapi.PathTiers, url.Values{"contract_code": {"ZZZ-USDT"}}, "", 1013, "unknown contract_code: the venue does not list ZZZ-USDT", nil},
		{"limits of an unlisted swap", "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"ZZZ-USDT"}`, 1013, "unknown contract_code: the venue does not list ZZZ-USDT", nil},
		{"limits of an unlisted dated future", "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"BTC-USDT-991231","business_type":"futures"}`, 1013, "unknown contract_code: the venue does not list BTC-USDT-991231", nil},
		{"limits of an unlisted pair", "POST", venueapi.PathPositionLimit, nil, `{"pair":"ZZZ-USDT"}`, 1013, "unknown pair: the venue does not list ZZZ-USDT", nil},
		{"limits of an unlisted pair, every business type", "POST", venueapi.PathPositionLimit, nil, `{"pair":"ZZZ-USDT","business_type":"all"}`, 1013, "unknown pair: the venue does not list ZZZ-USDT", nil},
		{"limits of a pair in another quote asset", "POST", venueapi.PathPositionLimit, nil, `{"pair":"BTC-USDC","contract_type":"quarter","business_type":"futures"}`, 1013, "unknown pair: the venue does not list BTC-USDC", nil},
		{"limits of an unlisted pair as in the spec's GET sample", "GET", venueapi.PathPositionLimit, url.Values{"pair": {"ZZZ-USDT"}}, "", 1013, "unknown pair: the venue does not list ZZZ-USDT", nil},
		{"a listed pair without futures is an empty list", "POST", venueapi.PathPositionLimit, nil, `{"pair":"SOL-USDT","business_type":"futures"}`, 200, "", []string{}},
		{"contract_code wins over an unlisted pair", "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"ETH-USDT","pair":"ZZZ-USDT"}`, 200, "", []string{"ETH-USDT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := v.signed(t, tt.method, tt.path, tt.query, tt.body, nil)
			code, msg := a.errCode(t)
			if a.status != http.StatusOK || code != tt.code || !strings.Contains(msg, tt.names) {
				t.Fatalf("HTTP %d code %d %q, want HTTP 200 code %d naming %q", a.status, code, msg, tt.code, tt.names)
			}
			if tt.path == venueapi.PathPositionLimit && tt.want == nil {
				var e venueapi.StatusErrorBody
				if a.json(t, &e); e.Status != "error" || e.ErrCode != tt.code {
					t.Fatalf("not the status envelope: %s", a.body)
				}
			}
			if tt.want == nil {
				return
			}
			var env venueapi.LimitEnvelope
			a.json(t, &env)
			got := []string{}
			for _, p := range env.Data {
				got = append(got, p.ContractCode)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDecisions_Contracts_FuturesCalendar(t *testing.T) {
	tests := []struct {
		name string
		now  time.Time
		want [4]string // this_week, next_week, quarter, next_quarter as YYMMDD
	}{
		{"a Sunday in late November", time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), [4]string{"261127", "261204", "261225", "270326"}},
		{"a Friday before 08:00 delivers that day", time.Date(2026, 11, 27, 7, 59, 59, 0, time.UTC), [4]string{"261127", "261204", "261225", "270326"}},
		{"a Friday at 08:00 rolls to the next week", time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC), [4]string{"261204", "261211", "261225", "270326"}},
		{"within two weeks of a quarter, it is a weekly and the quarter moves on", time.Date(2026, 12, 14, 0, 0, 0, 0, time.UTC), [4]string{"261218", "261225", "270326", "270625"}},
		{"across a year end", time.Date(2026, 12, 26, 0, 0, 0, 0, time.UTC), [4]string{"270101", "270108", "270326", "270625"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := start(t, sandbox.Config{Now: func() time.Time { return tt.now }})
			for i, typ := range []venueapi.ContractType{venueapi.TypeThisWeek, venueapi.TypeNextWeek, venueapi.TypeQuarter, venueapi.TypeNextQuarter} {
				for _, base := range []string{"BTC", "ETH"} {
					m := v.marketOf(t, base+"-USDT", typ)
					if m.Code != base+"-USDT-"+tt.want[i] || m.Delivery.Weekday() != time.Friday || m.Delivery.Hour() != 8 || m.Kind != venueapi.KindFuture {
						t.Errorf("%s %s: %s delivering %s, want %s on a Friday at 08:00 UTC", base, typ, m.Code, m.Delivery, tt.want[i])
					}
				}
			}
			if n := len(v.sb.Markets()); n != 7+2*4 {
				t.Errorf("%d markets, want seven swaps and four futures of BTC and ETH", n)
			}
		})
	}
}

func TestDecisions_Contracts_FaceValue_MakesAmountAndTurnover(t *testing.T) {
	v := start(t, sandbox.Config{})
	want := map[string]string{"BTC": "0.001", "ETH": "0.01", "SOL": "1", "XRP": "10", "DOGE": "100", "LTC": "0.1", "SHIB": "1000"}
	for _, m := range v.sb.Markets() {
		if m.FaceValue.String() != want[m.Base] {
			t.Errorf("%s: face value %s, want %s", m.Code, m.FaceValue, want[m.Base])
		}
		for _, c := range v.candles(t, "contract_code="+m.Code+"&period=15min&size=20") {
			if !c.Amount.Equal(c.Vol.Mul(m.FaceValue)) {
				t.Errorf("%s: amount %s != vol %s × face %s", m.Code, c.Amount, c.Vol, m.FaceValue)
			}
			notional := c.Vol.Mul(m.FaceValue)
			if c.TradeTurnover.LessThan(notional.Mul(c.Low)) || c.TradeTurnover.GreaterThan(notional.Mul(c.High)) {
				t.Errorf("%s: turnover %s outside vol × face × [low, high] = [%s, %s]", m.Code, c.TradeTurnover, notional.Mul(c.Low), notional.Mul(c.High))
			}
		}
	}
}

func TestDecisions_Contracts_PositionLimits_FromTheLeverRateBandAndTheMarkPrice(t *testing.T) {
	levers := map[string]int{"BTC-USDT": 5, "ETH-USDT": 150, "SOL-USDT": 75, "XRP-USDT": 20, "BTC-USDT-CQ": 40}
	v := start(t, sandbox.Config{LeverRates: levers})
	face := map[string]decimal.Decimal{}
	for _, m := range v.sb.Markets() {
		face[m.Code] = m.FaceValue
	}
	a := v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"business_type":"all"}`, nil)
	var env venueapi.LimitEnvelope
	a.json(t, &env)
	if env.Status != "ok" || len(env.Data) != 15 {
		t.Fatalf("business_type all: %s", a.body)
	}
	quarter := v.marketOf(t, "BTC-USDT", venueapi.TypeQuarter).Code
	for _, p := range env.Data {
		tiers := v.tiersOf(t, p.Pair)
		want := levers[p.ContractCode]
		if p.ContractCode == quarter {
			want = levers["BTC-USDT-CQ"]
		}
		if want == 0 {
			want = 10
		}
		if p.LeverRate != want {
			t.Errorf("%s: lever_rate %d, want %d", p.ContractCode, p.LeverRate, want)
		}
		// The value is the top of the last tier whose leverage allows lever_rate.
		var band venueapi.Tier
		for _, tr := range tiers {
			if tr.MaxLever.GreaterThanOrEqual(decimal.NewFromInt(int64(p.LeverRate))) {
				band = tr
			}
		}
		value := band.MaxVolume
		if band.VolumeUnit == "contract" {
			value = value.Mul(face[p.ContractCode]).Mul(p.MarkPrice)
		}
		if !p.BuyLimitValue.Equal(value) || !p.SellLimitValue.Equal(value) {
			t.Errorf("%s at %dx: limit value %s / %s, want %s (tier %d)", p.ContractCode, p.LeverRate, p.BuyLimitValue, p.SellLimitValue, value, band.Tier)
		}
		perContract := p.MarkPrice.Mul(face[p.ContractCode])
		if !p.BuyLimit.Equal(p.BuyLimitValue.Div(perContract).Floor()) || !p.SellLimit.Equal(p.SellLimitValue.Div(perContract).Floor()) {
			t.Errorf("%s: buy_limit %s, sell_limit %s, want floor(value / (%s × %s))", p.ContractCode, p.BuyLimit, p.SellLimit, p.MarkPrice, face[p.ContractCode])
		}
		last := v.candles(t, "contract_code="+p.ContractCode+"&period=1min&size=1")
		if !p.MarkPrice.Equal(last[0].Close) {
			t.Errorf("%s: mark price %s, the latest price %s", p.ContractCode, p.MarkPrice, last[0].Close)
		}
	}
}

func TestDecisions_Contracts_NumbersOnTheWire_DecimalsAsNumbersTiersAsStrings(t *testing.T) {
	v := start(t, sandbox.Config{})
	kline := string(v.kline(t, "contract_code=BTC-USDT&period=1min&size=2").body)
	for _, f := range []string{"vol", "count", "open", "close", "low", "high", "amount", "trade_turnover"} {
		if !strings.Contains(kline, `"`+f+`":`) || strings.Contains(kline, `"`+f+`":"`) {
			t.Errorf("KLine %s is not a JSON number: %s", f, kline)
		}
	}
	limits := string(v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"BTC-USDT"}`, nil).body)
	for _, f := range []string{"buy_limit", "sell_limit", "lever_rate", "buy_limit_value", "sell_limit_value", "mark_price"} {
		if !strings.Contains(limits, `"`+f+`":`) || strings.Contains(limits, `"`+f+`":"`) {
			t.Errorf("position limit %s is not a JSON number: %s", f, limits)
		}
	}
	tiers := string(v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"BTC-USDT"}}, "", nil).body)
	for _, f := range []string{"max_lever", "maintenance_margin_rate", "max_volume", "min_volume"} {
		if !strings.Contains(tiers, `"`+f+`":"`) {
			t.Errorf("tier %s is not a string: %s", f, tiers)
		}
	}
}

// docs/decisions.md#error-codes: a 1013 names the parameter and the value the
// venue does not list, on every endpoint.
func TestDecisions_Errors_Codes_1013NamesTheParameterAndTheValue(t *testing.T) {
	v := start(t, sandbox.Config{})
	tests := []struct {
		name string
		send func() answer
		want string
	}{
		{"candles", func() answer { return v.kline(t, "contract_code=ZZZ-USDT&period=1min") }, "unknown contract_code: the venue does not list ZZZ-USDT"},
		{"tiers", func() answer {
			return v.signed(t, "GET", venueapi.PathTiers, url.Values{"contract_code": {"ZZY-USDT"}}, "", nil)
		}, "unknown contract_code: the venue does not list ZZY-USDT"},
		{"limits of a code", func() answer {
			return v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"contract_code":"ZZX-USDT"}`, nil)
		}, "unknown contract_code: the venue does not list ZZX-USDT"},
		{"limits of a pair", func() answer {
			return v.signed(t, "POST", venueapi.PathPositionLimit, nil, `{"pair":"ZZW-USDT"}`, nil)
		}, "unknown pair: the venue does not list ZZW-USDT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, msg := tt.send().errCode(t); code != 1013 || msg != tt.want {
				t.Fatalf("code %d %q, want 1013 %q", code, msg, tt.want)
			}
		})
	}
}

// docs/decisions.md#query-numbers: a from or to in plain digits that is past
// the last second the venue reads is 1030 with a message that names that
// bound, not one that repeats rules the value keeps.
func TestDecisions_KLine_QueryNumbers_ATimestampPastTheBoundNamesIt(t *testing.T) {
	v := start(t, sandbox.Config{})
	for _, q := range []string{"from=0&to=1099511627777", "from=1099511627777&to=1099511627778"} {
		a := v.kline(t, "contract_code=BTC-USDT&period=1mon&"+q)
		if code, msg := a.errCode(t); code != 1030 || !strings.Contains(msg, "1099511627776") {
			t.Errorf("%s: code %d %q, want 1030 naming the bound 1099511627776", q, code, msg)
		}
	}
}
