package sign

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// The golden files were written by hand from docs/decisions.md
// (Canonical string) and signed with openssl (signatures), never by this code:
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

// goldenVectors are the signed requests of the golden files: who signs, when,
// and the business parameters.
var goldenVectors = []struct {
	name                 string
	method, host, path   string
	access               string
	at                   time.Time
	params               url.Values
	canonical, signature string // golden file names
}{
	{
		name:   "tiers with spaces, plus, slash, equals, tilde, non-ASCII and an empty value",
		method: "GET", host: "127.0.0.1:9000", path: venueapi.PathTiers,
		access: "e2xxxxxx-99xxxxxx-84xxxxxx-7xxxx", at: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		params:    url.Values{"contract_code": {"BTC-USDT"}, "empty": {""}, "note": {"a b+c/d=e~f€"}},
		canonical: "canonical-tiers.golden", signature: "tiers.sig",
	},
	{
		name:   "position limits sign only the signature parameters (the JSON body is not signed)",
		method: "POST", host: "api.example.com", path: venueapi.PathPositionLimit,
		access: "key-1", at: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		canonical: "canonical-limits.golden", signature: "limits.sig",
	},
	{
		name:   "names sort in byte order (upper case, then '_', then lower case), values of one name as given, a time in another zone in UTC",
		method: "GET", host: "api.example.com", path: venueapi.PathTiers,
		access: "key/1", at: time.Date(2026, 2, 28, 18, 59, 59, 0, time.FixedZone("UTC-5", -5*3600)),
		params:    url.Values{"contract_code": {"ETH-USDT"}, "alpha": {"2", "1"}, "a_b": {""}, "aB": {"~"}, "Zeta": {"z"}},
		canonical: "canonical-order.golden", signature: "order.sig",
	},
}

func TestCanonicalStringAndSignatureMatchTheGoldenFiles(t *testing.T) {
	for _, v := range goldenVectors {
		t.Run(v.name, func(t *testing.T) {
			all := url.Values{
				"AccessKeyId": {v.access}, "SignatureMethod": {"HmacSHA256"}, "SignatureVersion": {"2"},
				"Timestamp": {v.at.UTC().Format("2006-01-02T15:04:05")}, "Signature": {"never part of what is signed"},
			}
			for k, vs := range v.params {
				all[k] = vs
			}
			canonical := Canonical(v.method, v.host, v.path, all)
			if want := readGolden(t, v.canonical); canonical != want {
				t.Fatalf("canonical string:\n got %q\nwant %q", canonical, want)
			}
			sig := readGolden(t, v.signature)
			if got := Sign([]byte(goldenSecret), canonical); got != sig {
				t.Fatalf("signature %s, want %s", got, sig)
			}
			if !Verify([]byte(goldenSecret), canonical, sig) {
				t.Fatal("Verify refuses the golden signature")
			}
			if Verify([]byte("another secret"), canonical, sig) || Verify([]byte(goldenSecret), canonical+"&x=1", sig) {
				t.Fatal("Verify accepts the signature under another secret or of another string")
			}
		})
	}
}

// percentSignature encodes a Base64 signature by hand: of its alphabet only
// + / = are reserved in RFC 3986.
var percentSignature = strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D")

func TestSignedQueryIsTheGoldenQueryAndTheGoldenSignaturePercentEncoded(t *testing.T) {
	for _, v := range goldenVectors {
		t.Run(v.name, func(t *testing.T) {
			canonical := readGolden(t, v.canonical)
			query := canonical[strings.LastIndexByte(canonical, '\n')+1:]
			want := query + "&Signature=" + percentSignature.Replace(readGolden(t, v.signature))
			if got := SignedQuery(v.method, v.host, v.path, v.access, []byte(goldenSecret), v.params, v.at); got != want {
				t.Fatalf("signed query:\n got %s\nwant %s", got, want)
			}
			s := NewSigner(v.access, []byte(goldenSecret))
			for range 3 { // a reused signer signs the same
				if got := s.Query(v.method, v.host, v.path, v.params, v.at); got != want {
					t.Fatalf("a reused signer's query:\n got %s\nwant %s", got, want)
				}
			}
		})
	}
}

