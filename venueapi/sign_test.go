package venueapi

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// The golden files were written by hand from DECISIONS.md (canonical
// strings) and signed with openssl (signatures), never by this code:
//
//	openssl dgst -sha256 -hmac "$SECRET" -binary canonical-x.golden | base64
const goldenSecret = "b0xxxxxx-c6xxxxxx-94xxxxxx-dxxxx"

func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(string(b), "\n")
}

func TestCanonicalStringAndSignatureMatchTheGoldenFiles(t *testing.T) {
	tests := []struct {
		name                 string
		method, host, path   string
		params               url.Values
		canonical, signature string
	}{
		{
			name:   "tiers with spaces, plus, slash, equals, tilde, non-ASCII and an empty value",
			method: "GET", host: "127.0.0.1:9000", path: PathTiers,
			params: url.Values{
				"AccessKeyId": {"e2xxxxxx-99xxxxxx-84xxxxxx-7xxxx"}, "SignatureMethod": {"HmacSHA256"}, "SignatureVersion": {"2"},
				"Timestamp": {"2026-11-22T10:00:00"}, "contract_code": {"BTC-USDT"}, "empty": {""}, "note": {"a b+c/d=e~f€"},
				"Signature": {"ignored: never part of what is signed"},
			},
			canonical: "canonical-tiers.golden", signature: "tiers.sig",
		},
		{
			name:   "position limits signs only the signature parameters (the JSON body is not signed)",
			method: "POST", host: "api.example.com", path: PathPositionLimit,
			params:    url.Values{"AccessKeyId": {"key-1"}, "SignatureMethod": {"HmacSHA256"}, "SignatureVersion": {"2"}, "Timestamp": {"2026-01-02T03:04:05"}},
			canonical: "canonical-limits.golden", signature: "limits.sig",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			canonical := Canonical(tt.method, tt.host, tt.path, tt.params)
			if want := readGolden(t, tt.canonical); canonical != want {
				t.Fatalf("canonical string:\n got %q\nwant %q", canonical, want)
			}
			if got, want := Sign([]byte(goldenSecret), canonical), readGolden(t, tt.signature); got != want {
				t.Fatalf("signature %s, want %s", got, want)
			}
			if !Verify([]byte(goldenSecret), canonical, readGolden(t, tt.signature)) {
				t.Fatal("Verify refuses the golden signature")
			}
			if Verify([]byte("another secret"), canonical, readGolden(t, tt.signature)) {
				t.Fatal("Verify accepts the signature under another secret")
			}
		})
	}
}

func TestSignedQueryCarriesTheGoldenSignaturePercentEncoded(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	q := SignedQuery("POST", "api.example.com", PathPositionLimit, "key-1", []byte(goldenSecret), nil, at)
	wantSig := string(AppendEscaped(nil, readGolden(t, "limits.sig")))
	if !strings.HasSuffix(q, "&Signature="+wantSig) {
		t.Fatalf("query %q does not end with the golden signature %q", q, wantSig)
	}
	parsed, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Get("Timestamp") != "2026-01-02T03:04:05" || parsed.Get("AccessKeyId") != "key-1" {
		t.Fatalf("signed query lacks its parameters: %v", parsed)
	}
}

func TestCanonicalHost(t *testing.T) {
	for _, tt := range []struct{ scheme, host, want string }{
		{"http", "127.0.0.1:9000", "127.0.0.1:9000"},
		{"https", "API.Example.com:443", "api.example.com"},
		{"http", "api.example.com:80", "api.example.com"},
		{"https", "api.example.com:8443", "api.example.com:8443"},
		{"https", "api.example.com", "api.example.com"},
		{"http", "[::1]:80", "[::1]"},
	} {
		if got := CanonicalHost(tt.scheme, tt.host); got != tt.want {
			t.Errorf("CanonicalHost(%q, %q) = %q, want %q", tt.scheme, tt.host, got, tt.want)
		}
	}
}

func TestAppendEscapedKeepsOnlyUnreservedCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"AZaz09-_.~": "AZaz09-_.~", " ": "%20", "+": "%2B", "/": "%2F", "=": "%3D", ":": "%3A", "€": "%E2%82%AC", "": "",
	} {
		if got := string(AppendEscaped(nil, in)); got != want {
			t.Errorf("AppendEscaped(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzEncodeQueryRoundTrips(f *testing.F) {
	f.Add("contract_code", "BTC-USDT", "note", "a b+c/d=e~f€")
	f.Add("", "", "x", "\x00\xff")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		in := url.Values{k1: {v1}, k2: {v2}}
		if k1 == k2 {
			in = url.Values{k1: {v1, v2}}
		}
		out, err := url.ParseQuery(EncodeQuery(in))
		if err != nil {
			t.Fatalf("EncodeQuery(%v) does not parse: %v", in, err)
		}
		for k, vs := range in {
			if strings.Join(out[k], "\x00") != strings.Join(vs, "\x00") {
				t.Fatalf("round trip of %q: got %q want %q", k, out[k], vs)
			}
		}
	})
}

func BenchmarkSignedQuery(b *testing.B) {
	params := url.Values{"contract_code": {"BTC-USDT"}, "margin_mode": {"cross"}}
	secret := []byte(goldenSecret)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := NewSigner("key-1", secret)
	b.ReportAllocs()
	for b.Loop() {
		s.Query("GET", "api.example.com", PathTiers, params, at)
	}
}
