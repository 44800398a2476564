package gateway_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestOffLoopbackTheServerRefusesToStartWithoutViewerTokens(t *testing.T) {
	client, err := venue.New(venue.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.New(gateway.Config{Venue: client, Public: true}); !errors.Is(err, gateway.ErrNoViewerTokens) {
		t.Fatalf("New off loopback without tokens: %v, want ErrNoViewerTokens", err)
	}
	if _, err := gateway.New(gateway.Config{Venue: client, Public: true, ViewerTokens: []venue.Secret{testViewer}, AllowedHosts: []string{"charts.example"}}); err != nil {
		t.Fatalf("New off loopback with a token: %v", err)
	}
	// An empty token's cookie would be the MAC of an empty key, which anyone can make.
	_, err = gateway.New(gateway.Config{Venue: client, Public: true, ViewerTokens: []venue.Secret{testViewer, ""}, AllowedHosts: []string{"charts.example"}})
	if err == nil || !strings.Contains(err.Error(), "viewer token 2 is empty") {
		t.Fatalf("New with an empty viewer token: %v, want it refused, naming the token", err)
	}
	// A token short enough to guess opens the private paths to anyone who tries.
	_, err = gateway.New(gateway.Config{Venue: client, Public: true, ViewerTokens: []venue.Secret{"fifteen-chars-x"}, AllowedHosts: []string{"charts.example"}})
	if err == nil || !strings.Contains(err.Error(), "viewer token 1 has 15 characters: a viewer token takes at least 16") || strings.Contains(err.Error(), "fifteen") {
		t.Fatalf("New with a 15-character viewer token: %v, want it refused, naming the rule and not the token", err)
	}
	if _, err := gateway.New(gateway.Config{Venue: client, Public: true, ViewerTokens: []venue.Secret{"sixteen-chars-xy"}, AllowedHosts: []string{"charts.example"}}); err != nil {
		t.Fatalf("New with a 16-character viewer token: %v", err)
	}
}

// TestTheCSPTakesOnlyHashesForInlineScripts: Config.ScriptSources is copied
// into the Content-Security-Policy's script-src, so New takes hash sources
// alone, each allowing one script, and names anything else.
func TestTheCSPTakesOnlyHashesForInlineScripts(t *testing.T) {
	client, err := venue.New(venue.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		source  string
		wantErr bool
	}{
		{"'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='", false},
		{"'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=='", false},
		{"'unsafe-inline'", true},
		{"'sha256-AAAA'; script-src *", true},
		{"sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", true}, // unquoted: a host name to the browser
		{"'sha1-AAAA'", true},
		{"*", true},
	} {
		_, err := gateway.New(gateway.Config{Venue: client, ScriptSources: []string{tc.source}})
		switch {
		case !tc.wantErr && err != nil:
			t.Errorf("New with script source %s: %v", tc.source, err)
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.source))):
			t.Errorf("New with script source %s: %v, want an error naming it", tc.source, err)
		}
	}
}

