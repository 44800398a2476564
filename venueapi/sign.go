package venueapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"
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

// CanonicalHost returns host (a Host header or URL host) as it enters the
// canonical string: lower-cased, with the port only when it is not the
// scheme's default.
func CanonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return host // no port
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// Canonical returns the string that is signed:
// METHOD "\n" host "\n" path "\n" query, where query is every parameter but
// Signature, sorted by name in byte order (then by value), each name=value
// percent-encoded as RFC 3986 says, joined by '&'.
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
func SignedQuery(method, host, path, accessKey string, secret []byte, params url.Values, now time.Time) string {
	all := make(url.Values, len(params)+4)
	for k, v := range params {
		all[k] = v
	}
	all.Set(ParamAccessKeyID, accessKey)
	all.Set(ParamSignatureMethod, SignatureMethod)
	all.Set(ParamSignatureVersion, SignatureVersion)
	all.Set(ParamTimestamp, now.UTC().Format(TimestampLayout))
	query := EncodeQuery(all, ParamSignature)
	sig := Sign(secret, method+"\n"+host+"\n"+path+"\n"+query)
	return query + "&" + ParamSignature + "=" + string(AppendEscaped(nil, sig))
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
