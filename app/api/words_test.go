package api

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

func TestWordsSayWhatATraderReadsNeverTheTechnicalText(t *testing.T) {
	q := venueapi.KLineQuery{ContractCode: "ETH-USDT", Period: venueapi.Period1Min, Size: 300}
	read := func(status int, body string) error { _, err := ReadKLine(q, status, body); return err }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no answer at all", fmt.Errorf("loading ETH-USDT candles: %w", &browser.NetworkError{}), "No connection to the server"},
		{"a request that timed out", fmt.Errorf("loading: %w", context.DeadlineExceeded), "took too long"},
		{"an unknown contract", read(200, `{"status":"error","err_code":1013,"err_msg":"unknown contract","ts":1}`), "does not list this contract"},
		{"a refusal of private data", refusal(200, venueapi.CodeForbidden, "no viewer token"), "No access"},
		{"a busy venue", read(200, `{"status":"error","err_code":1004,"err_msg":"venue busy","ts":1}`), "The venue did not answer"},
		{"a venue fault the server passes on", read(503, `{"status":"error","err_code":1004,"err_msg":"upstream timeout","ts":1}`), "The venue did not answer"},
		{"a proxy's error page", read(502, `<html>bad gateway</html>`), "The server is not answering"},
		{"an unreadable answer", read(200, `{}`), "could not be read"},
		{"over the rate", read(429, `{"status":"error","err_code":1032,"err_msg":"too many requests from this client: retry in 1s","ts":1}`), "Too many requests"},
		{"invalid input names the rule", read(200, `{"status":"error","err_code":1030,"err_msg":"invalid size: must be an integer","ts":1}`), "refused the request: invalid size: must be an integer"},
		{"a query the client refuses itself", venueapi.KLineQuery{ContractCode: "ETH-USDT", Period: "1week", Size: 1}.Validate(), "not one the venue takes"},
		{"anything else", errors.New("TypeError: x is undefined"), "Something went wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("the case made no error")
			}
			got := Words(tc.err)
			if !strings.Contains(got, tc.want) {
				t.Errorf("Words(%v) = %q, want it to say %q", tc.err, got, tc.want)
			}
			for _, dev := range []string{"TypeError", "HTTP", "code 10", "Failed to fetch", "envelope"} {
				if strings.Contains(got, dev) {
					t.Errorf("Words(%v) = %q shows developer text %q", tc.err, got, dev)
				}
			}
		})
	}
	if Words(nil) != "" {
		t.Error("no error has words")
	}
}