func TestPrivatePathsAnswerLocalBrowsersOrViewersAndKLineEveryone(t *testing.T) {
	local := newStack(t, options{})
	public := newStack(t, options{gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens = true, []venue.Secret{"another-viewer-token", testViewer}
		c.AllowedHosts = []string{"charts.example"}
	}})
	cookie := loginCookie(t, public)
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	kline := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5"
	for _, tc := range []struct {
		name       string
		s          *stack
		path       string
		header     []string
		wantStatus int
	}{
		// A refusal is answered as the venue answers an unknown key: HTTP 200, code 403.
		{"on loopback, tiers need nothing", local, tiers, nil, 200},
		{"on loopback, limits need nothing", local, venueapi.PathPositionLimit, nil, 200},
		{"off loopback, tiers without a token", public, tiers, nil, accessRefused},
		{"off loopback, limits without a token", public, venueapi.PathPositionLimit, nil, accessRefused},
		{"off loopback, a wrong bearer token", public, tiers, []string{"Authorization", "Bearer wrong"}, accessRefused},
		{"off loopback, a token's prefix", public, tiers, []string{"Authorization", "Bearer " + testViewer[:5]}, accessRefused},
		{"off loopback, a token not as bearer", public, tiers, []string{"Authorization", testViewer}, accessRefused},
		{"off loopback, a token as the cookie", public, tiers, []string{"Cookie", "riskchart_viewer=" + testViewer}, accessRefused},
		{"off loopback, a forged cookie", public, tiers, []string{"Cookie", "riskchart_viewer=AAAA"}, accessRefused},
		{"off loopback, the bearer token", public, tiers, []string{"Authorization", "Bearer " + testViewer}, 200},
		{"off loopback, the login cookie", public, tiers, []string{"Cookie", cookie.Name + "=" + cookie.Value}, 200},
		{"off loopback, limits with the login cookie", public, venueapi.PathPositionLimit, []string{"Cookie", cookie.Name + "=" + cookie.Value}, 200},
		{"off loopback, KLine is public", public, kline, nil, 200},
		{"off loopback, the contracts are public", public, venueapi.PathContracts, nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.s.get(t, tc.path, tc.header...)
			want := tc.wantStatus
			if want == accessRefused {
				want = http.StatusOK
			}
			if a.status != want {
				t.Fatalf("HTTP %d %s, want %d", a.status, a.body, want)
			}
			private := tc.path != kline && tc.path != venueapi.PathContracts
			if private && a.header.Get("Cache-Control") != "private, no-store" {
				t.Errorf("Cache-Control %q, want private, no-store", a.header.Get("Cache-Control"))
			}
			code, msg := a.errCode(t)
			if (code == venueapi.CodeForbidden) != (tc.wantStatus == accessRefused) {
				t.Fatalf("code %d %q, refused: %v", code, msg, tc.wantStatus == accessRefused)
			}
			if tc.wantStatus == accessRefused && (!strings.Contains(msg, "/login") || a.header.Get("WWW-Authenticate") == "") {
				t.Errorf("code %d %q, WWW-Authenticate %q: want the venue's envelope pointing to /login, and the scheme", code, msg, a.header.Get("WWW-Authenticate"))
			}
		})
	}
	if n := public.sb.Received(venueapi.PathTiers) + public.sb.Received(venueapi.PathPositionLimit); n != 2 {
		t.Fatalf("refused requests reached the venue: %d private calls, want 2", n)
	}
}

// accessRefused is a wantStatus: HTTP 200 with the venue's code 403 in the envelope.
const accessRefused = -403

// loginCookie signs in at /login and returns the cookie it sets.
func loginCookie(t *testing.T, s *stack) *http.Cookie {
	t.Helper()
	page := s.get(t, "/login")
	if page.status != 200 || !strings.Contains(string(page.body), `name="token"`) || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		t.Fatalf("login page: HTTP %d", page.status)
	}
	if a := s.do(t, "POST", "/login", url.Values{"token": {"wrong"}}.Encode(), "Content-Type", "application/x-www-form-urlencoded"); a.status != 401 || len(a.header.Values("Set-Cookie")) != 0 {
		t.Fatalf("a wrong token: HTTP %d, cookies %v", a.status, a.header.Values("Set-Cookie"))
	}
	a := s.do(t, "POST", "/login", url.Values{"token": {testViewer}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	res := http.Response{Header: a.header}
	cookies := res.Cookies()
	if a.status != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("login: HTTP %d, cookies %v", a.status, cookies)
	}
	c := cookies[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/" || strings.Contains(c.Value, testViewer) {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, not Secure over plain HTTP, not the token itself", c)
	}
	return c
}

