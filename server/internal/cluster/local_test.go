package cluster

import (
	"testing"
	"time"
)

func TestLocalLogKeepsEveryWindowWithinItsLimit(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type ask struct {
		now, notBefore time.Time
		n              int
		longest        time.Duration
		at             time.Time
		ok             bool
	}
	tests := []struct {
		name string
		asks []ask
	}{
		{"the limit is granted at once, the next turn a window after the first", []ask{
			{now: t0, n: 1, at: t0, ok: true},
			{now: t0, n: 1, at: t0, ok: true},
			{now: t0, n: 1, at: t0, ok: true},
			{now: ms(10), n: 1, at: ms(1000), ok: false},
			{now: ms(10), n: 1, longest: time.Second, at: ms(1000), ok: true},
			{now: ms(20), n: 1, longest: time.Second, at: ms(1000), ok: true},
		}},
		{"n turns need n free places", []ask{
			{now: t0, n: 2, at: t0, ok: true},
			{now: ms(100), n: 2, at: ms(1000), ok: false},
			{now: ms(100), n: 1, at: ms(100), ok: true},
			{now: ms(999), n: 2, at: ms(1000), ok: false},
			{now: ms(1000), n: 2, at: ms(1000), ok: true},
			{now: ms(1000), n: 1, at: ms(1100), ok: false},
		}},
		{"nothing before notBefore", []ask{
			{now: t0, notBefore: ms(500), n: 1, at: ms(500), ok: false},
			{now: t0, notBefore: ms(500), n: 1, longest: time.Second, at: ms(500), ok: true},
			{now: ms(10), n: 1, at: ms(500), ok: false}, // turns come in order
		}},
		{"turns a window old no longer count", []ask{
			{now: t0, n: 3, at: t0, ok: true},
			{now: ms(999), n: 1, at: ms(1000), ok: false},
			{now: ms(1000), n: 3, at: ms(1000), ok: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &localLog{limit: 3, window: time.Second}
			for i, a := range tt.asks {
				at, ok := l.reserve(a.now, a.notBefore, a.n, a.longest)
				if !at.Equal(a.at) || ok != a.ok {
					t.Fatalf("ask %d: reserve(%s, n=%d, longest %s) = %s, %v; want %s, %v",
						i, a.now.Sub(t0), a.n, a.longest, at.Sub(t0), ok, a.at.Sub(t0), a.ok)
				}
			}
		})
	}
}

func TestLocalLogCancelGivesTurnsBack(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &localLog{limit: 2, window: time.Second}
	l.reserve(t0, time.Time{}, 1, 0)
	at, ok := l.reserve(t0, time.Time{}, 1, 0)
	if !ok {
		t.Fatal("second turn refused")
	}
	if _, ok := l.reserve(t0, time.Time{}, 1, 0); ok {
		t.Fatal("third turn granted over a limit of 2")
	}
	l.cancel(at, 1)
	if _, ok := l.reserve(t0, time.Time{}, 1, 0); !ok {
		t.Fatal("a cancelled turn was not given back")
	}
}

func TestLocalLogAgesAreTheTurnsStillCounting(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &localLog{limit: 3, window: time.Second}
	l.reserve(t0, time.Time{}, 1, 0)
	l.reserve(t0.Add(600*time.Millisecond), time.Time{}, 1, 0)
	l.reserve(t0.Add(600*time.Millisecond), t0.Add(1500*time.Millisecond), 1, time.Second)
	got := l.ages(t0.Add(1200 * time.Millisecond))
	want := []time.Duration{600 * time.Millisecond, -300 * time.Millisecond}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("ages = %v, want %v (the first turn left the window)", got, want)
	}
}
