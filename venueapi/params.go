package venueapi

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ParamError is a request parameter that breaks a rule of the interface. The
// venue answers it with CodeInvalidInput; every party reports it the same way.
type ParamError struct {
	Param string // the parameter's wire name, e.g. "size"
	Rule  string // the rule it breaks, e.g. "must be an integer from 1 to 2000"
	Value string // what was given, for the message (cut to 64 bytes)
}

func (e *ParamError) Error() string {
	v := e.Value
	if len(v) > 64 {
		v = v[:64] + "…"
	}
	if v == "" {
		return fmt.Sprintf("invalid %s: %s", e.Param, e.Rule)
	}
	return fmt.Sprintf("invalid %s: %s (got %q)", e.Param, e.Rule, v)
}

// ParseQuery decodes a query string as the venue reads one: every pair or
// none. url.ParseQuery drops a pair it cannot decode and reports it in an
// error that r.URL.Query() throws away, so size=%ZZ would read as no size at
// all; here it is an error naming size.
func ParseQuery(raw string) (url.Values, error) {
	if v, ok := parsePlainQuery(raw); ok {
		return v, nil
	}
	v, err := url.ParseQuery(raw)
	if err == nil {
		return v, nil
	}
	// Find the pair that failed, to name it: the same walk as url.ParseQuery's.
	for pair := range strings.SplitSeq(raw, "&") {
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, keyErr := url.QueryUnescape(rawKey)
		if keyErr != nil {
			return nil, &ParamError{Param: "query", Rule: "parameter names must be valid percent-encoding", Value: rawKey}
		}
		name, given := key, rawValue
		switch {
		case key == "": // the pair names no parameter: name the query
			name, given = "query", pair
		case len(key) > 64:
			name = key[:64] + "…" // the message echoes it
		}
		if strings.Contains(pair, ";") {
			return nil, &ParamError{Param: name, Rule: "must not contain ';': parameters are separated by '&'", Value: given}
		}
		if _, err := url.QueryUnescape(rawValue); err != nil {
			return nil, &ParamError{Param: name, Rule: "must be valid percent-encoding (%XX, two hex digits)", Value: given}
		}
	}
	return nil, &ParamError{Param: "query", Rule: "must be a valid query string: " + err.Error()}
}

// plainQueryMax is the most pairs parsePlainQuery reads: a browser's query
// has a handful.
const plainQueryMax = 16

// parsePlainQuery reads a query that needs no decoding (no '%', '+' or ';')
// and has at most plainQueryMax pairs, as url.ParseQuery would, with one
// slice for all the values instead of one a parameter: every request the
// gateway answers is parsed. ok is false for any other query.
func parsePlainQuery(raw string) (v url.Values, ok bool) {
	n := strings.Count(raw, "&") + 1
	if n > plainQueryMax || strings.ContainsAny(raw, "%+;") {
		return nil, false
	}
	v = make(url.Values, n)
	values := make([]string, 0, n)
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		if vs, seen := v[key]; seen {
			v[key] = append(vs, value)
			continue
		}
		values = append(values, value)
		v[key] = values[len(values)-1 : len(values) : len(values)] // capacity 1: an append copies
	}
	return v, true
}

// KLineQuery is a request of endpoint 3. Either Size, or From and To
// (Range set), select the candles; with neither, the latest 150.
type KLineQuery struct {
	ContractCode string
	Period       Period
	Size         int   // 0: not given
	From, To     int64 // candle ids (UTC seconds), inclusive; used when Range is set
	Range        bool  // From and To select the candles: given, and Size not
}

// Validate checks q against the rules of endpoint 3 and docs/decisions.md.
func (q KLineQuery) Validate() error {
	if _, err := ParseContractCode(q.ContractCode); err != nil {
		return err
	}
	if !q.Period.Valid() {
		return &ParamError{Param: "period", Rule: "must be one of 1min, 5min, 15min, 30min, 60min, 1hour, 4hour, 1day, 1mon", Value: string(q.Period)}
	}
	if q.Size != 0 && (q.Size < KLineMinSize || q.Size > KLineMaxSize) {
		return &ParamError{Param: "size", Rule: "must be an integer from 1 to 2000", Value: strconv.Itoa(q.Size)}
	}
	if q.Range && q.Size == 0 {
		for _, b := range [...]struct {
			param string
			v     int64
		}{{"from", q.From}, {"to", q.To}} {
			if b.v < 0 || b.v > KLineMaxSeconds {
				return &ParamError{Param: b.param, Rule: SecondsRule, Value: strconv.FormatInt(b.v, 10)}
			}
		}
		if q.From > q.To {
			return &ParamError{Param: "from", Rule: "must not be after to", Value: strconv.FormatInt(q.From, 10)}
		}
		if n := q.Period.Count(q.From, q.To); n > KLineMaxSize {
			return &ParamError{Param: "to", Rule: fmt.Sprintf("from..to must hold at most 2000 candles (holds %d): page in chunks", n), Value: strconv.FormatInt(q.To, 10)}
		}
	}
	return nil
}