// TestASignInReturnsToThePageItCameFrom: the login page sends the browser
// back to the page of this server that linked to it, or that its next field
// names, and to "/" for anything that is not a path of this server.
func TestASignInReturnsToThePageItCameFrom(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens = true, []venue.Secret{testViewer}
		c.AllowedHosts = []string{"charts.example"}
	}})
	form := func(token, next string) string { return url.Values{"token": {token}, "next": {next}}.Encode() }
	for _, tc := range []struct {
		name, next, want string
	}{
		{"a view", "/limits?contract_code=ETH-USDT&theme=dark", "/limits?contract_code=ETH-USDT&theme=dark"},
		{"the chart", "/?contract_code=SOL-USDT&period=5min", "/?contract_code=SOL-USDT&period=5min"},
		{"none", "", "/"},
		{"another host", "https://evil.example/", "/"},
		{"a scheme-relative host", "//evil.example/tiers", "/"},
		{"a scheme-relative host behind three slashes", "///evil.example/tiers", "/"},
		{"a backslash a browser reads as a slash", "/\\evil.example", "/"},
		{"a tab a browser drops", "/\t/evil.example", "/"},
		{"a script", "javascript:alert(1)", "/"},
		{"a relative path", "tiers", "/"},
		{"the login page itself", "/login?next=/tiers", "/"},
		{"the sign-out page", "/logout", "/"},
		{"a path too long for a view", "/tiers?x=" + strings.Repeat("a", 3000), "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.do(t, "POST", "/login", form(testViewer, tc.next), "Content-Type", "application/x-www-form-urlencoded")
			if a.status != http.StatusSeeOther || a.header.Get("Location") != tc.want {
				t.Fatalf("HTTP %d to %q, want 303 to %q", a.status, a.header.Get("Location"), tc.want)
			}
		})
	}

	t.Run("the page that linked to the login page is where it returns", func(t *testing.T) {
		for _, tc := range []struct{ referer, want string }{
			{s.url + "/tiers?contract_code=ETH-USDT", "/tiers?contract_code=ETH-USDT"},
			{"https://evil.example/tiers", "/"},
			{"", "/"},
		} {
			page := s.get(t, "/login", "Referer", tc.referer)
			if want := `<input name="next" type="hidden" value="` + html.EscapeString(tc.want) + `">`; !strings.Contains(string(page.body), want) {
				t.Errorf("Referer %q: no %s in\n%s", tc.referer, want, page.body)
			}
		}
		if page := s.get(t, "/login?next=/limits", "Referer", s.url+"/tiers"); !strings.Contains(string(page.body), `value="/limits"`) {
			t.Errorf("the next named in the URL does not win over the Referer:\n%s", page.body)
		}
	})

	t.Run("a wrong token keeps where to return", func(t *testing.T) {
		a := s.do(t, "POST", "/login", form("wrong", "/limits?contract_code=ETH-USDT"), "Content-Type", "application/x-www-form-urlencoded")
		if a.status != http.StatusUnauthorized || !strings.Contains(string(a.body), `<input name="next" type="hidden" value="/limits?contract_code=ETH-USDT">`) {
			t.Fatalf("HTTP %d:\n%s", a.status, a.body)
		}
		// The field says it is wrong, and which message says why.
		if !strings.Contains(string(a.body), `aria-invalid="true" aria-describedby="login-error"`) || !strings.Contains(string(a.body), `id="login-error"`) {
			t.Errorf("the token field is not marked wrong:\n%s", a.body)
		}
	})
}

func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.FrameAncestors = []string{"https://partner.example"}
		c.ClientRate, c.ClientBurst = 1, 30
	}})
	kline := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2"
	etag := s.get(t, kline).header.Get("ETag")
	for _, tc := range []struct {
		name, path string
		header     []string
	}{
		{"a page", "/", nil},
		{"an unknown path", "/nope", nil},
		{"candles", kline, nil},
		{"304", kline, []string{"If-None-Match", etag}},
		{"a 1030", venueapi.PathKLine + "?period=1min", nil},
		{"tiers", venueapi.PathTiers + "?contract_code=BTC-USDT", nil},
		{"a 1013 from the venue", venueapi.PathTiers + "?contract_code=ZZZ-USDT", nil},
		{"contracts", venueapi.PathContracts, nil},
		{"health", "/healthz", nil},
		{"metrics", "/metrics", nil},
		{"the login page", "/login", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertSecurityHeaders(t, s.get(t, tc.path, tc.header...))
		})
	}
	for range 40 { // past this client's burst
		s.get(t, kline)
	}
	a := s.get(t, kline)
	if a.status != http.StatusTooManyRequests {
		t.Fatalf("HTTP %d, want 429", a.status)
	}
	assertSecurityHeaders(t, a)
}

