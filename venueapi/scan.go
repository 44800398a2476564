package venueapi

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// The one-pass readers of this package (DecodeKLine, DecodeTiers,
// DecodeContracts, DecodeStreamCandle, DecodeLimits, DecodeStreamState,
// DecodeStrings and RiskRecords' UnmarshalJSON) share this scanner. Each
// reads the common shape of its answer and reports false for anything else,
// which its caller then leaves to encoding/json; a fuzz target per reader
// holds it to encoding/json's results.

// fastOrJSON decodes raw with fast, or, where fast is not sure, with
// encoding/json into a T.
func fastOrJSON[T any](raw []byte, fast func([]byte) (T, bool)) (T, error) {
	if v, ok := fast(raw); ok {
		return v, nil
	}
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// object reads an object, each member whose key is one of keys through
// member, given the key's number; other members are checked and skipped. It
// returns the keys it read, a bit each, or false for a repeated key, a key
// that matches one of keys only case-insensitively (encoding/json's rules
// decide those) and for anything member refuses.
func (s *scanner) object(keys []string, member func(f int) bool) (seen uint32, ok bool) {
	if !s.consume('{') {
		return 0, false
	}
	if s.consume('}') {
		return 0, true
	}
	for {
		key, ok := s.plainString()
		if !ok || !s.consume(':') {
			return 0, false
		}
		switch f := fieldOf(key, keys); {
		case f >= 0:
			if seen&(1<<f) != 0 || !member(f) {
				return 0, false
			}
			seen |= 1 << f
		case foldsToAny(key, keys) || !s.skipValue(0):
			return 0, false
		}
		if !s.consume(',') {
			return seen, s.consume('}')
		}
	}
}

// array reads an array, each element through elem.
func (s *scanner) array(elem func() bool) bool {
	if !s.consume('[') {
		return false
	}
	if s.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if !s.consume(',') {
			return s.consume(']')
		}
	}
}

// list reads an array of records, each through read into an element of
// its own; size is the capacity to start with.
func list[T any](s *scanner, size int, read func(*T) bool) ([]T, bool) {
	rs := make([]T, 0, size)
	ok := s.array(func() bool {
		rs = append(rs, *new(T))
		return read(&rs[len(rs)-1])
	})
	return rs, ok
}

// end reports whether nothing but white space is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// text reads a string without escapes, in valid UTF-8.
func (s *scanner) text() (string, bool) {
	v, ok := s.plainString()
	if !ok || !utf8.Valid(v) {
		return "", false
	}
	return string(v), true
}

// boolean reads true or false.
func (s *scanner) boolean() (v, ok bool) {
	s.ws()
	switch {
	case s.literal("true"):
		return true, true
	case s.literal("false"):
		return false, true
	}
	return false, false
}

// wholeNumber reads an integer written as a JSON number (not a string:
// encoding/json refuses a string for an int field) in [lo, hi].
func (s *scanner) wholeNumber(lo, hi int64) (int64, bool) {
	t, ok := s.number()
	if !ok {
		return 0, false
	}
	n, scale, ok := simpleDecimal(t)
	return n, ok && scale == 0 && lo <= n && n <= hi
}

// fieldOf is the number of key in keys, compared exactly; -1 if none.
func fieldOf(key []byte, keys []string) int {
	for i, k := range keys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

// foldsToAny reports whether key matches one of keys only case-insensitively,
// as encoding/json would match it.
func foldsToAny(key []byte, keys []string) bool {
	for _, k := range keys {
		if bytes.EqualFold(key, []byte(k)) {
			return true
		}
	}
	return false
}

// scanner reads JSON from b at i. Every method skips leading white space and
// reports false for anything it does not read exactly as encoding/json does.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// consume reads the byte c if it comes next.
func (s *scanner) consume(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) null() bool {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// plainString reads a string without escapes and returns its bytes (raw
// bytes: the caller checks UTF-8 where it keeps them).
func (s *scanner) plainString() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// number reads a JSON number token.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// numeric reads a number or a string, as the venue writes numbers either way.
func (s *scanner) numeric() ([]byte, bool) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '"' {
		return s.plainString()
	}
	return s.number()
}

// integer reads an int64 written as -?digits, as a number or a string.
func (s *scanner) integer() (int64, bool) {
	t, ok := s.numeric()
	if !ok {
		return 0, false
	}
	coef, scale, ok := simpleDecimal(t)
	if !ok || scale != 0 {
		return 0, false
	}
	return coef, true
}

// decimal reads a decimal written as a number or a string.
func (s *scanner) decimal() (decimal.Decimal, bool) {
	t, ok := s.numeric()
	if !ok {
		return decimal.Decimal{}, false
	}
	if coef, scale, ok := simpleDecimal(t); ok {
		return decimal.New(coef, -int32(scale)), true
	}
	if len(t) > maxWireText {
		return decimal.Decimal{}, false // the slow decoder says why
	}
	d, err := decimal.NewFromString(string(t)) // exponents, long coefficients
	return d, err == nil && wireBounded(d)
}

// simpleDecimal parses -?digits(.digits)? of at most 18 digits, which is
// exactly what decimal.NewFromString makes of it.
func simpleDecimal(t []byte) (coef int64, scale int, ok bool) {
	neg := len(t) > 0 && t[0] == '-'
	if neg {
		t = t[1:]
	}
	digits, point := 0, -1
	for i, c := range t {
		switch {
		case '0' <= c && c <= '9':
			coef = coef*10 + int64(c-'0')
			digits++
		case c == '.' && point < 0 && i > 0 && i < len(t)-1:
			point = i
		default:
			return 0, 0, false
		}
	}
	if digits == 0 || digits > 18 {
		return 0, 0, false
	}
	if point >= 0 {
		scale = len(t) - point - 1
	}
	if neg {
		coef = -coef
	}
	return coef, scale, true
}

// maxSkipDepth bounds the nesting of a skipped value; deeper ones are left to
// encoding/json.
const maxSkipDepth = 64

// skipValue reads any JSON value, checking it as encoding/json would.
func (s *scanner) skipValue(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{':
		s.i++
		if s.consume('}') {
			return true
		}
		for {
			if !s.skipString() || !s.consume(':') || !s.skipValue(depth+1) {
				return false
			}
			if s.consume(',') {
				s.ws()
				continue
			}
			return s.consume('}')
		}
	case c == '[':
		s.i++
		if s.consume(']') {
			return true
		}
		for {
			if !s.skipValue(depth + 1) {
				return false
			}
			if !s.consume(',') {
				return s.consume(']')
			}
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

func (s *scanner) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// skipString reads a string with any valid escapes.
func (s *scanner) skipString() bool {
	if !s.consume('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}
