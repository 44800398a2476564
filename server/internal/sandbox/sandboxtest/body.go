package sandboxtest

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// Body ends a test's round trip: it fails t on the request's error, else
// reads and closes the answer's body, so that no test leaks a connection.
func Body(t testing.TB, res *http.Response, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ErrCode reads the venue's code and message from body, in either envelope:
// code and message (endpoint 1), or err_code and err_msg (endpoints 2 and 3,
// where a status other than "error" reads as 200). It fails t on a body that
// is neither.
func ErrCode(t testing.TB, body []byte) (int, string) {
	t.Helper()
	var e struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		ErrCode int    `json:"err_code"`
		ErrMsg  string `json:"err_msg"`
		Status  string `json:"status"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not an envelope: %v: %.200s", err, body)
	}
	if e.Code != nil {
		return *e.Code, e.Message
	}
	if e.Status != "error" {
		return 200, ""
	}
	return e.ErrCode, e.ErrMsg
}