func assertSecurityHeaders(t *testing.T, a reply) {
	t.Helper()
	csp := map[string]string{}
	for _, d := range strings.Split(a.header.Get("Content-Security-Policy"), ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		csp[name] = value
	}
	for name, want := range map[string]string{
		"default-src":     "'self'",
		"script-src":      "'self' 'wasm-unsafe-eval'", // no 'unsafe-inline', no 'unsafe-eval', no other origin
		"object-src":      "'none'",
		"base-uri":        "'self'",
		"frame-ancestors": "'self' https://partner.example",
		"connect-src":     "'self'",
	} {
		if csp[name] != want {
			t.Errorf("HTTP %d: CSP %s is %q, want %q", a.status, name, csp[name], want)
		}
	}
	for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin"} {
		if got := a.header.Get(name); got != want {
			t.Errorf("HTTP %d: %s %q, want %q", a.status, name, got, want)
		}
	}
	if a.header.Get("X-Request-Id") == "" {
		t.Errorf("HTTP %d: no X-Request-Id", a.status)
	}
}

func TestFrameAncestorsDefaultToSelf(t *testing.T) {
	s := newStack(t, options{})
	if csp := s.get(t, "/").header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") || strings.Contains(csp, "frame-ancestors 'self' ") {
		t.Fatalf("CSP %q, want frame-ancestors 'self' alone", csp)
	}
}

func TestEachClientIPHasItsOwnRate(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.ClientRate, c.ClientBurst = 2, 5 }})
	path := s.url + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=5"
	ask := func(ip string) reply {
		req, _ := http.NewRequest("GET", path, nil)
		return send(t, s.from(ip), req)
	}
	for i := range 5 {
		if a := ask("127.0.0.1"); a.status != 200 {
			t.Fatalf("request %d within the burst: HTTP %d", i+1, a.status)
		}
	}
	a := ask("127.0.0.1")
	if code, _ := a.errCode(t); a.status != 429 || code != venueapi.CodeRateLimited || a.header.Get("Retry-After") != "1" {
		t.Fatalf("past the burst: HTTP %d code %d Retry-After %q, want 429 1032 1", a.status, code, a.header.Get("Retry-After"))
	}
	if a := ask("127.0.0.2"); a.status != 200 {
		t.Fatalf("another client: HTTP %d, want its own budget", a.status)
	}
	clk.Advance(time.Second) // two requests' worth
	for i, want := range []int{200, 200, 429} {
		if a := ask("127.0.0.1"); a.status != want {
			t.Fatalf("a second later, request %d: HTTP %d, want %d", i+1, a.status, want)
		}
	}
}

func TestSecretsAppearInNoAnswerAndNoLogLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		secrets := []string{testSecret, testViewer, "Signature=", "wrong-secret-never-shown"}
		check := func(t *testing.T, what string, text string) {
			t.Helper()
			for _, secret := range secrets {
				if strings.Contains(text, secret) {
					t.Errorf("%s shows %q:\n%.2000s", what, secret, text)
				}
			}
		}
		good := newStack(t, options{clock: newClock(10), gateway: func(c *gateway.Config) {
			c.Public, c.ViewerTokens = true, []venue.Secret{testViewer}
			c.AllowedHosts = []string{"charts.example"}
		}})
		bad := newStack(t, options{venue: func(c *venue.Config) { c.SecretKey = "wrong-secret-never-shown" }})
		viewer := []string{"Authorization", "Bearer " + testViewer}
		paths := []string{
			venueapi.PathTiers + "?contract_code=BTC-USDT", venueapi.PathPositionLimit, venueapi.PathTiers + "?contract_code=ZZZ-USDT",
			venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=2", "/metrics", "/readyz", "/healthz", venueapi.PathContracts, "/login",
		}
		for _, s := range []*stack{good, bad} {
			for _, p := range paths {
				for _, h := range [][]string{nil, viewer, {"Cookie", "riskchart_viewer=" + testViewer}} {
					a := s.get(t, p, h...)
					check(t, "the answer of "+p, fmt.Sprint(a.header)+string(a.body))
				}
			}
			a := s.do(t, "POST", "/login", url.Values{"token": {testViewer}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
			check(t, "the login answer", fmt.Sprint(a.header)+string(a.body))
		}
		for _, f := range []sandbox.Fault{{Rate5xx: 1}, {RateMalformed: 1}, {RateHangup: 1}, {Rate429: 1}} {
			good.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{"": f}})
			for _, p := range []string{venueapi.PathTiers + "?contract_code=ETH-USDT", venueapi.PathPositionLimit + "?pair=ETH-USDT", "/readyz"} {
				a := good.get(t, p, viewer...)
				check(t, "the answer of "+p, fmt.Sprint(a.header)+string(a.body))
			}
		}
		for _, s := range []*stack{good, bad} {
			logs := s.logs.String()
			if !strings.Contains(logs, `"msg":"request"`) || !strings.Contains(logs, `"id":`) {
				t.Fatalf("no request log lines with an id:\n%s", logs)
			}
			check(t, "the log", logs)
		}
	})
}

