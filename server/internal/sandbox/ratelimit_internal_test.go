package sandbox

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// Windows that have ended are forgotten by time, whatever the number of
// clients seen before: 10,000 clients, then one an hour later, leave one.
func TestLimiter_ForgetsEndedWindowsByTime(t *testing.T) {
	l := newLimiter(venueapi.Limit{Requests: 72, Per: 3 * time.Second})
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		l.take(fmt.Sprintf("key:%d", i), at.Add(time.Duration(i)*time.Millisecond))
	}
	if v := l.take("key:late", at.Add(time.Hour)); !v.ok || v.remaining != 71 {
		t.Fatalf("verdict %+v, want a fresh window", v)
	}
	if len(l.used) != 1 || len(l.order) != 1 {
		t.Fatalf("%d windows in the map, %d in the queue an hour later, want 1", len(l.used), len(l.order))
	}
}

// A window still open is kept and keeps its count while older ones go.
func TestLimiter_KeepsOpenWindows(t *testing.T) {
	l := newLimiter(venueapi.Limit{Requests: 2, Per: 3 * time.Second})
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	l.take("old", at)
	l.take("open", at.Add(2*time.Second))
	l.take("open", at.Add(2*time.Second))
	if v := l.take("open", at.Add(4*time.Second)); v.ok || v.remaining != 0 {
		t.Fatalf("third request in a window of two: %+v, want refused", v)
	}
	if _, held := l.used["old"]; held || len(l.used) != 1 || len(l.order) != 1 {
		t.Fatalf("held %v (queue %d), want only the open window", l.used, len(l.order))
	}
}

// A made-up access key, however long, is counted on arrival against the
// client's IP and refused with 403: the limiter holds the IP's window and
// nothing of the key.
func TestPrivateLimit_HoldsNothingOfAnUnknownAccessKey(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	sb, err := New(Config{Now: func() time.Time { return now }, Keys: []Key{{Access: "real", Secret: "s", Read: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, access := range []string{strings.Repeat("k", 1<<20), "made-up-1", "made-up-2"} {
		q := url.Values{"contract_code": {"BTC-USDT"}, sign.ParamAccessKeyID: {access}, sign.ParamSignatureMethod: {sign.SignatureMethod},
			sign.ParamSignatureVersion: {sign.SignatureVersion}, sign.ParamTimestamp: {now.Format(sign.TimestampLayout)}, sign.ParamSignature: {"x"}}
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, httptest.NewRequest("GET", "http://venue.test"+venueapi.PathTiers+"?"+q.Encode(), nil))
		if !strings.Contains(w.Body.String(), `"code":403`) {
			t.Fatalf("key %d: HTTP %d %.200s, want code 403", i+1, w.Code, w.Body)
		}
		if got, want := w.Header().Get("ratelimit-remaining"), fmt.Sprint(71-i); got != want {
			t.Fatalf("key %d: ratelimit-remaining %s, want %s: counted on arrival against the IP", i+1, got, want)
		}
	}
	held := 0
	for client := range sb.privateLimit.used {
		held += len(client)
	}
	if _, ip := sb.privateLimit.used["ip:192.0.2.1"]; !ip || len(sb.privateLimit.used) != 1 || held > 64 {
		t.Fatalf("the limiter holds %d windows, %d bytes of names, want the IP's window alone", len(sb.privateLimit.used), held)
	}
}
