package embedlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/app/embedscope"
)

var testKey = []byte(strings.Repeat("k", MinKeyLen))

// testNow is the tests' clock: links are issued and checked at this instant.
var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newTestSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := New(Config{Key: testKey, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestALinkGrantsExactlyItsScopeUntilItExpires, and an embed reading the
// link's scope without its signature (app/embedscope) reads the same grants.
func TestALinkGrantsExactlyItsScopeUntilItExpires(t *testing.T) {
	s := newTestSigner(t)
	now := testNow
	tok, err := s.Issue(Scope{Contracts: []string{"BTC-USDT", "ETH-USDT-CQ"}, Panels: []string{PanelTiers}, Expires: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	scope, err := s.Check(tok)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name            string
		panel, contract string
		at              time.Time
		want            bool
	}{
		{"its panel and contract, now", PanelTiers, "BTC-USDT", now, true},
		{"its second contract", PanelTiers, "ETH-USDT-CQ", now, true},
		{"a second before expiry", PanelTiers, "BTC-USDT", now.Add(time.Hour - time.Second), true},
		{"at expiry", PanelTiers, "BTC-USDT", now.Add(time.Hour), false},
		{"after expiry", PanelTiers, "BTC-USDT", now.Add(2 * time.Hour), false},
		{"another panel", PanelLimits, "BTC-USDT", now, false},
		{"another contract", PanelTiers, "SOL-USDT", now, false},
		{"the future of a contract it names by type code", PanelTiers, "ETH-USDT", now, false},
		{"an unknown panel", "calculator", "BTC-USDT", now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scope.Allows(tt.panel, tt.contract, tt.at); got != tt.want {
				t.Fatalf("Allows(%s, %s, %s) = %v, want %v", tt.panel, tt.contract, tt.at, got, tt.want)
			}
			// An embed reads the same scope from the token, unsigned, to
			// leave alone what the link does not grant.
			if withheld := embedscope.Withholds(tok, tt.panel, tt.contract); tt.at.Equal(now) && withheld == tt.want {
				t.Errorf("the embed reads the link as withholding %s of %s: %v, want %v", tt.panel, tt.contract, withheld, !tt.want)
			}
		})
	}
}

// rawURL is the alphabet of base64url, by value.
const rawURL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func TestCheckRefusesAnyTokenThisKeyDidNotSign(t *testing.T) {
	s := newTestSigner(t)
	scope := Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelTiers}, Expires: testNow.Add(24 * time.Hour)}
	tok, err := s.Issue(scope)
	if err != nil {
		t.Fatal(err)
	}
	body, sig, _ := strings.Cut(tok, ".")
	other, _ := New(Config{Key: []byte(strings.Repeat("x", MinKeyLen)), Now: func() time.Time { return testNow }})
	otherTok, _ := other.Issue(scope)
	wider, _ := s.Issue(Scope{Contracts: []string{"BTC-USDT", "ETH-USDT"}, Panels: []string{PanelTiers, PanelLimits}, Expires: scope.Expires})
	widerBody, _, _ := strings.Cut(wider, ".")
	flip := func(s string, i int) string {
		b := []byte(s)
		b[i] = map[bool]byte{true: 'B', false: 'A'}[b[i] == 'A']
		return string(b)
	}
	tests := []struct{ name, token string }{
		{"a changed scope byte", flip(body, 3) + "." + sig},
		{"a changed signature byte", body + "." + flip(sig, 5)},
		{"a wider scope under the narrow one's signature", widerBody + "." + sig},
		{"another key's link", otherTok},
		{"no signature", body},
		{"an empty signature", body + "."},
		{"a truncated signature", body + "." + sig[:len(sig)-4]},
		{"padding in the signature", body + "." + sig + "="},
		{"nothing", ""},
		{"a dot", "."},
		{"a huge token", strings.Repeat("A", 5000) + "." + sig},
		// The same bytes spelled otherwise: a link has one spelling, the one
		// Issue wrote, so that only the token issued passes (FuzzCheck).
		{"a newline in the scope", body[:4] + "\n" + body[4:] + "." + sig},
		{"a carriage return in the signature", body + "." + sig[:4] + "\r" + sig[4:]},
		{"the signature's unused last bits set", body + "." + sig[:len(sig)-1] + string(rawURL[strings.IndexByte(rawURL, sig[len(sig)-1])^1])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := s.Check(tt.token); err == nil {
				t.Fatalf("accepted, scope %+v", got)
			}
		})
	}
	if got, err := s.Check(tok); err != nil || !got.Expires.Equal(scope.Expires) || !slices.Equal(got.Contracts, scope.Contracts) {
		t.Fatalf("the untouched link: %+v, %v", got, err)
	}
}