// Effective returns q as the venue reads it: size wins over from and to, and
// with none of them the size is 150.
func (q KLineQuery) Effective() KLineQuery {
	switch {
	case q.Size != 0:
		q.Range, q.From, q.To = false, 0, 0
	case !q.Range:
		q.Size = KLineDefaultSize
	}
	return q
}

// Values encodes q as query parameters.
func (q KLineQuery) Values() url.Values {
	v := url.Values{"contract_code": {q.ContractCode}, "period": {string(q.Period)}}
	if q.Size != 0 {
		v.Set("size", strconv.Itoa(q.Size))
	}
	if q.Range {
		v.Set("from", strconv.FormatInt(q.From, 10))
		v.Set("to", strconv.FormatInt(q.To, 10))
	}
	return v
}

// ParseKLineQuery reads and validates endpoint 3's parameters. With size,
// from and to are ignored (docs/decisions.md#kline-size-with-from-and-to):
// only their presence is read, so whatever they hold, and however often,
// the answer is the latest size candles.
func ParseKLineQuery(v url.Values) (KLineQuery, error) {
	if err := single(v, "contract_code", "period", "size"); err != nil {
		return KLineQuery{}, err
	}
	q := KLineQuery{ContractCode: v.Get("contract_code"), Period: Period(v.Get("period"))}
	if v.Get("period") == "" {
		return q, &ParamError{Param: "period", Rule: "is required"}
	}
	if s, ok := v["size"]; ok {
		n, ok := plainInt(s[0])
		if !ok || n < KLineMinSize || n > KLineMaxSize {
			return q, &ParamError{Param: "size", Rule: "must be an integer from 1 to 2000" + plainDigits, Value: s[0]}
		}
		q.Size = int(n)
	}
	_, hasFrom := v["from"]
	_, hasTo := v["to"]
	switch {
	case hasFrom && !hasTo:
		return q, &ParamError{Param: "to", Rule: "is required when from is given"}
	case hasTo && !hasFrom:
		return q, &ParamError{Param: "from", Rule: "is required when to is given"}
	case hasFrom && q.Size == 0:
		var err error
		if q.From, q.To, err = parseRange(v); err != nil {
			return q, err
		}
		q.Range = true
	}
	return q, q.Validate()
}

// parseRange reads from and to, each given once.
func parseRange(v url.Values) (from, to int64, err error) {
	if err := single(v, "from", "to"); err != nil {
		return 0, 0, err
	}
	if from, err = parseSeconds("from", v.Get("from")); err != nil {
		return 0, 0, err
	}
	if to, err = parseSeconds("to", v.Get("to")); err != nil {
		return 0, 0, err
	}
	return from, to, nil
}

func parseSeconds(param, s string) (int64, error) {
	n, ok := plainInt(s)
	if !ok || n > KLineMaxSeconds {
		return 0, &ParamError{Param: param, Rule: SecondsRule + plainDigits, Value: s}
	}
	return n, nil
}

// SecondsRule is the rule of from and to: the bound is named, so that a
// value in plain digits past it is not refused for rules it keeps
// (TestTheSecondsRuleNamesTheBound holds the digits to KLineMaxSeconds).
const SecondsRule = "must be a timestamp in whole seconds from 0 to 1099511627776"

// plainDigits is the form every number of a query takes, as the venue writes
// it: strconv would also read "+5", "05" and "-0", which the venue refuses.
const plainDigits = ", in plain digits (no sign, spaces or leading zeros)"

// plainInt reads a non-negative integer in plain digits: ASCII 0-9 only, no
// leading zero but in "0" itself.
func plainInt(s string) (int64, bool) {
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return 0, false // 18 digits never overflow an int64
	}
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// single rejects a parameter given more than once: the venue would read only
// one of them, and which one is not said.
func single(v url.Values, names ...string) error {
	for _, n := range names {
		if len(v[n]) > 1 {
			return &ParamError{Param: n, Rule: "must be given at most once"}
		}
	}
	return nil
}

// MarginCross is the only margin mode of endpoints 1 and 2.
const MarginCross = "cross"

// TierQuery is a request of endpoint 1.
type TierQuery struct {
	ContractCode string // a swap, <BASE>-<QUOTE>
	MarginMode   string // "" or "cross"
}

// Validate checks q against the rules of endpoint 1.
func (q TierQuery) Validate() error {
	c, err := ParseContractCode(q.ContractCode)
	if err != nil {
		return err
	}
	if c.Kind != KindSwap {
		return &ParamError{Param: "contract_code", Rule: "must be a swap, <BASE>-<QUOTE>", Value: q.ContractCode}
	}
	if q.MarginMode != "" && q.MarginMode != MarginCross {
		return &ParamError{Param: "margin_mode", Rule: "must be cross", Value: q.MarginMode}
	}
	return nil
}

