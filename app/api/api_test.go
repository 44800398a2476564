package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestRefusal(t *testing.T) {
	tests := []struct {
		status, code int
		refused      bool
	}{
		{200, venueapi.CodeForbidden, true},       // any refusal, answered as the venue answers one
		{401, venueapi.CodeForbidden, true},       // a proxy in front of the server, or an older server
		{403, 0, true},                            // a proxy's refusal, without the envelope
		{429, venueapi.CodeRateLimited, false},    // busy is not refused
		{200, venueapi.CodeInvalidInput, false},   // bad input is not refused
		{200, venueapi.CodeNoSuchContract, false}, // nor an unknown contract
		{200, venueapi.CodeOK, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("HTTP %d code %d", tt.status, tt.code), func(t *testing.T) {
			err := refusal(tt.status, tt.code, "because")
			if (err != nil) != tt.refused || (err != nil && !errors.Is(err, ErrNoAccess)) {
				t.Fatalf("refusal %v, want refused: %v", err, tt.refused)
			}
		})
	}
}

// The server answers a refused query as the venue does, HTTP 200 with the
// error in the envelope: each reader takes the envelope's word for it, and
// never shows an error envelope as data.
func TestReadersTakeTheEnvelopesWordNotTheStatus(t *testing.T) {
	q := venueapi.KLineQuery{ContractCode: "ZZZ-USDT", Period: venueapi.Period1Min, Size: 300}
	kline := func(status int, body string) error { _, err := ReadKLine(q, status, body); return err }
	tiers := func(status int, body string) error { _, err := ReadTiers("ZZZ-USDT", status, body); return err }
	limits := func(status int, body string) error { _, err := ReadLimits(status, body); return err }
	for _, tt := range []struct {
		name    string
		read    func(status int, body string) error
		status  int
		body    string
		wantIs  error  // nil: no sentinel
		wantMsg string // "" for success
	}{
		{"candles", kline, 200, `{"ch":"market.ZZZ-USDT.kline.1min","status":"ok","ts":1,"data":[]}`, nil, ""},
		{"an unknown contract's candles", kline, 200, `{"status":"error","err_code":1013,"err_msg":"unknown contract","ts":1}`, ErrUnknownContract, "does not list"},
		{"invalid candle input", kline, 200, `{"status":"error","err_code":1030,"err_msg":"invalid size: must be an integer","ts":1}`, nil, "invalid size"},
		{"candles over the client's rate", kline, 429, `{"status":"error","err_code":1032,"err_msg":"too many requests from this client: retry in 1s","ts":1}`, nil, "retry in 1s"},
		{"candles from a failing server", kline, 502, `<html>bad gateway</html>`, nil, "HTTP 502"},
		{"candles as an empty object", kline, 200, `{}`, nil, "unreadable"},
		{"tiers", tiers, 200, `{"code":200,"message":"success","data":[],"ts":1}`, nil, ""},
		{"an unknown contract's tiers", tiers, 200, `{"code":1013,"message":"unknown contract","data":null,"ts":1}`, ErrUnknownContract, "does not list"},
		{"tiers refused", tiers, 200, `{"code":403,"message":"private data needs a viewer token","data":null,"ts":1}`, ErrNoAccess, "viewer token"},
		{"tiers refused by an older server", tiers, 401, `{"code":403,"message":"private data needs a viewer token","data":null,"ts":1}`, ErrNoAccess, "viewer token"},
		{"invalid tier input", tiers, 200, `{"code":1030,"message":"invalid margin_mode: must be cross","data":null,"ts":1}`, nil, "invalid margin_mode"},
		{"tiers as an empty object", tiers, 200, `{}`, nil, "unreadable"},
		{"limits", limits, 200, `{"status":"ok","data":[],"ts":1}`, nil, ""},
		{"an unknown contract's limits", limits, 200, `{"status":"error","err_code":1013,"err_msg":"unknown contract","ts":1}`, ErrUnknownContract, "does not list"},
		{"limits refused", limits, 200, `{"status":"error","err_code":403,"err_msg":"this embed has no valid link","ts":1}`, ErrNoAccess, "no valid link"},
		{"invalid limit input", limits, 200, `{"status":"error","err_code":1030,"err_msg":"invalid business_type: must be futures or all","ts":1}`, nil, "business_type"},
		{"limits of an unreadable request", limits, 415, `{"status":"error","err_code":1030,"err_msg":"invalid Content-Type: must be application/json","ts":1}`, nil, "Content-Type"},
		{"limits as an empty object", limits, 200, `{}`, nil, "unreadable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.read(tt.status, tt.body)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("error %v, want the data", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) || (tt.wantIs != nil && !errors.Is(err, tt.wantIs)) {
				t.Fatalf("error %v, want one saying %q (is %v)", err, tt.wantMsg, tt.wantIs)
			}
		})
	}
}

// TestTheContractListComesWith200AndAContract: a fetched contract list
// that is anything but the server's list (another status, even with JSON,
// or a list of nothing) is a failure, which the page tries again, not an
// empty list that ends the tries with every price in the venue's digits.
func TestTheContractListComesWith200AndAContract(t *testing.T) {
	const list = `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1}]}`
	for _, tt := range []struct {
		name    string
		status  int
		body    string
		wantMsg string // "" for the list
	}{
		{"the list", 200, list, ""},
		{"a host refused", 421, `{"status":"error","err_code":421,"err_msg":"this host is not served","ts":1}`, "HTTP 421"},
		{"a proxy's error page in JSON", 502, `{"error":"bad gateway"}`, "HTTP 502"},
		{"a list with 304's empty body", 304, ``, "HTTP 304"},
		{"an empty list", 200, `{"data":[]}`, "lists no contract"},
		{"no list", 200, `{}`, "lists no contract"},
		{"not JSON", 200, `<html>`, "reading the contract list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			offers, err := readContractsAnswer(tt.status, tt.body)
			if tt.wantMsg == "" {
				if err != nil || len(offers) != 1 || offers[0].Code != "BTC-USDT" {
					t.Fatalf("%v, %v; want BTC-USDT's offer", offers, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("%v, %v; want an error saying %q", offers, err, tt.wantMsg)
			}
		})
	}
}
