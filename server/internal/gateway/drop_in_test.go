package gateway_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// A client written for the venue can point at the gateway instead and drop
// its keys: every error comes back as the venue gives it, the same HTTP
// status and the same envelope with the same code. Each case is asked of the
// sandbox itself (signed where the path is private, as the venue client
// signs) and of the gateway (unsigned), and the two answers are compared
// field by field; messages may differ.
func TestTheGatewayAnswersErrorsAsTheVenueDoes(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk})
	public := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) {
		c.Public, c.ViewerTokens, c.AllowedHosts = true, []venue.Secret{testViewer}, []string{"charts.example"}
	}})
	const (
		kline  = venueapi.PathKLine
		tiers  = venueapi.PathTiers
		limits = venueapi.PathPositionLimit
		asJSON = "application/json"
	)
	type ask struct{ method, path, query, contentType, body string }
	get := func(path, query string) ask { return ask{"GET", path, query, "", ""} }
	post := func(body string) ask { return ask{"POST", limits, "", asJSON, body} }
	for _, tc := range []struct {
		name       string
		ask        ask
		wantStatus int // HTTP, from both
		wantCode   int // the envelope's, from both
		// unknownKey asks the venue with a key it does not know, and a
		// public gateway without a viewer token: the same refusal.
		unknownKey bool
		// except, when set, is why the gateway deliberately answers
		// otherwise: only the gateway's answer is checked.
		except string
	}{
		{name: "size 0", ask: get(kline, "contract_code=BTC-USDT&period=1min&size=0"), wantStatus: 200, wantCode: 1030},
		{name: "size 2001", ask: get(kline, "contract_code=BTC-USDT&period=1min&size=2001"), wantStatus: 200, wantCode: 1030},
		{name: "size with a leading zero", ask: get(kline, "contract_code=BTC-USDT&period=1min&size=05"), wantStatus: 200, wantCode: 1030},
		{name: "size with a plus sign", ask: get(kline, "contract_code=BTC-USDT&period=1min&size=%2B5"), wantStatus: 200, wantCode: 1030},
		{name: "from in exponent form", ask: get(kline, "contract_code=BTC-USDT&period=1min&from=1e3&to=6000"), wantStatus: 200, wantCode: 1030},
		{name: "size twice", ask: get(kline, "contract_code=BTC-USDT&period=1min&size=5&size=6"), wantStatus: 200, wantCode: 1030},
		{name: "from without to", ask: get(kline, "contract_code=BTC-USDT&period=1min&from=60"), wantStatus: 200, wantCode: 1030},
		{name: "from after to", ask: get(kline, "contract_code=BTC-USDT&period=1min&from=120&to=60"), wantStatus: 200, wantCode: 1030},
		{name: "a range over 2000 candles", ask: get(kline, "contract_code=BTC-USDT&period=1min&from=0&to=1000000"), wantStatus: 200, wantCode: 1030},
		{name: "a bad period", ask: get(kline, "contract_code=BTC-USDT&period=2min"), wantStatus: 200, wantCode: 1030},
		{name: "no period", ask: get(kline, "contract_code=BTC-USDT"), wantStatus: 200, wantCode: 1030},
		{name: "a malformed contract code on kline", ask: get(kline, "contract_code=btc-usdt&period=1min"), wantStatus: 200, wantCode: 1030},
		{name: "no contract code on kline", ask: get(kline, "period=1min"), wantStatus: 200, wantCode: 1030},
		{name: "an unknown well-formed contract on kline", ask: get(kline, "contract_code=ZZZ-USDT&period=1min"), wantStatus: 200, wantCode: 1013},
		{name: "an unknown future on kline", ask: get(kline, "contract_code=BTC-USDT-991231&period=1min"), wantStatus: 200, wantCode: 1013},
		{name: "a broken escape in size", ask: get(kline, "contract_code=BTC-USDT&period=1min&size=%ZZ"), wantStatus: 200, wantCode: 1030},

		{name: "a malformed contract code on tiers", ask: get(tiers, "contract_code=btc-usdt"), wantStatus: 200, wantCode: 1030},
		{name: "a future on tiers", ask: get(tiers, "contract_code=BTC-USDT-261225"), wantStatus: 200, wantCode: 1030},
		{name: "no contract code on tiers", ask: get(tiers, "margin_mode=cross"), wantStatus: 200, wantCode: 1030},
		{name: "a bad margin mode", ask: get(tiers, "contract_code=BTC-USDT&margin_mode=isolated"), wantStatus: 200, wantCode: 1030},
		{name: "a contract code twice on tiers", ask: get(tiers, "contract_code=BTC-USDT&contract_code=ETH-USDT"), wantStatus: 200, wantCode: 1030},
		{name: "an unknown well-formed contract on tiers", ask: get(tiers, "contract_code=ZZZ-USDT"), wantStatus: 200, wantCode: 1013},
		{name: "an unknown key on tiers", ask: get(tiers, "contract_code=BTC-USDT"), wantStatus: 200, wantCode: 403, unknownKey: true},

		{name: "a malformed contract code on position_limit", ask: post(`{"contract_code":"btc-usdt"}`), wantStatus: 200, wantCode: 1030},
		{name: "an unknown well-formed swap on position_limit", ask: post(`{"contract_code":"ZZZ-USDT"}`), wantStatus: 200, wantCode: 1013},
		{name: "an unknown future on position_limit", ask: post(`{"contract_code":"BTC-USDT-991231","business_type":"futures"}`), wantStatus: 200, wantCode: 1013},
		{name: "a future without business_type futures", ask: post(`{"contract_code":"BTC-USDT-261225"}`), wantStatus: 200, wantCode: 1030},
		{name: "a future contract type without business_type", ask: post(`{"pair":"BTC-USDT","contract_type":"quarter"}`), wantStatus: 200, wantCode: 1030},
		{name: "a bad business_type", ask: post(`{"business_type":"options"}`), wantStatus: 200, wantCode: 1030},
		{name: "a bad contract_type", ask: post(`{"contract_type":"perpetual"}`), wantStatus: 200, wantCode: 1030},
		{name: "a malformed pair", ask: post(`{"pair":"BTCUSDT"}`), wantStatus: 200, wantCode: 1030},
		{name: "a contract-type code on position_limit", ask: post(`{"contract_code":"BTC-USDT-CQ","business_type":"all"}`), wantStatus: 200, wantCode: 1030},
		{name: "a JSON body that is not JSON", ask: post(`{"contract_code":`), wantStatus: 200, wantCode: 1030},
		{name: "a JSON number for a string", ask: post(`{"contract_code":7}`), wantStatus: 200, wantCode: 1030},
		{name: "a parameter twice in the query string", ask: get(limits, "pair=BTC-USDT&pair=ETH-USDT"), wantStatus: 200, wantCode: 1030},
		{name: "a bad business_type in the query string", ask: get(limits, "business_type=spot"), wantStatus: 200, wantCode: 1030},
		{name: "an unknown key on position_limit", ask: post(`{"contract_code":"BTC-USDT"}`), wantStatus: 200, wantCode: 403, unknownKey: true},
		{name: "JSON null for a string", ask: post(`{"contract_code":null}`), wantStatus: 200, wantCode: 1030,
			except: "null is not a string: the gateway names the field, where the sandbox reads null as absent"},
		{name: "a member named twice", ask: post(`{"pair":"BTC-USDT","pair":"ETH-USDT"}`), wantStatus: 200, wantCode: 1030,
			except: "a parameter given twice is 1030 (docs/decisions.md#repeated-parameters); the sandbox's JSON decoding keeps the last"},
		{name: "an unsigned request", ask: get(tiers, "contract_code=BTC-USDT"), wantStatus: 200, wantCode: 200,
			except: "the gateway needs no signature: it signs with its own key (docs/venue.md#served-by-riskchart); the venue answers 1253"},
		{name: "a form body", ask: ask{"POST", limits, "", "application/x-www-form-urlencoded", "contract_code=BTC-USDT"}, wantStatus: 415, wantCode: 1030,
			except: "the gateway takes JSON bodies only, which a cross-site page cannot send without asking first (docs/decisions.md#position-limit-payload)"},
		{name: "a text/plain body", ask: ask{"POST", limits, "", "text/plain", `{"contract_code":"BTC-USDT"}`}, wantStatus: 415, wantCode: 1030,
			except: "as a form body; the sandbox refuses it too, but under HTTP 200"},
		{name: "a wrong method", ask: ask{"DELETE", kline, "contract_code=BTC-USDT&period=1min", "", ""}, wantStatus: 405, wantCode: 1030,
			except: "the sandbox's mux answers a wrong method in plain text; the gateway answers it in the venue's envelope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw, gwHeader := s, []string{"Content-Type", tc.ask.contentType}
			if tc.unknownKey {
				gw = public
			}
			got := gw.do(t, tc.ask.method, tc.ask.path+queryOf(tc.ask.query), tc.ask.body, gwHeader...)
			gotKind, gotCode := envelopeOf(t, got)
			if got.status != tc.wantStatus || gotCode != tc.wantCode || gotKind != kindFor(tc.ask.path) {
				t.Fatalf("the gateway: HTTP %d, %s envelope, code %d: %s; want HTTP %d, %s envelope, code %d",
					got.status, gotKind, gotCode, got.body, tc.wantStatus, kindFor(tc.ask.path), tc.wantCode)
			}
			if tc.except != "" {
				t.Logf("not compared with the venue: %s", tc.except)
				return
			}
			access, secret := testAccess, testSecret
			if tc.unknownKey {
				access, secret = "a-key-the-venue-does-not-know", "its-secret"
			}
			want := s.askVenue(t, tc.ask.method, tc.ask.path, tc.ask.query, tc.ask.contentType, tc.ask.body, access, secret)
			wantKind, wantCode := envelopeOf(t, want)
			if got.status != want.status || gotKind != wantKind || gotCode != wantCode {
				t.Fatalf("the gateway: HTTP %d, %s envelope, code %d: %s\nthe venue:   HTTP %d, %s envelope, code %d: %s",
					got.status, gotKind, gotCode, got.body, want.status, wantKind, wantCode, want.body)
			}
		})
	}
}

