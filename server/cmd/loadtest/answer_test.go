package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// sandboxAnswer is the sandbox venue's answer to a KLine query, as the
// gateway and the plain proxy pass it on.
func sandboxAnswer(t *testing.T, query string) []byte {
	t.Helper()
	sb, err := sandbox.New(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	sb.ServeHTTP(rec, httptest.NewRequest("GET", venueapi.PathKLine+"?"+query, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("the sandbox: HTTP %d %s", rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// gzipped is b as the gateway and the deployment's nginx send it: level 1.
func gzipped(b []byte) []byte {
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

// serveBody answers every request 200 with body in Content-Encoding
// encoding ("" for none).
func serveBody(t *testing.T, encoding string, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if encoding != "" {
			w.Header().Set("Content-Encoding", encoding)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The venue's paths answer a business error under HTTP 200
// (docs/decisions.md#gateway-error-statuses), fast: counted as done, it
// would raise req/s as a 429 would. Only an answer of candles counts.
func TestLoadCountsOnlyAnswersOfCandles(t *testing.T) {
	candles := sandboxAnswer(t, "contract_code=BTC-USDT&period=1min&size=300")
	monthly := sandboxAnswer(t, "contract_code=BTC-USDT&period=1mon&size=300") // the smallest answer the runs ask for
	for _, tc := range []struct {
		name     string
		encoding string // Content-Encoding of the answer
		body     []byte
		ok       bool
	}{
		{"300 candles", "", candles, true},
		{"300 candles, gzipped", "gzip", gzipped(candles), true},
		{"every monthly candle, gzipped", "gzip", gzipped(monthly), true},
		{"the error envelope under 200", "", venueapi.ErrorBody(venueapi.PathKLine, venueapi.CodeInvalidInput, "size: must be from 1 to 2000, not 2001", 1764000061000), false},
		{"the error envelope under 200, gzipped", "gzip", gzipped(venueapi.ErrorBody(venueapi.PathKLine, venueapi.CodeNoSuchContract, "contract_code: NOPE-USDT is not listed", 1764000061000)), false},
		{"no candles (a range past the venue's history)", "", []byte(`{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1764000061000,"data":[]}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := serveBody(t, tc.encoding, tc.body)
			f := flags{duration: 10 * time.Second, requests: 20, clients: 1, encoding: chromiumEncodings}
			r := load(t.Context(), url, f, 0, func(int, int) string { return "/kline" })
			if want := map[bool]int64{true: 20, false: 0}[tc.ok]; r.done != want || r.errors != 20-want {
				t.Errorf("done %d, errors %d: want %d done", r.done, r.errors, want)
			}
			// warm, and the deployment run's probe, refuse what load refuses.
			werr := warm(t.Context(), url, scenario{series: 1, path: func(int, int) string { return "/kline" }})
			_, _, perr := probe(t.Context(), url+"/kline", chromiumEncodings)
			if (werr == nil) != tc.ok || (perr == nil) != tc.ok {
				t.Errorf("warm: %v; probe: %v; want errors: %t", werr, perr, !tc.ok)
			}
		})
	}
}

// A client's first answer is read whole; the others are judged by their
// length, which must tell every error envelope from the smallest answer.
func TestMinAnswerLiesBetweenAnErrorAndTheSmallestAnswer(t *testing.T) {
	monthly := gzipped(sandboxAnswer(t, "contract_code=BTC-USDT&period=1mon&size=300"))
	errBody := venueapi.ErrorBody(venueapi.PathKLine, venueapi.CodeNoSuchContract, "contract_code: DOGE-USDT-CW is not listed, for a reason of some length that names the contract and the rule", 1764000061000)
	if len(monthly) < minAnswer || len(errBody) >= minAnswer {
		t.Errorf("every monthly candle gzipped: %d bytes; an error envelope: %d; minAnswer %d lies not between", len(monthly), len(errBody), minAnswer)
	}
}
