package gateway

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/riskchart/riskchart/venueapi"
)

// limitParams reads endpoint 2's parameters: the query string, then a JSON
// object of strings or a form body.
func limitParams(r *http.Request) (url.Values, error) {
	v := r.URL.Query()
	if r.Method != http.MethodPost {
		return v, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil || len(body) == 0 {
		return v, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &venueapi.ParamError{Param: "body", Rule: "must be a valid form"}
		}
		for k, vs := range form {
			v[k] = vs
		}
		return v, nil
	}
	var obj map[string]string
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, &venueapi.ParamError{Param: "body", Rule: "must be a JSON object of string parameters"}
	}
	for k, x := range obj {
		v.Set(k, x)
	}
	return v, nil
}
