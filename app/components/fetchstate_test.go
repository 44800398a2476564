package components

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
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
	f.done(nil, false, t0, 0)
	if !f.dataAt.Equal(t0) || f.err != "" || f.due(t0.Add(59*time.Second), time.Minute) || !f.due(t0.Add(time.Minute), time.Minute) {
		t.Fatalf("after a success: %+v", f)
	}
	f.start()
	f.done(errors.New("venue busy"), false, t0.Add(time.Minute), 0)
	if !f.dataAt.Equal(t0) || f.err == "" || !f.triedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("a failure moved the data's age or hid the failure: %+v", f)
	}
	if f.late(t0.Add(2*time.Minute), time.Minute) || !f.late(t0.Add(3*time.Minute), time.Minute) {
		t.Fatal("data is late only after missing two refreshes")
	}
	f.done(fmt.Errorf("%w: no key", api.ErrNoAccess), false, t0.Add(2*time.Minute), 0)
	if !f.noAccess {
		t.Fatal("a refusal is not marked as no access")
	}
	f.done(nil, true, t0.Add(3*time.Minute), 0)
	if !f.stale || f.noAccess || f.err != "" || !f.dataAt.Equal(t0) {
		t.Fatalf("a stale answer made old numbers look new: %+v", f)
	}
	f.done(nil, false, t0.Add(4*time.Minute), 0)
	if f.stale || !f.dataAt.Equal(t0.Add(4*time.Minute)) {
		t.Fatalf("a fresh answer after a stale one: %+v", f)
	}
	var first fetchState
	if first.done(nil, true, t0, 0); !first.dataAt.Equal(t0) || !first.stale {
		t.Fatalf("a first answer, stale: %+v", first)
	}
}

// A panel says its refreshes are failing only when they have: data the
// server held for minutes, prerendered or adopted, is old but not failing,
// nor while the panel's first refresh of it is under way.
func TestOnlyFailedRefreshesAreCalledFailing(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	now := t0.Add(4 * time.Minute) // past 2.5 paces of a minute
	failed := fetchState{dataAt: t0, triedAt: now, err: "the venue is busy"}
	tests := []struct {
		name string
		f    fetchState
		want bool
	}{
		{"the server's cached data, not yet refreshed", fetchState{dataAt: t0, triedAt: t0}, false},
		{"its first refresh under way", fetchState{dataAt: t0, triedAt: t0, busy: true}, false},
		{"a refresh failed, the data past two paces", failed, true},
		{"a refresh failed, the data within two paces", fetchState{dataAt: now.Add(-2 * time.Minute), triedAt: now, err: "the venue is busy"}, false},
		{"a refresh failed, no data", fetchState{triedAt: now, err: "the venue is busy"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.late(now, time.Minute); got != tt.want {
				t.Errorf("late = %v, want %v", got, tt.want)
			}
			html := app.HTMLString(stateLine("tiers-state", tt.f, time.Minute, now, false))
			if got := strings.Contains(html, "refreshes are failing"); got != tt.want {
				t.Errorf("the state line says failing: %v, want %v: %s", got, tt.want, html)
			}
		})
	}
	env := &venueapi.TierEnvelope{Ts: t0.UnixMilli(), Data: openLadder}
	if html := app.HTMLString(FirstTiersTable("BTC-USDT", env, now)); strings.Contains(html, "refreshes are failing") || !strings.Contains(html, `>12:00:00 UTC</time>`) || !strings.Contains(html, "· 4 min ago") {
		t.Errorf("the prerendered table of tiers the server fetched 4 min ago: %s", html)
	}
}

// The state line says a refresh runs only over data it has, or after a
// failure: a first fetch is "Loading…" alone, as the server's page says it
// before the app runs, so the app's first render changes nothing there.
func TestAFirstFetchIsLoadingAlone(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		f          fetchState
		loading    bool
		refreshing bool
	}{
		{"the server's page: no data, no fetch", fetchState{}, true, false},
		{"the first fetch under way", fetchState{busy: true}, true, false},
		{"a refresh of data under way", fetchState{dataAt: t0, triedAt: t0, busy: true}, false, true},
		{"a retry after a failure, no data", fetchState{triedAt: t0, err: "the venue is busy", busy: true}, false, true},
		{"a retry refused, no data", fetchState{triedAt: t0, noAccess: true, busy: true}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			html := app.HTMLString(stateLine("limits-state", tt.f, time.Minute, t0.Add(time.Second), false))
			if got := strings.Contains(html, "Loading…"); got != tt.loading {
				t.Errorf("says Loading…: %v, want %v: %s", got, tt.loading, html)
			}
			if got := strings.Contains(html, "refreshing…"); got != tt.refreshing {
				t.Errorf("says refreshing…: %v, want %v: %s", got, tt.refreshing, html)
			}
		})
	}
}

