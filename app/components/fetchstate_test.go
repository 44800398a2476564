package components

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/riskchart/riskchart/app/api"
)

func TestFetchStateKeepsTheDataAgeThroughAFailure(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var f fetchState
	if !f.due(t0, time.Minute) {
		t.Fatal("a panel with no data is not due for a fetch")
	}
	f.start()
	if f.due(t0.Add(time.Hour), time.Minute) {
		t.Fatal("a second fetch is due while one runs")
	}
	f.done(nil, false, t0)
	if !f.dataAt.Equal(t0) || f.err != "" || f.due(t0.Add(59*time.Second), time.Minute) || !f.due(t0.Add(time.Minute), time.Minute) {
		t.Fatalf("after a success: %+v", f)
	}
	f.start()
	f.done(errors.New("venue busy"), false, t0.Add(time.Minute))
	if !f.dataAt.Equal(t0) || f.err == "" || !f.triedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("a failure moved the data's age or hid the failure: %+v", f)
	}
	if f.late(t0.Add(2*time.Minute), time.Minute) || !f.late(t0.Add(3*time.Minute), time.Minute) {
		t.Fatal("data is late only after missing two refreshes")
	}
	f.done(fmt.Errorf("%w: no key", api.ErrNoAccess), false, t0.Add(2*time.Minute))
	if !f.noAccess {
		t.Fatal("a refusal is not marked as no access")
	}
	f.done(nil, true, t0.Add(3*time.Minute))
	if !f.stale || f.noAccess || f.err != "" || !f.dataAt.Equal(t0) {
		t.Fatalf("a stale answer made old numbers look new: %+v", f)
	}
	f.done(nil, false, t0.Add(4*time.Minute))
	if f.stale || !f.dataAt.Equal(t0.Add(4*time.Minute)) {
		t.Fatalf("a fresh answer after a stale one: %+v", f)
	}
	var first fetchState
	if first.done(nil, true, t0); !first.dataAt.Equal(t0) || !first.stale {
		t.Fatalf("a first answer, stale: %+v", first)
	}
}

func TestAgeLabel(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"}, {9 * time.Second, "just now"}, {10 * time.Second, "10 s ago"}, {59 * time.Second, "50 s ago"},
		{time.Minute, "1 min ago"}, {61 * time.Minute, "1 h ago"},
	}
	for _, tt := range tests {
		if got := ageLabel(tt.d); got != tt.want {
			t.Errorf("ageLabel(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
