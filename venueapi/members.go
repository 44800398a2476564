package venueapi

import (
	"bytes"
	"encoding/json"
	"io"
)

// Member is one member of a JSON object, as sent.
type Member struct {
	Name  string
	Value json.RawMessage
}

// JSONMembers reads body, one JSON object, into its members in the order
// sent, a member named twice kept twice, so that a parameter given twice in
// endpoint 2's body counts as given twice (docs/decisions.md#position-limit-payload).
// ok is false for anything but one object, with nothing after it.
func JSONMembers(body []byte) (ms []Member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		name, isName := tok.(string)
		if err != nil || !isName {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		ms = append(ms, Member{name, raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF { // nothing may follow the object
		return nil, false
	}
	return ms, true
}