func TestIssueNamesWhatIsWrongWithAScope(t *testing.T) {
	s := newTestSigner(t)
	later := testNow.Add(time.Hour)
	tests := []struct {
		name  string
		scope Scope
		want  string // in the error
	}{
		{"no contract", Scope{Panels: []string{PanelTiers}, Expires: later}, "contracts"},
		{"a malformed contract", Scope{Contracts: []string{"btc_usdt"}, Panels: []string{PanelTiers}, Expires: later}, "contract_code"},
		{"no panel", Scope{Contracts: []string{"BTC-USDT"}, Expires: later}, "panels"},
		{"an unknown panel", Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{"chart"}, Expires: later}, `"chart"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Issue(tt.scope)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
	if _, err := NewSigner([]byte("short")); err == nil {
		t.Error("a 5-byte key was accepted")
	}
}

// numbered is n distinct contract codes, C000-USDT onwards.
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("C%03d-USDT", i)
	}
	return out
}

// TestEveryLinkIssueReturnsChecks: Issue refuses a scope whose token would
// be longer than Check reads (embedscope.MaxToken), naming the contracts,
// and every token it returns passes Check.
func TestEveryLinkIssueReturnsChecks(t *testing.T) {
	s := newTestSigner(t)
	tests := []struct {
		name      string
		contracts []string
		want      string // the error; "" for a link
	}{
		{"one contract", numbered(1), ""},
		{"one contract named 300 times, kept once", slices.Repeat([]string{"BTC-USDT"}, 300), ""},
		{"the longest scope, 250 contracts in 4092 bytes", numbered(250), ""},
		{"one contract more", numbered(251), "contracts: a link naming 251 contracts is 4108 bytes, at most 4096: issue fewer contracts per link"},
		{"300 contracts", numbered(300), "contracts: a link naming 300 contracts is 4892 bytes, at most 4096: issue fewer contracts per link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := s.Issue(Scope{Contracts: tt.contracts, Panels: []string{PanelTiers}, Expires: testNow.Add(time.Hour)})
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("Issue: a token of %d bytes, error %v, want %q", len(tok), err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Issue: %v", err)
			}
			got, err := s.Check(tok)
			if err != nil {
				t.Fatalf("Issue gave a token of %d bytes which Check refuses: %v", len(tok), err)
			}
			if !slices.Equal(got.Contracts, sortedSet(tt.contracts)) {
				t.Fatalf("the link grants %d contracts, want %d", len(got.Contracts), len(sortedSet(tt.contracts)))
			}
		})
	}
}

func TestALinkLastsAtMostTheLongestLifetimeWhenIssuedAndWhenChecked(t *testing.T) {
	at := func() time.Time { return testNow }
	long, err := New(Config{Key: testKey, MaxTTL: 1000 * 24 * time.Hour, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	day, err := New(Config{Key: testKey, MaxTTL: 24 * time.Hour, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	scope := func(d time.Duration) Scope {
		return Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelTiers}, Expires: testNow.Add(d)}
	}
	tests := []struct {
		name   string
		signer *Signer
		ttl    time.Duration
		ok     bool
	}{
		{"the default allows a quarter", newTestSigner(t), DefaultMaxTTL, true},
		{"the default refuses a second more", newTestSigner(t), DefaultMaxTTL + time.Second, false},
		{"the default refuses a hundred years", newTestSigner(t), 100 * 365 * 24 * time.Hour, false},
		{"a day's limit allows a day", day, 24 * time.Hour, true},
		{"a day's limit refuses a day and a second", day, 24*time.Hour + time.Second, false},
		{"an expired link is still issued: expiry is checked at use", day, -time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := tt.signer.Issue(scope(tt.ttl))
			if tt.ok != (err == nil) {
				t.Fatalf("Issue: %v, want ok %v", err, tt.ok)
			}
			if err != nil && (!strings.Contains(err.Error(), "expires") || !strings.Contains(err.Error(), tt.signer.MaxTTL().String())) {
				t.Fatalf("error %q, want one naming expires and the limit %s", err, tt.signer.MaxTTL())
			}
			if err == nil {
				if _, err := tt.signer.Check(tok); err != nil {
					t.Fatalf("Check of a link it issued: %v", err)
				}
			}
		})
	}
	// A link issued under a longer limit (or before the limit was lowered)
	// is refused by the shorter one, with the same key.
	tok, err := long.Issue(scope(30 * 24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := long.Check(tok); err != nil {
		t.Fatalf("the issuer refuses its own link: %v", err)
	}
	if _, err := day.Check(tok); err == nil || !strings.Contains(err.Error(), "24h0m0s") {
		t.Fatalf("a 30-day link checked under a day's limit: %v, want refused naming the limit", err)
	}
	if _, err := New(Config{Key: testKey, MaxTTL: -time.Hour}); err == nil {
		t.Fatal("a negative longest lifetime was accepted")
	}
}

func TestIssueKeepsEachContractAndPanelOnce(t *testing.T) {
	s := newTestSigner(t)
	tok, err := s.Issue(Scope{Contracts: []string{"ETH-USDT", "BTC-USDT", "ETH-USDT"}, Panels: []string{PanelLimits, PanelTiers, PanelLimits},
		Expires: time.Date(2027, 1, 1, 0, 0, 0, 999, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Check(tok)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Contracts, []string{"BTC-USDT", "ETH-USDT"}) || !slices.Equal(got.Panels, []string{PanelLimits, PanelTiers}) ||
		!got.Expires.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("scope %+v", got)
	}
}

// FuzzCheck feeds Check arbitrary tokens: nothing panics, and only the
// token this signer issued passes.
func FuzzCheck(f *testing.F) {
	s := newTestSigner(f)
	tok, _ := s.Issue(Scope{Contracts: []string{"BTC-USDT"}, Panels: []string{PanelLimits}, Expires: testNow.Add(time.Hour)})
	f.Add(tok)
	f.Add(tok[:4] + "\n" + tok[4:]) // the same bytes, spelled otherwise
	f.Add("a.b")
	f.Add(".")
	f.Fuzz(func(t *testing.T, token string) {
		if _, err := s.Check(token); err == nil && token != tok {
			t.Fatalf("accepted %q, which this signer did not issue", token)
		}
	})
}

// FuzzCheckSignedPayload signs arbitrary payloads, so that the scope parser
// behind the signature is fuzzed too: a signed payload it accepts must be a
// valid scope.
func FuzzCheckSignedPayload(f *testing.F) {
	s := newTestSigner(f)
	for _, p := range []string{`{"c":["BTC-USDT"],"p":["tiers"],"e":1795352400}`, `{"c":[],"p":["tiers"],"e":1}`, `{"c":["x"]}`, `null`, `{"e":1e99}`} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		m := hmac.New(sha256.New, testKey)
		m.Write(payload)
		enc := base64.RawURLEncoding
		scope, err := s.Check(enc.EncodeToString(payload) + "." + enc.EncodeToString(m.Sum(nil)))
		if err != nil {
			return
		}
		if scope.validate() != nil {
			t.Fatalf("accepted an invalid scope %+v from %q", scope, payload)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	s := newTestSigner(b)
	tok, _ := s.Issue(Scope{Contracts: []string{"BTC-USDT", "ETH-USDT"}, Panels: []string{PanelTiers, PanelLimits}, Expires: testNow.Add(time.Hour)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Check(tok); err != nil {
			b.Fatal(err)
		}
	}
}