func TestRequestIDsComeFromTheRequestWhenSaneAndAreLogged(t *testing.T) {
	s := newStack(t, options{})
	for _, tc := range []struct {
		name, sent string
		kept       bool
	}{
		{"a sane id", "req-42.abc_DEF", true},
		{"none", "", false},
		{"one with spaces", "a b", false},
		{"one that would forge a log field", `x","msg":"forged`, false},
		{"an overlong one", strings.Repeat("a", 65), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.url+"/healthz", nil)
			req.Header["X-Request-Id"] = []string{tc.sent}
			got := send(t, s.from("127.0.0.1"), req).header.Get("X-Request-Id")
			if (got == tc.sent) != tc.kept || got == "" {
				t.Fatalf("X-Request-Id %q for %q, kept %v", got, tc.sent, tc.kept)
			}
			if !strings.Contains(s.logs.String(), `"id":"`+got+`"`) {
				t.Fatalf("the log has no line with id %s", got)
			}
		})
	}
}

func TestTheBearerSchemeIsReadInAnyCase(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens, c.AllowedHosts = true, []venue.Secret{testViewer}, []string{"charts.example"}
	}})
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	for _, tc := range []struct {
		auth string
		ok   bool
	}{
		{"Bearer " + testViewer, true},
		{"bearer " + testViewer, true},
		{"BEARER " + testViewer, true},
		{"Bearer  " + testViewer, true}, // two spaces
		{"Bearerx " + testViewer, false},
		{"Basic " + testViewer, false},
		{"bearer wrong", false},
	} {
		t.Run(tc.auth, func(t *testing.T) {
			a := s.get(t, tiers, "Authorization", tc.auth)
			if code, msg := a.errCode(t); (code == venueapi.CodeOK) != tc.ok {
				t.Fatalf("HTTP %d code %d %q, want admitted %v", a.status, code, msg, tc.ok)
			}
		})
	}
}

