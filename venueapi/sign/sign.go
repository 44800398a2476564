// Package sign writes and checks the venue's request signatures (HmacSHA256,
// SignatureVersion 2): the canonical string, the signature, the signed query
// and the Timestamp's rules (docs/venue.md, docs/decisions.md#timestamp).
// The venue client signs with it and the sandbox verifies with it. It is a
// package of its own, not part of venueapi, because the browser never signs:
// app.wasm links venueapi, and this package's crypto/hmac and net would come
// with it.
package sign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// The signature parameters of endpoints 1 and 2 (SignatureVersion 2).
const (
	ParamAccessKeyID      = "AccessKeyId"
	ParamSignatureMethod  = "SignatureMethod"
	ParamSignatureVersion = "SignatureVersion"
	ParamTimestamp        = "Timestamp"
	ParamSignature        = "Signature"

	SignatureMethod  = "HmacSHA256"
	SignatureVersion = "2"
	TimestampLayout  = "2006-01-02T15:04:05"
	// TimestampWindow is how far a Timestamp may be from the venue's clock,
	// either way.
	TimestampWindow = 5 * time.Minute
)

// timestampShape is TimestampLayout character by character: 'd' where a
// digit goes, any other byte as itself.
const timestampShape = "dddd-dd-ddTdd:dd:dd"

// ParseTimestamp reads a Timestamp parameter as the venue takes it
// (docs/decisions.md#timestamp): exactly YYYY-MM-DDThh:mm:ss, a UTC instant
// with no zone and no fractional seconds; anything else is a *venueapi.ParamError
// naming Timestamp. The shape is checked byte by byte before time.Parse,
// which accepts fractional seconds its layout does not have.
func ParseTimestamp(s string) (time.Time, error) {
	if len(s) != len(timestampShape) {
		return time.Time{}, badTimestamp(s)
	}
	for i := range len(timestampShape) {
		want, c := timestampShape[i], s[i]
		if want == 'd' && (c < '0' || c > '9') || want != 'd' && c != want {
			return time.Time{}, badTimestamp(s)
		}
	}
	t, err := time.Parse(TimestampLayout, s)
	if err != nil { // month 13, February 30, hour 24 and the like
		return time.Time{}, &venueapi.ParamError{Param: ParamTimestamp, Rule: "must be a real date and time of day", Value: s}
	}
	return t, nil
}

func badTimestamp(s string) error {
	return &venueapi.ParamError{Param: ParamTimestamp, Rule: "must be YYYY-MM-DDThh:mm:ss in UTC: no zone, no fractional seconds", Value: s}
}

// CanonicalHost returns host (a Host header or URL host) as it enters the
// canonical string: lower-cased, with the port only when it is not the
// scheme's default. An empty port ("host:") is the default: net/http sends
// such a URL's Host header without it. An IPv6 literal's zone
// ("[fe80::1%eth0]") is left out: it names an interface of the sender, and
// no Host header carries it (net/http drops it).
func CanonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil { // no port
		if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
			return "[" + withoutZone(host[1:len(host)-1]) + "]"
		}
		return host
	}
	if strings.Contains(h, ":") {
		h = "[" + withoutZone(h) + "]"
	}
	if port == "" || (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		return h
	}
	return h + ":" + port
}

// withoutZone returns an IPv6 address without its "%zone".
func withoutZone(ip string) string {
	ip, _, _ = strings.Cut(ip, "%")
	return ip
}

// Canonical returns the string that is signed:
// METHOD "\n" host "\n" path "\n" query, where query is every parameter but
// Signature, sorted by name in byte order (the values of one name in the
// order given), each name=value percent-encoded as RFC 3986 says, joined by '&'.
func Canonical(method, host, path string, params url.Values) string {
	var b strings.Builder
	b.Grow(len(method) + len(host) + len(path) + 3 + 32*len(params))
	b.WriteString(method)
	b.WriteByte('\n')
	b.WriteString(host)
	b.WriteByte('\n')
	b.WriteString(path)
	b.WriteByte('\n')
	b.WriteString(EncodeQuery(params, ParamSignature))
	return b.String()
}