func TestSignedQueryIgnoresSignatureParametersAmongTheBusinessOnes(t *testing.T) {
	v := goldenVectors[1]
	forged := url.Values{"AccessKeyId": {"someone-else"}, "Timestamp": {"2000-01-01T00:00:00"}, "SignatureVersion": {"1"}, "Signature": {"forged"}}
	want := SignedQuery(v.method, v.host, v.path, v.access, []byte(goldenSecret), nil, v.at)
	if got := SignedQuery(v.method, v.host, v.path, v.access, []byte(goldenSecret), forged, v.at); got != want {
		t.Fatalf("business parameters changed the signature parameters:\n got %s\nwant %s", got, want)
	}
	if len(forged) != 4 || forged.Get("Signature") != "forged" {
		t.Fatalf("SignedQuery changed its parameters: %v", forged)
	}
}

func TestCanonicalHost(t *testing.T) {
	for _, tt := range []struct{ scheme, host, want string }{
		{"http", "127.0.0.1:9000", "127.0.0.1:9000"},
		{"https", "API.Example.com:443", "api.example.com"},
		{"http", "api.example.com:80", "api.example.com"},
		{"https", "api.example.com:80", "api.example.com:80"},
		{"https", "api.example.com:8443", "api.example.com:8443"},
		{"https", "Api.Example.COM", "api.example.com"},
		{"http", "[::1]:80", "[::1]"},
		{"http", "[::1]:9000", "[::1]:9000"},
		{"https", "api.example.com:", "api.example.com"}, // net/http sends it without the colon
		{"http", "[::1]:", "[::1]"},
		{"http", "[FE80::1%eth0]:9000", "[fe80::1]:9000"}, // net/http sends no zone
		{"http", "[fe80::1%eth0]:80", "[fe80::1]"},
		{"http", "[fe80::1%eth0]", "[fe80::1]"},
	} {
		if got := CanonicalHost(tt.scheme, tt.host); got != tt.want {
			t.Errorf("CanonicalHost(%q, %q) = %q, want %q", tt.scheme, tt.host, got, tt.want)
		}
	}
}

func TestAppendEscapedKeepsOnlyUnreservedCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"AZaz09-_.~": "AZaz09-_.~", " ": "%20", "+": "%2B", "/": "%2F", "=": "%3D", ":": "%3A", "€": "%E2%82%AC", "": "",
		"%": "%25", "&": "%26", "\x00\xff": "%00%FF", "*": "%2A",
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
		enc := EncodeQuery(in)
		out, err := url.ParseQuery(enc)
		if err != nil {
			t.Fatalf("EncodeQuery(%v) = %q does not parse: %v", in, enc, err)
		}
		for k, vs := range in {
			if strings.Join(out[k], "\x00") != strings.Join(vs, "\x00") {
				t.Fatalf("round trip of %q: got %q want %q", k, out[k], vs)
			}
		}
		for i := 0; i < len(enc); i++ {
			if c := enc[i]; !unreserved(c) && c != '%' && c != '=' && c != '&' {
				t.Fatalf("%q holds the reserved %q unescaped", enc, c)
			}
		}
	})
}

// FuzzSignerAgreesWithCanonical checks the signer's one-pass query against
// Canonical and Sign: what the venue rebuilds from the query it receives
// verifies under the secret.
func FuzzSignerAgreesWithCanonical(f *testing.F) {
	f.Add("GET", "127.0.0.1:9000", "contract_code", "BTC-USDT", "note", "a b+c/d=e~f€", int64(1763805600))
	f.Add("POST", "api.example.com", "Z", "", "a", "=&%", int64(0))
	f.Fuzz(func(t *testing.T, method, host, k1, v1, k2, v2 string, unix int64) {
		at := time.Unix(unix%(1<<36), 0)
		params := url.Values{k1: {v1}, k2: {v2}}
		if k1 == k2 {
			params = url.Values{k1: {v1, v2}}
		}
		q := NewSigner("key", []byte(goldenSecret)).Query(method, host, venueapi.PathTiers, params, at)
		got, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("query %q does not parse: %v", q, err)
		}
		sig := got.Get(ParamSignature)
		if !Verify([]byte(goldenSecret), Canonical(method, host, venueapi.PathTiers, got), sig) {
			t.Fatalf("query %q: its signature does not verify against the canonical string of what it carries", q)
		}
		if got.Get(ParamTimestamp) != at.UTC().Format(TimestampLayout) || got.Get(ParamAccessKeyID) != "key" {
			t.Fatalf("query %q does not carry the key and the time", q)
		}
	})
}

