package sandbox

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"
)

// A client that asks for paths the venue does not have (a scanner, a typo
// in a loop) gets 404s, and the sandbox keeps nothing of each: it remembers
// counts of its three paths only, however many others are asked for.
func TestReceived_RemembersNothingOfPathsTheVenueDoesNotHave(t *testing.T) {
	sb, err := New(Config{Now: func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, httptest.NewRequest("GET", fmt.Sprintf("http://venue.test/scan/%d", i), nil))
		if w.Code != 404 {
			t.Fatalf("HTTP %d for a path the venue does not have", w.Code)
		}
	}
	kept := 0
	sb.received.Range(func(any, any) bool { kept++; return true })
	if kept > 3 {
		t.Fatalf("%d counters kept after 1000 requests for unknown paths: memory grows with every path asked for", kept)
	}
}