// EncodeQuery encodes params sorted by name (byte order), values of one name
// in the order given, each percent-encoded as RFC 3986 says (unreserved
// characters kept, everything else %XX in upper-case hex). Names listed in
// skip are left out.
func EncodeQuery(params url.Values, skip ...string) string {
	names := make([]string, 0, len(params))
	size := 0
	for k, vs := range params {
		if contains(skip, k) {
			continue
		}
		names = append(names, k)
		for _, v := range vs {
			size += len(k) + len(v) + 2
		}
	}
	sort.Strings(names)
	buf := make([]byte, 0, size*3/2)
	for _, k := range names {
		for _, v := range params[k] {
			if len(buf) > 0 {
				buf = append(buf, '&')
			}
			buf = AppendEscaped(buf, k)
			buf = append(buf, '=')
			buf = AppendEscaped(buf, v)
		}
	}
	return string(buf)
}

// Sign returns the Base64 (standard, padded) HMAC-SHA256 of canonical under secret.
func Sign(secret []byte, canonical string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(canonical))
	var sum [sha256.Size]byte
	return base64.StdEncoding.EncodeToString(m.Sum(sum[:0]))
}

// Verify reports, in constant time, whether signature is canonical's
// signature under secret.
func Verify(secret []byte, canonical, signature string) bool {
	want := Sign(secret, canonical)
	return hmac.Equal([]byte(want), []byte(signature))
}

// SignedQuery returns the full query string of a signed request: params plus
// AccessKeyId, SignatureMethod, SignatureVersion and Timestamp, all sorted and
// encoded as in the canonical string, then Signature. params is not changed.
// A client that signs often keeps a Signer instead.
func SignedQuery(method, host, path, accessKey string, secret []byte, params url.Values, now time.Time) string {
	return NewSigner(accessKey, secret).Query(method, host, path, params, now)
}

// Signer signs requests with one key. It keeps keyed HMAC states for reuse,
// so that signing allocates little; it is safe for concurrent use.
type Signer struct {
	access string
	pool   sync.Pool // of hash.Hash, keyed with the secret
}

// NewSigner returns a signer for the access key and its secret.
func NewSigner(accessKey string, secret []byte) *Signer {
	key := append([]byte(nil), secret...)
	s := &Signer{access: accessKey}
	s.pool.New = func() any { return hmac.New(sha256.New, key) }
	return s
}

type param struct{ k, v string }

// Query is SignedQuery with the signer's key.
func (s *Signer) Query(method, host, path string, params url.Values, now time.Time) string {
	var ts [len(TimestampLayout)]byte
	stamp := string(now.UTC().AppendFormat(ts[:0], TimestampLayout))
	var stack [16]param
	ps := append(stack[:0],
		param{ParamAccessKeyID, s.access}, param{ParamSignatureMethod, SignatureMethod},
		param{ParamSignatureVersion, SignatureVersion}, param{ParamTimestamp, stamp})
	for k, vs := range params {
		if k == ParamSignature || k == ParamAccessKeyID || k == ParamSignatureMethod || k == ParamSignatureVersion || k == ParamTimestamp {
			continue
		}
		for _, v := range vs {
			ps = append(ps, param{k, v})
		}
	}
	// Insertion sort by name, byte order: few parameters, and stable, so the
	// values of one name keep their order.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].k < ps[j-1].k; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	b := make([]byte, 0, 512)
	b = append(b, method...)
	b = append(b, '\n')
	b = append(b, host...)
	b = append(b, '\n')
	b = append(b, path...)
	b = append(b, '\n')
	start := len(b)
	for i, p := range ps {
		if i > 0 {
			b = append(b, '&')
		}
		b = AppendEscaped(b, p.k)
		b = append(b, '=')
		b = AppendEscaped(b, p.v)
	}
	m := s.pool.Get().(hash.Hash)
	m.Reset()
	m.Write(b)
	var sum [sha256.Size]byte
	var sig [44]byte // base64 of 32 bytes
	base64.StdEncoding.Encode(sig[:], m.Sum(sum[:0]))
	s.pool.Put(m)
	b = append(b, "&"+ParamSignature+"="...)
	b = appendEscapedBytes(b, sig[:])
	return string(b[start:])
}

func appendEscapedBytes(b, s []byte) []byte {
	const hex = "0123456789ABCDEF"
	for _, c := range s {
		if unreserved(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return b
}

// AppendEscaped appends s percent-encoded as RFC 3986 says: A-Z a-z 0-9 - _ . ~
// kept, every other byte %XX with upper-case hex (a space is %20).
func AppendEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return b
}

func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