func TestTheLoginCookieIsSecureWhenBrowsersUseHTTPS(t *testing.T) {
	for _, tc := range []struct {
		publicURL  string
		wantSecure bool
	}{
		{"", false},
		{"http://charts.example.com", false},
		{"https://charts.example.com", true}, // behind a TLS proxy: r.TLS is nil
	} {
		t.Run(tc.publicURL, func(t *testing.T) {
			s := newStack(t, options{gateway: func(c *gateway.Config) {
				c.Public, c.ViewerTokens, c.AllowedHosts = true, []venue.Secret{testViewer}, []string{"charts.example.com"}
				if tc.publicURL != "" {
					c.PublicURL, _ = url.Parse(tc.publicURL)
				}
			}})
			a := s.do(t, "POST", "/login", url.Values{"token": {testViewer}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
			cookies := (&http.Response{Header: a.header}).Cookies()
			if a.status != http.StatusSeeOther || len(cookies) != 1 || cookies[0].Secure != tc.wantSecure {
				t.Fatalf("login: HTTP %d, cookies %v, want one Secure=%v", a.status, cookies, tc.wantSecure)
			}
		})
	}
}

// TestASignInFromAnotherSitesPageIsRefused: a form on another site's page
// that posts a token to /login would sign the browser in with a token of
// that page's choosing (login CSRF), replacing the viewer's own cookie. The
// sign-in is refused as the private paths refuse such requests
// (docs/decisions.md#cross-site-requests), and sets no cookie; this
// server's own login page, and clients that say neither header, sign in.
func TestASignInFromAnotherSitesPageIsRefused(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens = true, []venue.Secret{testViewer}
		c.AllowedHosts = []string{"charts.example"}
	}})
	form := url.Values{"token": {testViewer}, "next": {"/tiers"}}.Encode()
	for _, tc := range []struct {
		name   string
		header []string
		signIn bool
	}{
		{"another site's form", []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, false},
		{"another site's form, a browser without Fetch Metadata", []string{"Origin", "https://evil.example"}, false},
		{"a sandboxed frame's form", []string{"Sec-Fetch-Site", "cross-site", "Origin", "null"}, false},
		{"this server's login page", []string{"Sec-Fetch-Site", "same-origin", "Origin", s.url}, true},
		{"a client that says neither", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.do(t, "POST", "/login", form, append([]string{"Content-Type", "application/x-www-form-urlencoded"}, tc.header...)...)
			cookies := (&http.Response{Header: a.header}).Cookies()
			if signedIn := a.status == http.StatusSeeOther && len(cookies) == 1; signedIn != tc.signIn {
				t.Fatalf("HTTP %d to %q, cookies %v: want signed in %v", a.status, a.header.Get("Location"), cookies, tc.signIn)
			}
			if !tc.signIn && (a.status != http.StatusForbidden || !strings.Contains(string(a.body), "another site")) {
				t.Errorf("HTTP %d, want 403 with the login page saying why:\n%s", a.status, a.body)
			}
		})
	}
}

// TestASignOutRemovesTheViewerCookie: the login page offers a signed-in
// browser a sign-out, which removes the cookie with the attributes it was
// set with and returns to the page named; another site's page cannot sign
// the viewer out.
func TestASignOutRemovesTheViewerCookie(t *testing.T) {
	s := newStack(t, options{gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens = true, []venue.Secret{testViewer}
		c.AllowedHosts = []string{"charts.example"}
	}})
	cookie := loginCookie(t, s)
	sent := cookie.Name + "=" + cookie.Value // as a browser sends it back
	for _, tc := range []struct {
		path, cookie string
		offered      bool
	}{
		{"/login", "", false},
		{"/login", sent, true},
		{"/logout", sent, true},
		{"/login", cookie.Name + "=not-a-cookie-of-any-token", false},
	} {
		var header []string
		if tc.cookie != "" {
			header = []string{"Cookie", tc.cookie}
		}
		page := s.get(t, tc.path, header...)
		if offered := strings.Contains(string(page.body), `action="/logout"`); page.status != 200 || offered != tc.offered {
			t.Errorf("GET %s with cookie %q: HTTP %d, sign-out offered %v, want %v", tc.path, tc.cookie, page.status, offered, tc.offered)
		}
	}

	form := url.Values{"next": {"/tiers"}}.Encode()
	for _, tc := range []struct {
		name    string
		header  []string
		signOut bool
	}{
		{"another site's form", []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, false},
		{"another site's form, a browser without Fetch Metadata", []string{"Origin", "https://evil.example"}, false},
		{"this server's login page", []string{"Sec-Fetch-Site", "same-origin", "Origin", s.url}, true},
		{"a client that says neither", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.do(t, "POST", "/logout", form, append([]string{"Content-Type", "application/x-www-form-urlencoded", "Cookie", sent}, tc.header...)...)
			cookies := (&http.Response{Header: a.header}).Cookies()
			if !tc.signOut {
				if a.status != http.StatusForbidden || len(cookies) != 0 || !strings.Contains(string(a.body), "cannot sign you out") {
					t.Fatalf("HTTP %d, cookies %v, want 403 with no cookie and the page saying why:\n%s", a.status, cookies, a.body)
				}
				return
			}
			if a.status != http.StatusSeeOther || a.header.Get("Location") != "/tiers" || a.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("HTTP %d to %q (Cache-Control %q), want 303 to /tiers, not stored", a.status, a.header.Get("Location"), a.header.Get("Cache-Control"))
			}
			if len(cookies) != 1 {
				t.Fatalf("cookies %v, want the viewer cookie removed", cookies)
			}
			c := cookies[0]
			if c.Name != cookie.Name || c.Value != "" || c.MaxAge >= 0 || c.Path != cookie.Path || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Errorf("cookie %+v: want %s removed (empty, Max-Age=0) with the path and attributes it was set with", c, cookie.Name)
			}
		})
	}
}

