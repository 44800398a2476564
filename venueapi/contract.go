package venueapi

import (
	"strings"
	"time"
)

// ContractKind tells the three shapes of a contract code apart.
type ContractKind int

const (
	// KindSwap is a perpetual swap, <BASE>-<QUOTE>.
	KindSwap ContractKind = iota + 1
	// KindFuture is a dated future, <BASE>-<QUOTE>-<YYMMDD>.
	KindFuture
	// KindTypeCode names the current future of a contract type,
	// <BASE>-<QUOTE>-CW, -NW, -CQ or -NQ.
	KindTypeCode
)

// ContractType is a contract type as endpoint 2 names it.
type ContractType string

// The contract types of endpoint 2.
const (
	TypeSwap        ContractType = "swap"
	TypeThisWeek    ContractType = "this_week"
	TypeNextWeek    ContractType = "next_week"
	TypeQuarter     ContractType = "quarter"
	TypeNextQuarter ContractType = "next_quarter"
)

// Valid reports whether t is one of the five contract types.
func (t ContractType) Valid() bool {
	switch t {
	case TypeSwap, TypeThisWeek, TypeNextWeek, TypeQuarter, TypeNextQuarter:
		return true
	}
	return false
}

// typeCodes maps the suffixes of contract-type codes to their contract type.
var typeCodes = map[string]ContractType{"CW": TypeThisWeek, "NW": TypeNextWeek, "CQ": TypeQuarter, "NQ": TypeNextQuarter}

// TypeCodeSuffix returns the -CW/-NW/-CQ/-NQ suffix of a future contract type.
func TypeCodeSuffix(t ContractType) string {
	for s, ct := range typeCodes {
		if ct == t {
			return s
		}
	}
	return ""
}

// Contract is a parsed contract code.
type Contract struct {
	Code     string       // the code as given, e.g. "BTC-USDT-CQ"
	Base     string       // "BTC"
	Quote    string       // "USDT"
	Kind     ContractKind // swap, dated future or contract-type code
	Delivery time.Time    // delivery date (00:00 UTC of that day) of a dated future
	Type     ContractType // swap, or the type a contract-type code names; empty for a dated future
}

// Pair is the contract's pair, <BASE>-<QUOTE>.
func (c Contract) Pair() string { return c.Base + "-" + c.Quote }

// The shape of a well-formed contract code, for parties that cannot call
// ParseContractCode (the page's first-paint script): the pattern is valid
// in Go's regexp and in JavaScript alike. A code that matches it and is at
// most ContractCodeMaxLen long is well-formed but for one rule the pattern
// leaves out: a dated future's YYMMDD must be a real date.
const (
	ContractCodePattern = `^[A-Z0-9]+-[A-Z0-9]+(-(CW|NW|CQ|NQ|[0-9]{6}))?$`
	ContractCodeMaxLen  = 40
)

// ParseContractCode parses a contract code of any of the three shapes. A code
// that is not well-formed (upper-case letters and digits only, in one of the
// shapes) is a *ParamError naming "contract_code".
func ParseContractCode(code string) (Contract, error) {
	bad := func(rule string) (Contract, error) {
		return Contract{}, &ParamError{Param: "contract_code", Rule: rule, Value: code}
	}
	if code == "" {
		return bad("is required")
	}
	if len(code) > ContractCodeMaxLen {
		return bad("must be at most 40 characters")
	}
	// Cut rather than strings.Split, whose slice would be this call's one
	// allocation: it runs for every request the gateway answers.
	base, rest, dashed := strings.Cut(code, "-")
	quote, suffix, dated := strings.Cut(rest, "-")
	if !dashed || strings.Contains(suffix, "-") {
		return bad("must be <BASE>-<QUOTE>, <BASE>-<QUOTE>-<YYMMDD> or <BASE>-<QUOTE>-CW/NW/CQ/NQ")
	}
	part := func(p string) bool { return p != "" && upperAlnum(p) }
	if !part(base) || !part(quote) || dated && !part(suffix) {
		return bad("must be upper-case letters and digits separated by '-'")
	}
	c := Contract{Code: code, Base: base, Quote: quote, Kind: KindSwap, Type: TypeSwap}
	if !dated {
		return c, nil
	}
	if t, ok := typeCodes[suffix]; ok {
		c.Kind, c.Type = KindTypeCode, t
		return c, nil
	}
	if len(suffix) != 6 {
		return bad("delivery date must be YYMMDD, or the suffix CW, NW, CQ or NQ")
	}
	d, err := time.Parse("060102", suffix)
	var again [6]byte
	if err != nil || string(d.AppendFormat(again[:0], "060102")) != suffix {
		return bad("delivery date must be a real date YYMMDD")
	}
	c.Kind, c.Type, c.Delivery = KindFuture, "", d.UTC()
	return c, nil
}

// IsTypeCode reports whether a well-formed contract code (one
// ParseContractCode accepts) is a contract-type code, <BASE>-<QUOTE>-CW, -NW,
// -CQ or -NQ, without parsing it again.
func IsTypeCode(code string) bool {
	i := strings.LastIndexByte(code, '-')
	if i < 0 || strings.Count(code[:i], "-") != 1 {
		return false
	}
	_, ok := typeCodes[code[i+1:]]
	return ok
}

// LastDelivery is the latest delivery at or before t, a Friday at 08:00 UTC
// (docs/decisions.md#futures-calendar): since then a contract-type code
// (BTC-USDT-CW, -NW, -CQ, -NQ) names the future it names at t, whose
// candles, closed ones included, are not the one's before it
// (docs/decisions.md#contract-type-codes).
func LastDelivery(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 8, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Friday || d.After(t) {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// ParsePair parses a pair, <BASE>-<QUOTE>, for the parameter named param.
func ParsePair(param, s string) (base, quote string, err error) {
	b, q, ok := strings.Cut(s, "-")
	if !ok || b == "" || q == "" || !upperAlnum(b) || !upperAlnum(q) || len(s) > 40 {
		return "", "", &ParamError{Param: param, Rule: "must be <BASE>-<QUOTE> in upper-case letters and digits", Value: s}
	}
	return b, q, nil
}

func upperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