func TestParseTimestampTakesOnlyYYYYMMDDThhmmss(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Time // zero: refused
		rule     string    // what the refusal says
	}{
		{"the layout", "2026-01-02T03:04:05", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ""},
		{"the last second of a leap day", "2028-02-29T23:59:59", time.Date(2028, 2, 29, 23, 59, 59, 0, time.UTC), ""},
		{"a zone suffix Z", "2026-01-02T03:04:05Z", time.Time{}, "no zone"},
		{"a numeric zone", "2026-01-02T03:04:05+00:00", time.Time{}, "no zone"},
		{"fractional seconds", "2026-01-02T03:04:05.000", time.Time{}, "no fractional seconds"},
		{"fractional seconds after a comma", "2026-01-02T03:04:05,5", time.Time{}, "no fractional seconds"},
		{"a space for the T", "2026-01-02 03:04:05", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"a lower-case t", "2026-01-02t03:04:05", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"epoch seconds", "1767322245", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"epoch milliseconds", "1767322245000", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"a one-digit month padded elsewhere", "2026-1-02T03:04:005", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"a sign before the year", "+026-01-02T03:04:05", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"no seconds", "2026-01-02T03:04", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"empty", "", time.Time{}, "YYYY-MM-DDThh:mm:ss"},
		{"month 13", "2026-13-02T03:04:05", time.Time{}, "real date"},
		{"February 30", "2026-02-30T03:04:05", time.Time{}, "real date"},
		{"hour 24", "2026-01-02T24:00:00", time.Time{}, "real date"},
		{"second 60", "2026-01-02T23:59:60", time.Time{}, "real date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTimestamp(tt.in)
			if tt.want.IsZero() {
				var pe *venueapi.ParamError
				if !errors.As(err, &pe) || pe.Param != "Timestamp" || !strings.Contains(err.Error(), tt.rule) {
					t.Fatalf("ParseTimestamp(%q) = %v, %v; want a Timestamp error saying %q", tt.in, got, err, tt.rule)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Fatalf("ParseTimestamp(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
	// What the signer writes is what the venue reads.
	at := time.Date(2026, 2, 28, 18, 59, 59, 999_999_999, time.FixedZone("UTC-5", -5*3600))
	q, _ := url.ParseQuery(SignedQuery("GET", "api.example.com", venueapi.PathTiers, "key", []byte(goldenSecret), nil, at))
	if got, err := ParseTimestamp(q.Get(ParamTimestamp)); err != nil || !got.Equal(at.Truncate(time.Second)) {
		t.Fatalf("the signer's Timestamp %q reads as %v, %v; want %v", q.Get(ParamTimestamp), got, err, at.Truncate(time.Second).UTC())
	}
}

// FuzzParseTimestamp checks that what ParseTimestamp accepts is the layout
// exactly: it formats back to the same bytes.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05", "2026-01-02T03:04:05.000", "2026-01-02T03:04:05Z", "1767322245", "0000-01-01T00:00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTimestamp(s)
		if err != nil {
			return
		}
		if back := got.UTC().Format(TimestampLayout); back != s {
			t.Fatalf("ParseTimestamp accepts %q, which formats back as %q", s, back)
		}
	})
}

func BenchmarkSignedQuery(b *testing.B) {
	params := url.Values{"contract_code": {"BTC-USDT"}, "margin_mode": {"cross"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := NewSigner("e2xxxxxx-99xxxxxx-84xxxxxx-7xxxx", []byte(goldenSecret))
	b.ReportAllocs()
	for b.Loop() {
		s.Query("GET", "api.example.com", venueapi.PathTiers, params, at)
	}
}