func queryOf(raw string) string {
	if raw == "" {
		return ""
	}
	return "?" + raw
}

// kindFor is the envelope the venue answers path with.
func kindFor(path string) string {
	if path == venueapi.PathTiers {
		return "code"
	}
	return "status"
}

// envelopeOf reads an answer's envelope: which of the two, and its code
// (200 for a success).
func envelopeOf(t *testing.T, a reply) (kind string, code int) {
	t.Helper()
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(a.body, &probe); err != nil {
		return "no", 0
	}
	kind = "status"
	if _, ok := probe["code"]; ok {
		kind = "code"
	}
	code, _ = sandboxtest.ErrCode(t, a.body)
	return kind, code
}

// askVenue asks the sandbox itself, signed with the key given where the
// path is private, as the venue client signs: the signature in the query
// string, business parameters of a POST in its body.
func (s *stack) askVenue(t *testing.T, method, path, rawQuery, contentType, body, access, secret string) reply {
	t.Helper()
	query := rawQuery
	if path != venueapi.PathKLine {
		query = s.signedQuery(t, method, path, rawQuery, access, secret)
	}
	return s.sendVenue(t, method, path, query, contentType, body)
}

// signedQuery is rawQuery signed for the sandbox with the key given, as the
// venue client signs it (sign.SignedQuery).
func (s *stack) signedQuery(t *testing.T, method, path, rawQuery, access, secret string) string {
	t.Helper()
	params, err := url.ParseQuery(rawQuery)
	if err != nil {
		t.Fatalf("a signed case needs a query the signer can read: %v", err)
	}
	u, _ := url.Parse(s.venueURL)
	return sign.SignedQuery(method, sign.CanonicalHost("http", u.Host), path, access, []byte(secret), params, s.clock.Now())
}

