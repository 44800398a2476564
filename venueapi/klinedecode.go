package venueapi

import (
	"encoding/json"

	"github.com/shopspring/decimal"
)

// KLineAnswer is an answer of the KLine path as read, in either envelope:
// the venue's (status, err_code and err_msg; code and message when it
// answers as endpoint 1 does) and the gateway's, which adds stale and, for a
// contract-type code, delivery (KLineEnvelope). A nil Code or Status is a
// field that was absent or null.
type KLineAnswer struct {
	Code     *WireInt `json:"code"`
	Message  string   `json:"message"`
	Status   *string  `json:"status"`
	ErrCode  WireInt  `json:"err_code"`
	ErrMsg   string   `json:"err_msg"`
	Ch       string   `json:"ch"`
	Ts       WireInt  `json:"ts"`
	Data     []Candle `json:"data"`
	Stale    bool     `json:"stale"`
	Delivery WireInt  `json:"delivery"`
}

// DecodeKLine decodes a KLine answer. The common shape (plain keys, numbers
// or unescaped numeric strings) is read in one pass without reflection: it
// is the server's largest and most frequent answer, and the browser app
// reads one in each start and at each change of view (in WebAssembly,
// encoding/json's reflection is slow, and V8 recompiles its large decoder
// while the app starts: docs/startup.md, "The app's candles, read in one
// pass"). Anything else is left to encoding/json, so the result is always
// what json.Unmarshal gives (a fuzz target checks this).
func DecodeKLine(raw []byte) (KLineAnswer, error) {
	return fastOrJSON(raw, FastKLine)
}

// FastKLine decodes raw when it is sure to agree with encoding/json; ok is
// false when it is not sure (or raw is invalid), and then a is meaningless.
func FastKLine(raw []byte) (a KLineAnswer, ok bool) {
	s := scanner{b: raw}
	_, ok = s.object(topKeys[:], func(f int) bool { return s.topValue(&a, f) })
	return a, ok && s.end()
}

// DecodeCandles decodes a JSON array of KLine records, as Candles keeps
// them: the common shape in one pass, anything else by encoding/json, so
// that the result is always what json.Unmarshal gives into a []Candle (a
// fuzz target checks this).
func DecodeCandles(raw []byte) ([]Candle, error) {
	return fastOrJSON(raw, FastCandles)
}

// FastCandles decodes raw when it is sure to agree with encoding/json; ok is
// false when it is not sure (or raw is invalid), and then cs is
// meaningless.
func FastCandles(raw []byte) (cs []Candle, ok bool) {
	s := scanner{b: raw}
	cs, ok = s.candles()
	return cs, ok && s.end()
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
	fieldDelivery
)

var topKeys = [...]string{"code", "message", "status", "err_code", "err_msg", "ch", "ts", "data", "stale", "delivery"}

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
	case fieldCode, fieldErrCode, fieldTs, fieldDelivery:
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
		case fieldDelivery:
			a.Delivery = w
		default:
			a.Ts = w
		}
		return true
	case fieldData:
		var ok bool
		a.Data, ok = s.candles()
		return ok
	case fieldStale:
		var ok bool
		a.Stale, ok = s.boolean()
		return ok
	}
	str, ok := s.text()
	if !ok {
		return false
	}
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

// candles reads an array of records: an answer's data, or Candles.
func (s *scanner) candles() ([]Candle, bool) {
	return list(s, min(len(s.b)/160+1, KLineMaxSize), s.candle)
}

// The keys of a KLine record; all are required. The id is field 0.
var candleKeys = [...]string{"id", "vol", "count", "open", "close", "low", "high", "amount", "trade_turnover"}

// allCandleKeys is object's seen when every key of a record was read.
const allCandleKeys = 1<<len(candleKeys) - 1

// candle reads one KLine record.
func (s *scanner) candle(c *Candle) bool {
	seen, ok := s.object(candleKeys[:], func(f int) bool { return s.candleField(c, f) })
	return ok && seen == allCandleKeys
}

// candleField reads the value of the record's field f (candleKeys) into c.
func (s *scanner) candleField(c *Candle, f int) bool {
	if f == 0 {
		var ok bool
		c.ID, ok = s.integer()
		return ok
	}
	d, ok := s.decimal()
	*[...]*decimal.Decimal{nil, &c.Vol, &c.Count, &c.Open, &c.Close, &c.Low, &c.High, &c.Amount, &c.TradeTurnover}[f] = d
	return ok
}

// StreamCandle is a candle event of the gateway's stream: the channel's name
// and the candle's record, in one object ({"ch":…,"id":…,"vol":…}).
type StreamCandle struct {
	Ch     string
	Candle Candle
}

// UnmarshalJSON reads the channel's name and the record from one object.
func (e *StreamCandle) UnmarshalJSON(b []byte) error {
	var head struct {
		Ch string `json:"ch"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &e.Candle); err != nil {
		return err
	}
	e.Ch = head.Ch
	return nil
}

// DecodeStreamCandle decodes a candle event's data. The browser app reads
// one for every candle the stream pushes; the common shape is read in one
// pass, as DecodeKLine reads an answer, and anything else is left to
// encoding/json, so the result is always what json.Unmarshal gives (a fuzz
// target checks this).
func DecodeStreamCandle(raw []byte) (StreamCandle, error) {
	return fastOrJSON(raw, FastStreamCandle)
}

// streamKeys are a candle event's: the record's, then the channel's, which
// is field len(candleKeys).
var streamKeys = append(candleKeys[:len(candleKeys):len(candleKeys)], "ch")

// FastStreamCandle decodes raw when it is sure to agree with encoding/json;
// ok is false when it is not sure (or raw is invalid), and then e is
// meaningless.
func FastStreamCandle(raw []byte) (e StreamCandle, ok bool) {
	s := scanner{b: raw}
	seen, ok := s.object(streamKeys, func(f int) bool {
		if f == len(candleKeys) {
			var ok bool
			e.Ch, ok = s.text()
			return ok
		}
		return s.candleField(&e.Candle, f)
	})
	return e, ok && s.end() && seen&allCandleKeys == allCandleKeys
}

// StreamState is the gateway stream's state event: whether the candles of
// channel Ch stand in for a venue that fails ({"ch":…,"stale":true}), and,
// for a contract-type code, the delivery of the future they are
// ({"ch":…,"stale":false,"delivery":1764835200}, as KLineEnvelope.Delivery).
type StreamState struct {
	Ch       string  `json:"ch"`
	Stale    bool    `json:"stale"`
	Delivery WireInt `json:"delivery"`
}

// DecodeStreamState decodes a state event's data, as json.Unmarshal into a
// StreamState does. The chart reads one as its stream opens, in the app's
// start: the common shape is read in one pass, anything else by
// encoding/json.
func DecodeStreamState(raw []byte) (StreamState, error) {
	return fastOrJSON(raw, FastStreamState)
}

var streamStateKeys = [...]string{"ch", "stale", "delivery"}

// FastStreamState decodes raw when it is sure to agree with encoding/json;
// ok is false when it is not sure (or raw is invalid).
func FastStreamState(raw []byte) (e StreamState, ok bool) {
	s := scanner{b: raw}
	_, ok = s.object(streamStateKeys[:], func(f int) bool {
		if s.null() { // leaves the field as it is
			return true
		}
		var ok bool
		switch f {
		case 0:
			e.Ch, ok = s.text()
		case 1:
			e.Stale, ok = s.boolean()
		default:
			var n int64
			n, ok = s.integer()
			e.Delivery = WireInt(n)
		}
		return ok
	})
	return e, ok && s.end()
}
