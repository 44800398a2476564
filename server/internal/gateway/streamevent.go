package gateway

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/riskchart/riskchart/venueapi"
)

// The events of a candle stream, as Server-Sent Events
// (docs/decisions.md#stream-event-ids):
//
//	id: 1764000000.3w5e11264sgsf
//	data: {"ch":"market.BTC-USDT.kline.1min","id":1764000000,"vol":…}
//
// Each candle event's data is the candle's record as the venue wrote it,
// with the channel name first; its id is the candle's id and a version of
// that record, a hash of its bytes, so that any replica, before or after a
// restart, tells whether the record a client saw last is the one it holds.
// A named "state" event says whether the candles stand in for a venue that
// fails: {"ch":…,"stale":true}; for a contract-type code, it also names the
// delivery of the future the candles are, {"ch":…,"stale":false,
// "delivery":1764835200}, as the KLine answers do
// (docs/decisions.md#contract-type-codes), and comes again, before the
// first candle of the next future, once the code names it. A comment line
// is the heartbeat.

// streamRecord is a candle's record as the cache holds it, with its version.
type streamRecord struct {
	id      int64
	version uint64
	raw     []byte // {"id":…}: the record's JSON, never changed
}

func newStreamRecord(id int64, raw []byte) streamRecord {
	return streamRecord{id: id, version: recordVersion(raw), raw: raw}
}

// recordVersion is the version of a candle's record: its bytes' FNV-1a hash.
func recordVersion(raw []byte) uint64 {
	h := fnv.New64a()
	h.Write(raw)
	return h.Sum64()
}

// appendCandleEvent appends r's event to b.
func appendCandleEvent(b []byte, ch string, r streamRecord) []byte {
	b = append(b, "id: "...)
	b = appendEventID(b, r.id, r.version)
	b = append(b, "\ndata: {\"ch\":\""...)
	b = append(b, ch...) // upper-case letters, digits, '-', '.': nothing to escape
	b = append(b, "\","...)
	b = append(b, r.raw[1:]...) // the record without its opening brace: one line, as JSON without spaces is
	return append(b, "\n\n"...)
}

// streamState is what a stream's state event says.
type streamState struct {
	stale    bool  // the candles stand in for a venue that fails
	delivery int64 // a contract-type code's future, as answer.delivery; 0 for other codes
}

// appendStateEvent appends the event that says st.
func appendStateEvent(b []byte, ch string, st streamState) []byte {
	b = append(b, "event: state\ndata: {\"ch\":\""...)
	b = append(b, ch...)
	b = append(b, "\",\"stale\":"...)
	b = strconv.AppendBool(b, st.stale)
	if st.delivery != 0 {
		b = strconv.AppendInt(append(b, ",\"delivery\":"...), st.delivery, 10)
	}
	return append(b, "}\n\n"...)
}

func appendEventID(b []byte, id int64, version uint64) []byte {
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '.')
	return strconv.AppendUint(b, version, 36)
}

// lastEvent is what a reconnecting client saw last (its Last-Event-ID): a
// candle and the version of its record.
type lastEvent struct {
	id      int64
	version uint64
}

// parseLastEventID reads a Last-Event-ID header; "" is none (ok false).
func parseLastEventID(v string) (last lastEvent, ok bool, err error) {
	if v == "" {
		return lastEvent{}, false, nil
	}
	id, version, found := strings.Cut(v, ".")
	n, idErr := strconv.ParseInt(id, 10, 64)
	ver, verErr := strconv.ParseUint(version, 36, 64)
	if !found || idErr != nil || verErr != nil || n < 0 || len(v) > 40 {
		return lastEvent{}, false, &venueapi.ParamError{Param: "Last-Event-ID", Rule: "must be an event id this stream sent: a candle id, '.', and a version", Value: v}
	}
	return lastEvent{id: n, version: ver}, true, nil
}

// missed reports whether a client that saw last a candle would miss r: r is
// newer, or r is that candle in another version.
func (l lastEvent) missed(r streamRecord) bool {
	return r.id > l.id || (r.id == l.id && r.version != l.version)
}
