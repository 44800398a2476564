package main

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestAPolledAnswerIsReadAsTheStreamNamesItsCandles(t *testing.T) {
	recs := []string{
		`{"id":1764000000,"vol":2510,"count":433,"open":100141.4,"close":100142.4,"low":100140.7,"high":100142.7,"amount":2.51,"trade_turnover":251355.9179}`,
		`{"id":1764000060,"vol":12,"count":3,"open":100142.4,"close":100144,"low":100141.8,"high":100145.8,"amount":0.012,"trade_turnover":1201.7}`,
	}
	body := `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1764000061000,"data":[` + strings.Join(recs, ",") + `]}`
	answer := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	var got []byte
	status, err := readResponse(bufio.NewReader(strings.NewReader(answer+answer)), &got)
	if err != nil || status != 200 || string(got) != body {
		t.Fatalf("HTTP %d %q %v", status, got, err)
	}
	ch, split := records(got)
	if ch != "market.BTC-USDT.kline.1min" || len(split) != 2 || string(split[0]) != recs[0] || string(split[1]) != recs[1] {
		t.Fatalf("channel %q, records %q", ch, split)
	}
	// The key a poll gives a candle is the one a stream event gives it, and
	// the one the venue's answer gives it once decoded and written again.
	var c venueapi.Candle
	if err := c.UnmarshalJSON([]byte(recs[1])); err != nil {
		t.Fatal(err)
	}
	id, version := recordID(split[1])
	if key := versionKey(ch, c.ID, c.AppendJSON(nil)); id != 1764000060 || key != ch+"|1764000060."+version {
		t.Errorf("a poll reads %d.%s, the venue's answer %s", id, version, key)
	}
}
