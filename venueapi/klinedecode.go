package venueapi

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// KLineAnswer is an answer of the KLine path as read, in either envelope:
// the venue's (status, err_code and err_msg; code and message when it
// answers as endpoint 1 does) and the gateway's, which adds stale. A nil
// Code or Status is a field that was absent or null.
type KLineAnswer struct {
	Code    *WireInt `json:"code"`
	Message string   `json:"message"`
	Status  *string  `json:"status"`
	ErrCode WireInt  `json:"err_code"`
	ErrMsg  string   `json:"err_msg"`
	Ch      string   `json:"ch"`
	Ts      WireInt  `json:"ts"`
	Data    []Candle `json:"data"`
	Stale   bool     `json:"stale"`
}

// DecodeKLine decodes a KLine answer. The common shape (plain keys, numbers
// or unescaped numeric strings) is read in one pass without reflection: it
// is the server's largest and most frequent answer, and the browser app
// reads one in each start and at each change of view (in WebAssembly,
// encoding/json's reflection is slow, and V8 recompiles its large decoder
// while the app starts: docs/performance.md). Anything else is left to
// encoding/json, so the result is always what json.Unmarshal gives (a fuzz
// target checks this).
func DecodeKLine(raw []byte) (KLineAnswer, error) {
	if a, ok := FastKLine(raw); ok {
		return a, nil
	}
	var a KLineAnswer
	err := json.Unmarshal(raw, &a)
	return a, err
}

// FastKLine decodes raw when it is sure to agree with encoding/json; ok is
// false when it is not sure (or raw is invalid), and then a is meaningless.
func FastKLine(raw []byte) (a KLineAnswer, ok bool) {
	s := scanner{b: raw}
	if !s.consume('{') {
		return a, false
	}
	var seen uint16
	if !s.consume('}') {
		for {
			key, ok := s.plainString()
			if !ok || !s.consume(':') {
				return a, false
			}
			field := fieldOf(key, topKeys[:])
			if field < 0 {
				if foldsToAny(key, topKeys[:]) || !s.skipValue(0) {
					return a, false
				}
			} else {
				if seen&(1<<field) != 0 {
					return a, false // a repeated key: leave the rules to encoding/json
				}
				seen |= 1 << field
				if !s.topValue(&a, field) {
					return a, false
				}
			}
			if s.consume(',') {
				continue
			}
			if !s.consume('}') {
				return a, false
			}
			break
		}
	}
	s.ws()
	return a, s.i == len(s.b)
}

// The top-level fields FastKLine reads, numbered as in topKeys.
const (
	fieldCode = iota
	fieldMessage
	fieldStatus
	fieldErrCode
	fieldErrMsg
	fieldCh
	fieldTs
	fieldData
	fieldStale
)

var topKeys = [...]string{"code", "message", "status", "err_code", "err_msg", "ch", "ts", "data", "stale"}

// fieldOf is the number of key in keys, compared exactly; -1 if none.
func fieldOf(key []byte, keys []string) int {
	for i, k := range keys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

// topValue reads the value of top-level field f into a.
func (s *scanner) topValue(a *KLineAnswer, f int) bool {
	if s.null() {
		switch f { // null sets a pointer or a slice to nil and leaves the rest
		case fieldCode:
			a.Code = nil
		case fieldStatus:
			a.Status = nil
		case fieldData:
			a.Data = nil
		}
		return true
	}
	switch f {
	case fieldCode, fieldErrCode, fieldTs:
		n, ok := s.integer()
		if !ok {
			return false
		}
		w := WireInt(n)
		switch f {
		case fieldCode:
			a.Code = &w
		case fieldErrCode:
			a.ErrCode = w
		default:
			a.Ts = w
		}
		return true
	case fieldData:
		return s.candles(a)
	case fieldStale:
		switch {
		case s.literal("true"):
			a.Stale = true
		case s.literal("false"):
			a.Stale = false
		default:
			return false
		}
		return true
	}
	v, ok := s.plainString()
	if !ok || !utf8.Valid(v) {
		return false
	}
	str := string(v)
	switch f {
	case fieldMessage:
		a.Message = str
	case fieldStatus:
		a.Status = &str
	case fieldErrMsg:
		a.ErrMsg = str
	case fieldCh:
		a.Ch = str
	}
	return true
}

// candles reads the data array.
func (s *scanner) candles(a *KLineAnswer) bool {
	if !s.consume('[') {
		return false
	}
	a.Data = make([]Candle, 0, min(len(s.b)/160+1, KLineMaxSize))
	if s.consume(']') {
		return true
	}
	for {
		var c Candle
		if !s.candle(&c) {
			return false
		}
		a.Data = append(a.Data, c)
		if s.consume(',') {
			continue
		}
		return s.consume(']')
	}
}

// The keys of a KLine record; all are required. The id is field 0.
var candleKeys = [...]string{"id", "vol", "count", "open", "close", "low", "high", "amount", "trade_turnover"}

// candle reads one KLine record.
func (s *scanner) candle(c *Candle) bool {
	if !s.consume('{') {
		return false
	}
	var seen uint16
	for !s.consume('}') {
		if seen != 0 && !s.consume(',') {
			return false
		}
		key, ok := s.plainString()
		if !ok || !s.consume(':') {
			return false
		}
		f := fieldOf(key, candleKeys[:])
		if f < 0 {
			if foldsToAny(key, candleKeys[:]) || !s.skipValue(0) {
				return false
			}
			seen |= 1 << 15 // something was read: a comma must follow
			continue
		}
		if seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		if f == 0 {
			if c.ID, ok = s.integer(); !ok {
				return false
			}
			continue
		}
		d, ok := s.decimal()
		if !ok {
			return false
		}
		*[...]*decimal.Decimal{nil, &c.Vol, &c.Count, &c.Open, &c.Close, &c.Low, &c.High, &c.Amount, &c.TradeTurnover}[f] = d
	}
	return seen&(1<<len(candleKeys)-1) == 1<<len(candleKeys)-1
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
	d, err := decimal.NewFromString(string(t)) // exponents, long coefficients
	return d, err == nil
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