// sendVenue sends the sandbox itself a request of the query as given.
func (s *stack) sendVenue(t *testing.T, method, path, query, contentType, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, s.venueURL+path+queryOf(query), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return send(t, s.from("127.0.0.1"), req)
}

// The venue client itself, pointed at the gateway with a key the gateway
// ignores, reads every answer as it would the venue's: data, and an unknown
// contract as the venue's "no such contract", not as a broken server.
func TestTheVenueClientWorksAgainstTheGateway(t *testing.T) {
	clk := newClock(10)
	s := newStack(t, options{clock: clk})
	tr := s.from("127.0.0.1")
	t.Cleanup(tr.CloseIdleConnections)
	client, err := venue.New(venue.Config{BaseURL: s.url, AccessKey: "dropped", SecretKey: "dropped-secret",
		HTTPClient: &http.Client{Transport: tr}, Now: clk.Now, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if env, err := client.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 5}); err != nil || len(env.Data) != 5 {
		t.Fatalf("candles: %v", err)
	}
	if env, err := client.Tiers(ctx, venueapi.TierQuery{ContractCode: "BTC-USDT"}); err != nil || len(env.Data) == 0 {
		t.Fatalf("tiers: %v", err)
	}
	if env, err := client.PositionLimits(ctx, venueapi.LimitQuery{ContractCode: "BTC-USDT"}); err != nil || len(env.Data) != 1 {
		t.Fatalf("position limits: %v", err)
	}
	for what, call := range map[string]func() error{
		"candles": func() error {
			_, err := client.KLine(ctx, venueapi.KLineQuery{ContractCode: "ZZZ-USDT", Period: venueapi.Period1Min, Size: 5})
			return err
		},
		"tiers": func() error { _, err := client.Tiers(ctx, venueapi.TierQuery{ContractCode: "ZZZ-USDT"}); return err },
		"position limits": func() error {
			_, err := client.PositionLimits(ctx, venueapi.LimitQuery{ContractCode: "ZZZ-USDT"})
			return err
		},
	} {
		if err := call(); !errors.As(err, new(*venue.NotFoundError)) {
			t.Errorf("%s of an unknown contract: %v, want the venue's no such contract", what, err)
		}
	}
}

// The venue client paces itself by the ratelimit-* headers: pointed at the
// gateway, it waits out the caller's own budget instead of running into 429s.
func TestTheVenueClientPacesItselfByTheGatewaysRateLimitHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, options{gateway: func(c *gateway.Config) { c.ClientRate, c.ClientBurst = 10, 3 }})
		tr := s.from("127.0.0.1")
		t.Cleanup(tr.CloseIdleConnections)
		client, err := venue.New(venue.Config{BaseURL: s.url, AccessKey: "dropped", SecretKey: "dropped-secret",
			HTTPClient: &http.Client{Transport: tr}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for i := range 8 { // past the burst of 3
			if _, err := client.Tiers(t.Context(), venueapi.TierQuery{ContractCode: "BTC-USDT"}); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
		if took := time.Since(start); took < 500*time.Millisecond {
			t.Fatalf("8 calls in %s: the client did not wait for the gateway's budget (3, then 10 a second)", took)
		}
	})
}