// Values encodes q as query parameters.
func (q TierQuery) Values() url.Values {
	v := url.Values{"contract_code": {q.ContractCode}}
	if q.MarginMode != "" {
		v.Set("margin_mode", q.MarginMode)
	}
	return v
}

// ParseTierQuery reads and validates endpoint 1's parameters.
func ParseTierQuery(v url.Values) (TierQuery, error) {
	if err := single(v, "contract_code", "margin_mode"); err != nil {
		return TierQuery{}, err
	}
	q := TierQuery{ContractCode: v.Get("contract_code"), MarginMode: v.Get("margin_mode")}
	return q, q.Validate()
}

// Business types of endpoint 2.
const (
	BusinessSwap    = "swap"
	BusinessFutures = "futures"
	BusinessAll     = "all"
)

// LimitQuery is a request of endpoint 2; every field is optional. It is the
// JSON body the venue client sends.
type LimitQuery struct {
	ContractCode string       `json:"contract_code,omitempty"`
	Pair         string       `json:"pair,omitempty"`
	ContractType ContractType `json:"contract_type,omitempty"`
	BusinessType string       `json:"business_type,omitempty"`
}

// CombinationError is parameters of endpoint 2 that are each valid alone but
// that its rules do not allow together (docs/decisions.md#position-limit-combinations).
// It unwraps to the *ParamError naming the parameter and the rule.
type CombinationError struct{ *ParamError }

// Unwrap returns the *ParamError.
func (e *CombinationError) Unwrap() error { return e.ParamError }

// Validate checks q against the rules of endpoint 2: a contract code is a swap
// or a dated future; the business type agrees with what is asked for, which
// is the contract code's kind, else the contract type's (rule 2): futures or
// all for a future (rule 3), swap or all for a swap. A broken combination is
// a *CombinationError.
func (q LimitQuery) Validate() error {
	future, swap := false, false
	if q.ContractCode != "" {
		c, err := ParseContractCode(q.ContractCode)
		if err != nil {
			return err
		}
		if c.Kind == KindTypeCode {
			return &ParamError{Param: "contract_code", Rule: "must be a swap <BASE>-<QUOTE> or a future <BASE>-<QUOTE>-<YYMMDD>", Value: q.ContractCode}
		}
		future, swap = c.Kind == KindFuture, c.Kind == KindSwap
	}
	if q.Pair != "" {
		if _, _, err := ParsePair("pair", q.Pair); err != nil {
			return err
		}
	}
	if q.ContractType != "" {
		if !q.ContractType.Valid() {
			return &ParamError{Param: "contract_type", Rule: "must be one of swap, this_week, next_week, quarter, next_quarter", Value: string(q.ContractType)}
		}
		if q.ContractCode == "" {
			future, swap = q.ContractType != TypeSwap, q.ContractType == TypeSwap
		}
	}
	switch q.BusinessType {
	case "", BusinessSwap, BusinessFutures, BusinessAll:
	default:
		return &ParamError{Param: "business_type", Rule: "must be one of futures, swap, all", Value: q.BusinessType}
	}
	if future && q.BusinessType != BusinessFutures && q.BusinessType != BusinessAll {
		return &CombinationError{&ParamError{Param: "business_type", Rule: "must be futures or all when querying a futures contract", Value: q.BusinessType}}
	}
	if swap && q.BusinessType == BusinessFutures {
		return &CombinationError{&ParamError{Param: "business_type", Rule: "must be swap or all when querying a swap: futures holds no swap", Value: q.BusinessType}}
	}
	return nil
}

// Business returns the business type the venue reads: swap when none is given.
func (q LimitQuery) Business() string {
	if q.BusinessType == "" {
		return BusinessSwap
	}
	return q.BusinessType
}

// params are q's parameters, named, in the order of its JSON body.
func (q LimitQuery) params() [4][2]string {
	return [...][2]string{{"contract_code", q.ContractCode}, {"pair", q.Pair}, {"contract_type", string(q.ContractType)}, {"business_type", q.BusinessType}}
}

// Values encodes q as query parameters (the spec's sample form).
func (q LimitQuery) Values() url.Values {
	v := url.Values{}
	for _, kv := range q.params() {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	return v
}

// AppendJSON appends q as the JSON body that encoding/json writes of it, the
// parameters given and no others, without reflection: the app sends it in
// its first run (docs/startup.md, "The lists read in one pass").
func (q LimitQuery) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for _, kv := range q.params() {
		if kv[1] == "" {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, kv[0])
		b = append(b, ':')
		b = appendString(b, kv[1])
	}
	return append(b, '}')
}

// ParseLimitQuery reads and validates endpoint 2's parameters from values.
func ParseLimitQuery(v url.Values) (LimitQuery, error) {
	if err := single(v, "contract_code", "pair", "contract_type", "business_type"); err != nil {
		return LimitQuery{}, err
	}
	q := LimitQuery{ContractCode: v.Get("contract_code"), Pair: v.Get("pair"), ContractType: ContractType(v.Get("contract_type")), BusinessType: v.Get("business_type")}
	return q, q.Validate()
}
