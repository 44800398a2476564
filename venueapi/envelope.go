package venueapi

import (
	"encoding/json"
	"strconv"
)

// Statuses of the status envelope (endpoints 2 and 3).
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// TierEnvelope is endpoint 1's answer: code 200 and the tiers on success,
// another code and a message on failure.
type TierEnvelope struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    []Tier `json:"data"`
	Ts      int64  `json:"ts"`
	// Stale is set by the gateway when it answers from its cache because
	// the venue failed; the venue never sets it.
	Stale bool `json:"stale,omitempty"`
}

// LimitEnvelope is endpoint 2's answer.
type LimitEnvelope struct {
	Status  string          `json:"status"`
	Data    []PositionLimit `json:"data"`
	Ts      int64           `json:"ts"`
	ErrCode int             `json:"err_code,omitempty"`
	ErrMsg  string          `json:"err_msg,omitempty"`
	Stale   bool            `json:"stale,omitempty"`
}

// KLineEnvelope is endpoint 3's answer. Ch is market.<contract_code>.kline.<period>.
type KLineEnvelope struct {
	Ch      string   `json:"ch,omitempty"`
	Status  string   `json:"status"`
	Ts      int64    `json:"ts"`
	Data    []Candle `json:"data"`
	ErrCode int      `json:"err_code,omitempty"`
	ErrMsg  string   `json:"err_msg,omitempty"`
	Stale   bool     `json:"stale,omitempty"`
	// Delivery is set by the gateway on its answers of a contract-type code
	// (BTC-USDT-CW, -NW, -CQ, -NQ): the delivery, in Unix seconds, since
	// which the code names the future whose candles these are, by the
	// gateway's clock (docs/decisions.md#contract-type-codes). The venue
	// never sets it.
	Delivery int64 `json:"delivery,omitempty"`
}

// Channel is the ch of a KLine answer.
func Channel(contractCode string, p Period) string {
	return "market." + contractCode + ".kline." + string(p)
}

// AppendJSON appends the envelope's JSON to b without reflection: the hot
// path of the sandbox and of the gateway's cache.
func (e *KLineEnvelope) AppendJSON(b []byte) []byte {
	if e.Ch != "" {
		b = append(b, `{"ch":`...)
		b = strconv.AppendQuote(b, e.Ch)
		b = append(b, `,"status":`...)
	} else {
		b = append(b, `{"status":`...)
	}
	b = strconv.AppendQuote(b, e.Status)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, e.Ts, 10)
	if e.Status == StatusError {
		b = append(b, `,"err_code":`...)
		b = strconv.AppendInt(b, int64(e.ErrCode), 10)
		b = append(b, `,"err_msg":`...)
		b = appendString(b, e.ErrMsg)
	} else {
		b = appendArray(append(b, `,"data":`...), e.Data)
	}
	if e.Stale {
		b = append(b, `,"stale":true`...)
	}
	if e.Delivery != 0 {
		b = strconv.AppendInt(append(b, `,"delivery":`...), e.Delivery, 10)
	}
	return append(b, '}')
}

// StatusErrorBody is the error body of endpoints 2 and 3:
// {"status":"error","err_code":…,"err_msg":…,"ts":…}.
type StatusErrorBody struct {
	Status  string `json:"status"`
	ErrCode int    `json:"err_code"`
	ErrMsg  string `json:"err_msg"`
	Ts      int64  `json:"ts"`
}

// CodeErrorBody is the error body of endpoint 1:
// {"code":…,"message":…,"data":null,"ts":…}.
type CodeErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data"`
	Ts      int64  `json:"ts"`
}

// ErrorBody returns the venue's error body for path: the code envelope for
// endpoint 1, the status envelope for the others.
func ErrorBody(path string, code int, msg string, ts int64) []byte {
	var v any = StatusErrorBody{Status: StatusError, ErrCode: code, ErrMsg: msg, Ts: ts}
	if path == PathTiers {
		v = CodeErrorBody{Code: code, Message: msg, Ts: ts}
	}
	b, _ := json.Marshal(v) // strings and integers always encode
	return b
}

// appendString appends s as a JSON string, as encoding/json writes it
// (strconv's quoting is Go's, not JSON's): printable ASCII that JSON and
// encoding/json leave unescaped as it is, anything else through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
