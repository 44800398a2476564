package venueapi

import (
	"encoding/json"
	"math"

	"github.com/shopspring/decimal"
)

// The app's risk panel reads a position-limit answer in its first run, keeps
// the tiers and limits on show in browser storage, and reads them back when
// the server cannot be reached; the chart reads the stream's state event
// during its start. With encoding/json, those were the start's last decodes
// and encodes by reflection, and the first use of each costs V8 a compile of
// encoding/json's large functions while the app starts
// (docs/startup.md, "The risk panel's records"). These readers take the
// common shape in one pass and leave anything else to encoding/json, so
// that the result is always what json.Unmarshal gives.

// DecodeLimits decodes an answer of the position-limit path, as
// json.Unmarshal into a LimitEnvelope does (on an error, env holds what was
// read).
func DecodeLimits(raw []byte) (LimitEnvelope, error) {
	return fastOrJSON(raw, FastLimits)
}

// FastLimits decodes raw when it is sure to agree with encoding/json; ok is
// false when it is not sure (or raw is invalid), and then env is
// meaningless.
func FastLimits(raw []byte) (env LimitEnvelope, ok bool) {
	s := scanner{b: raw}
	_, ok = s.object(limitEnvelopeKeys[:], func(f int) bool {
		if s.null() { // leaves the field as it is; data becomes nil
			if f == 1 {
				env.Data = nil
			}
			return true
		}
		var ok bool
		switch f {
		case 0: // status
			env.Status, ok = s.text()
		case 1: // data
			env.Data, ok = s.limits()
		case 2: // ts
			env.Ts, ok = s.wholeNumber(math.MinInt64, math.MaxInt64)
		case 3: // err_code
			var n int64
			n, ok = s.wholeNumber(math.MinInt, math.MaxInt)
			env.ErrCode = int(n)
		case 4: // err_msg
			env.ErrMsg, ok = s.text()
		case 5: // stale
			env.Stale, ok = s.boolean()
		}
		return ok
	})
	return env, ok && s.end()
}

var (
	limitEnvelopeKeys = [...]string{"status", "data", "ts", "err_code", "err_msg", "stale"}
	limitKeys         = [...]string{"symbol", "contract_code", "margin_mode", "buy_limit", "sell_limit", "contract_type", "pair",
		"business_type", "lever_rate", "buy_limit_value", "sell_limit_value", "mark_price", "trade_partition"}
)

// limitRequired is object's seen when every key of a position-limit record
// but the deprecated trade_partition (the last) was read.
const limitRequired = 1<<(len(limitKeys)-1) - 1

// limits reads an array of position-limit records.
func (s *scanner) limits() ([]PositionLimit, bool) { return list(s, 4, s.limit) }

// limit reads a position-limit record with every required field given and
// none null: PositionLimit.UnmarshalJSON's errors are left to it.
func (s *scanner) limit(p *PositionLimit) bool {
	seen, ok := s.object(limitKeys[:], func(f int) bool {
		switch f {
		case 0, 1, 2, 5, 6, 7, 12:
			if f == 12 && s.null() { // the deprecated trade_partition may be null
				return true
			}
			v, ok := s.text()
			*[...]*string{&p.Symbol, &p.ContractCode, &p.MarginMode, 5: (*string)(&p.ContractType), &p.Pair, &p.BusinessType,
				12: &p.TradePartition}[f] = v
			return ok
		case 8:
			d, ok := s.decimal()
			if !ok || !isLeverRate(d) {
				return false // UnmarshalJSON says why
			}
			p.LeverRate = int(d.IntPart())
			return true
		}
		d, ok := s.decimal()
		*[...]*decimal.Decimal{3: &p.BuyLimit, &p.SellLimit, 9: &p.BuyLimitValue, &p.SellLimitValue, &p.MarkPrice}[f] = d
		return ok
	})
	return ok && seen&limitRequired == limitRequired
}

// RiskRecords are a contract's tiers and position limits, as the app keeps
// the last it showed in browser storage: written and read in one pass, in
// the bytes encoding/json writes and reads of the same struct.
type RiskRecords struct {
	Tiers  []Tier          `json:"tiers"`
	Limits []PositionLimit `json:"limits"`
}

// AppendJSON appends the records to b as json.Marshal writes them.
func (r RiskRecords) AppendJSON(b []byte) []byte {
	b = appendSlice(append(b, `{"tiers":`...), r.Tiers)
	b = appendSlice(append(b, `,"limits":`...), r.Limits)
	return append(b, '}')
}

// UnmarshalJSON reads the records as json.Unmarshal would without this
// method: the common shape in one pass, anything else by encoding/json.
func (r *RiskRecords) UnmarshalJSON(b []byte) error {
	if next, ok := r.fast(b); ok {
		*r = next
		return nil
	}
	type plain RiskRecords // encoding/json's own reading, not this method
	return json.Unmarshal(b, (*plain)(r))
}

// FastRiskRecords decodes raw when it is sure to agree with encoding/json;
// ok is false when it is not sure (or raw is invalid), and then r is
// meaningless.
func FastRiskRecords(raw []byte) (r RiskRecords, ok bool) {
	return r.fast(raw)
}

// fast is r with what raw gives, a member left out leaving r's as it is.
func (r RiskRecords) fast(raw []byte) (RiskRecords, bool) {
	s := scanner{b: raw}
	_, ok := s.object(riskRecordKeys[:], func(f int) bool {
		if s.null() {
			if f == 0 {
				r.Tiers = nil
			} else {
				r.Limits = nil
			}
			return true
		}
		var ok bool
		if f == 0 {
			r.Tiers, ok = s.tiers()
		} else {
			r.Limits, ok = s.limits()
		}
		return ok
	})
	return r, ok && s.end()
}

var riskRecordKeys = [...]string{"tiers", "limits"}

// AppendStrings appends ss to b as json.Marshal writes a []string.
func AppendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// DecodeStrings decodes a JSON array of strings, as json.Unmarshal into a
// []string does: strings without escapes in one pass, anything else by
// encoding/json.
func DecodeStrings(raw []byte) ([]string, error) {
	return fastOrJSON(raw, FastStrings)
}

// FastStrings decodes raw when it is sure to agree with encoding/json; ok
// is false when it is not sure (or raw is invalid).
func FastStrings(raw []byte) (ss []string, ok bool) {
	s := scanner{b: raw}
	if s.null() {
		return nil, s.end()
	}
	ss = make([]string, 0, 16)
	ok = s.array(func() bool {
		v, ok := s.text()
		ss = append(ss, v)
		return ok
	})
	return ss, ok && s.end()
}
