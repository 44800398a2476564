package api

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"15", 15 * time.Second, true},
		{"0", 0, true},
		{"1", time.Second, true},
		{"86400", maxRetryAfter, true}, // a day: bounded
		{"99999999999999999999", 0, false},
		{"Mon, 23 Nov 2026 12:00:12 GMT", 12 * time.Second, true},
		{"Monday, 23-Nov-26 12:00:30 GMT", 0, false}, // obsolete forms: the backoff decides
		{"Mon Nov 23 12:01:00 2026", 0, false},
		{"Mon, 30 Feb 2026 12:00:00 GMT", 0, false},
		{"Mon, 23 Nov 2026 24:00:00 GMT", 0, false},
		{"Mon, 23 Noo 2026 12:00:12 GMT", 0, false},
		{"Mon, 23 Nov 2026 12:00:12 UTC", 0, false},
		{"Mon, 2x Nov 2026 12:00:12 GMT", 0, false},
		{"Mon, 23 Dec 2026 12:00:00 GMT", maxRetryAfter, true},
		{"Mon, 23 Nov 2026 11:59:00 GMT", 0, true}, // past: no wait
		{"Tue, 24 Nov 2026 12:00:00 GMT", maxRetryAfter, true},
		{"", 0, false},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	} {
		t.Run(tt.v, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.v, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// The fetch functions carry the Retry-After of a 429 or a 503 on their
// error (RetryAfter), and of no other answer.
func TestAnAnswerErrorCarriesRetryAfterOf429And503(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	q := venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 2}
	limited := `{"status":"error","err_code":1032,"err_msg":"too many requests from this client: retry in 12s","ts":1}`
	busy := `{"status":"error","err_code":1004,"err_msg":"the server is shutting down; try again in a moment","ts":1}`
	for _, tt := range []struct {
		name       string
		status     int
		body       string
		retryAfter string
		want       time.Duration
	}{
		{"a 429 in seconds", 429, limited, "12", 12 * time.Second},
		{"a 429 as a date", 429, limited, "Mon, 23 Nov 2026 12:00:05 GMT", 5 * time.Second},
		{"a proxy's 429, unreadable", 429, `<html>slow down</html>`, "3", 3 * time.Second},
		{"a 429 without the header", 429, limited, "", 0},
		{"a 503", 503, busy, "5", 5 * time.Second},
		{"a 502 names no wait", 502, busy, "5", 0},
		{"a 429 with an unreadable header", 429, limited, "later", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			header := func(k string) string {
				if k == "Retry-After" {
					return tt.retryAfter
				}
				return ""
			}
			_, err := ReadKLine(q, tt.status, tt.body)
			err = withRetryAfter(fmt.Errorf("polling: %w", err), tt.status, header, now)
			if err == nil {
				t.Fatal("no error")
			}
			if got := RetryAfter(err); got != tt.want {
				t.Errorf("RetryAfter = %v, want %v (err %v)", got, tt.want, err)
			}
		})
	}
	if RetryAfter(errors.New("other")) != 0 || RetryAfter(nil) != 0 {
		t.Error("an error that is no answer names a wait")
	}
	if err := withRetryAfter(nil, 429, func(string) string { return "5" }, now); err != nil {
		t.Errorf("a success became %v", err)
	}
	if _, err := ReadLimits(429, `{"status":"error","err_code":1032,"err_msg":"x","ts":1}`); RetryAfter(withRetryAfter(err, 429, nil, now)) != 0 {
		t.Error("an answer without headers (the page's own read) names a wait")
	}
}
