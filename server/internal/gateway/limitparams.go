package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/riskchart/riskchart/venueapi"
)

// maxLimitBody bounds endpoint 2's body: its four parameters fit in far less.
const maxLimitBody = 64 << 10

// limitParams reads endpoint 2's parameters (docs/decisions.md#position-limit-payload):
// the query string, and for a POST a JSON object of strings. A parameter in
// both places is given twice, which venueapi.ParseLimitQuery refuses.
//
// A POST must say Content-Type: application/json, which a cross-site page
// cannot send without the browser asking first. Its body is read whole or
// not at all: one cut short, slow past the read deadline or over the bound
// is an unreadable request (400, 413), never read as fewer parameters.
func limitParams(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	v, err := venueapi.ParseQuery(r.URL.RawQuery)
	if err != nil || r.Method != http.MethodPost {
		return v, err
	}
	ct := r.Header.Get("Content-Type")
	if media, _, err := mime.ParseMediaType(ct); err != nil || media != "application/json" {
		return nil, &unreadable{http.StatusUnsupportedMediaType,
			&venueapi.ParamError{Param: "Content-Type", Rule: "must be application/json", Value: ct}}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxLimitBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &unreadable{http.StatusRequestEntityTooLarge,
			&venueapi.ParamError{Param: "body", Rule: "must be at most " + strconv.Itoa(maxLimitBody) + " bytes"}}
	case err != nil:
		return nil, &unreadable{http.StatusBadRequest,
			&venueapi.ParamError{Param: "body", Rule: "must arrive whole: it ended before its Content-Length, or too slowly"}}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return v, nil // the parameters, if any, are in the query string
	}
	return v, jsonParams(body, v)
}

// jsonParams adds the members of a JSON object of strings to v, each as
// given: a member named twice is given twice.
func jsonParams(body []byte, v url.Values) error {
	members, ok := venueapi.JSONMembers(body)
	if !ok {
		return &venueapi.ParamError{Param: "body", Rule: "must be one JSON object of string parameters"}
	}
	for _, m := range members {
		var s string
		if len(m.Value) == 0 || m.Value[0] != '"' || json.Unmarshal(m.Value, &s) != nil {
			name := m.Name
			if name == "" { // no name to name: the body is what is wrong
				return &venueapi.ParamError{Param: "body", Rule: "every member must be a JSON string, the one with an empty name too", Value: string(m.Value)}
			}
			if len(name) > 64 {
				name = name[:64] + "…" // the message echoes it
			}
			return &venueapi.ParamError{Param: name, Rule: "must be a JSON string", Value: string(m.Value)}
		}
		v[m.Name] = append(v[m.Name], s)
	}
	return nil
}