// The server writes a prerendered page's times in UTC, naming it, whatever
// its own zone and the view's: it cannot know the reader's. A time of a view
// in the reader's zone is marked, for web/app-start.js to write in it.
func TestThePrerenderedClockIsUTCAndSaysSo(t *testing.T) {
	at := time.Date(2026, 11, 23, 20, 0, 5, 0, time.FixedZone("UTC+8", 8*3600))
	for _, tt := range []struct {
		utc   bool
		attrs []string // in any order: go-app keeps them in a map
	}{
		{false, []string{` datetime="2026-11-23T12:00:05Z"`, ` data-zone="local"`}},
		{true, []string{` datetime="2026-11-23T12:00:05Z"`}},
	} {
		got := app.HTMLString(clock(at, tt.utc))
		ok := strings.HasPrefix(got, "<time ") && strings.HasSuffix(got, ">12:00:05 UTC</time>") && strings.Count(got, "=") == len(tt.attrs)
		for _, a := range tt.attrs {
			ok = ok && strings.Contains(got, a)
		}
		if !ok {
			t.Errorf("clock(%v, utc=%v) = %s, want a <time> with%s reading 12:00:05 UTC", at, tt.utc, got, strings.Join(tt.attrs, ""))
		}
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

func TestAFailedRefreshIsTriedAgainSoonAndItsMessageGoesWithTheNextSuccess(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		err   error
		every time.Duration
		dueIn time.Duration
		says  string
	}{
		{"a venue failure on a minute's pace", errors.New("venue busy"), time.Minute, retryFailed, "Something went wrong"},
		{"no connection on a ten seconds' pace", fmt.Errorf("loading: %w", &browser.NetworkError{}), 10 * time.Second, retryFailed, "No connection to the server"},
		{"a pace shorter than the retry", errors.New("venue busy"), time.Second, time.Second, "Something went wrong"},
		{"a refusal keeps the panel's pace", fmt.Errorf("%w: no key", api.ErrNoAccess), time.Minute, time.Minute, "No access"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fetchState
			f.done(nil, false, t0, 0)
			f.start()
			f.done(tc.err, false, t0, 0)
			if f.err != tc.says && !strings.Contains(f.err, tc.says) {
				t.Errorf("the failure reads %q, want %q", f.err, tc.says)
			}
			if f.due(t0.Add(tc.dueIn-time.Millisecond), tc.every) || !f.due(t0.Add(tc.dueIn), tc.every) {
				t.Errorf("after a failure at %v, due at %v?", t0, tc.dueIn)
			}
			f.start()
			f.done(nil, false, t0.Add(tc.dueIn), 0)
			if f.err != "" || !f.dataAt.Equal(t0.Add(tc.dueIn)) {
				t.Errorf("the success after it left %+v", f)
			}
		})
	}
}

// The panels' time of day, written from the time's fields, is what Format
// writes with "15:04:05": in five zones, over two years of instants with
// fractions of every length, and in years from -1 to 10000.
func TestPanelTimesAreWhatFormatWrites(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	zones := []*time.Location{time.UTC, newYork, time.FixedZone("UTC+5:30", 5*3600+1800),
		time.FixedZone("UTC+12:45", 12*3600+2700), time.FixedZone("UTC-9:30", -(9*3600 + 1800))}
	fractions := []int{0, 1, 10, 120, 500_000_000, 999_999_999, 123_456_789, 100_000}
	var instants []time.Time
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 2*365*24; i += 7 {
		instants = append(instants, start.Add(time.Duration(i)*time.Hour+time.Duration(i%3600)*time.Second+time.Duration(fractions[i%len(fractions)])))
	}
	for _, year := range []int{-1, 0, 999, 9999, 10000} {
		instants = append(instants, time.Date(year, 12, 31, 23, 59, 59, 5_000, time.UTC), time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	for _, at := range instants {
		for _, loc := range zones {
			in := at.In(loc)
			if got, want := timeOfDay(in), in.Format("15:04:05"); got != want {
				t.Fatalf("timeOfDay(%v) = %q, Format wrote %q", in, got, want)
			}
		}
	}
}