// TestASignInLapsesAfterThirtyDays: the login cookie carries its issue time
// under the MAC, so the server itself refuses it thirty days after the
// sign-in (a copied cookie lapses too), or when it claims to be issued more
// than a minute ahead of the server's clock; another replica with the same
// token takes it, one without the token does not
// (docs/decisions.md#viewer-sign-in).
func TestASignInLapsesAfterThirtyDays(t *testing.T) {
	clk := newClock(0)
	viewers := func(tokens ...venue.Secret) options {
		return options{clock: clk, gateway: func(c *gateway.Config) {
			c.Public, c.ViewerTokens = true, tokens
			c.AllowedHosts = []string{"charts.example"}
		}}
	}
	s := newStack(t, viewers(testViewer))
	replica := newStack(t, viewers("another-viewer-token", testViewer))
	revoked := newStack(t, viewers("another-viewer-token"))
	signedIn := clk.Now()
	cookie := loginCookie(t, s)
	if want := 30 * 24 * 3600; cookie.MaxAge != want {
		t.Errorf("cookie Max-Age %d, want %d (thirty days)", cookie.MaxAge, want)
	}
	raw, err := base64.RawURLEncoding.DecodeString(cookie.Value)
	if err != nil || len(raw) < 8 {
		t.Fatalf("cookie %q: %v, want base64url of the issue time and a MAC", cookie.Value, err)
	}
	later := bytes.Clone(raw)
	binary.BigEndian.PutUint64(later[:8], binary.BigEndian.Uint64(raw[:8])+7*24*3600) // its life stretched by a week
	tiers := venueapi.PathTiers + "?contract_code=BTC-USDT"
	for _, tc := range []struct {
		name  string
		s     *stack
		value string
		at    time.Duration // after the sign-in
		ok    bool
	}{
		{"a replica's clock half a minute behind", s, cookie.Value, -30 * time.Second, true},
		{"a clock two minutes behind: issued in its future", s, cookie.Value, -2 * time.Minute, false},
		{"just after the sign-in", s, cookie.Value, time.Second, true},
		{"another replica with the token", replica, cookie.Value, time.Hour, true},
		{"a server without the token", revoked, cookie.Value, time.Hour, false},
		{"an issue time moved a week later", s, base64.RawURLEncoding.EncodeToString(later), time.Hour, false},
		{"a second before thirty days", s, cookie.Value, 30*24*time.Hour - time.Second, true},
		{"thirty days after the sign-in", s, cookie.Value, 30 * 24 * time.Hour, false},
		{"with the week moved, past thirty days", s, base64.RawURLEncoding.EncodeToString(later), 31 * 24 * time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Advance(signedIn.Add(tc.at).Sub(clk.Now()))
			a := tc.s.get(t, tiers, "Cookie", cookie.Name+"="+tc.value)
			if code, msg := a.errCode(t); a.status != 200 || (code == venueapi.CodeForbidden) == tc.ok {
				t.Fatalf("HTTP %d, code %d %q; want access %v", a.status, code, msg, tc.ok)
			}
			if offered := strings.Contains(string(tc.s.get(t, "/login", "Cookie", cookie.Name+"="+tc.value).body), `action="/logout"`); offered != tc.ok {
				t.Errorf("the login page offers a sign-out: %v, want %v", offered, tc.ok)
			}
		})
	}
}
