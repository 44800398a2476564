package components

import (
	"errors"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/chartopt"
)

// fetchState is what a panel knows of its data's freshness: when the data
// on show was fetched, how the last attempt went, and whether one runs.
type fetchState struct {
	dataAt   time.Time // when the data on show arrived; zero: none yet
	triedAt  time.Time // when the last attempt ended
	busy     bool      // an attempt is under way
	err      string    // the last attempt's failure; "" when it succeeded
	stale    bool      // the server answered from its cache: the venue failed
	noAccess bool      // the server refused the private data
}

// start marks an attempt under way: the refresh loop starts no second one.
func (f *fetchState) start() { f.busy = true }

// done records an attempt's outcome at now. A failure keeps the data on
// show and its time, and so does a stale answer (the server's cached
// numbers are no newer than those on show), so that the age tells the truth.
func (f *fetchState) done(err error, stale bool, now time.Time) {
	f.busy, f.triedAt = false, now
	f.noAccess = errors.Is(err, api.ErrNoAccess)
	if err != nil {
		f.err = api.Words(err)
		if f.noAccess {
			// A page or an embed link without access to the data: a state the
			// panel shows, asked again each minute, not a fault to warn of.
			browser.Debug("a panel's data is not shared with this page", "err", err)
			return
		}
		browser.Warn("a panel's refresh failed", "err", err) // the technical text: the console's
		return
	}
	f.err, f.stale = "", stale
	if !stale || f.dataAt.IsZero() {
		f.dataAt = now
	}
}

// retryFailed is how soon a refresh that failed (not refused) is tried
// again, however long the panel's pace: the failure it shows goes as soon
// as the server answers again, not a pace later.
const retryFailed = 3 * time.Second

// due reports whether the refresh loop should try again.
func (f fetchState) due(now time.Time, every time.Duration) bool {
	if f.err != "" && !f.noAccess {
		every = min(every, retryFailed)
	}
	return !f.busy && now.Sub(f.triedAt) >= every
}

// late reports whether the data on show has missed two refreshes because
// they failed. Old data alone is not enough: the server's cached answer,
// prerendered into a page or adopted by the app, may be minutes old before
// the panel has tried a refresh of its own, and one under way is not failing.
func (f fetchState) late(now time.Time, every time.Duration) bool {
	return f.err != "" && !f.dataAt.IsZero() && now.Sub(f.dataAt) >= 2*every+every/2
}

// ageLabel is a coarse age, in steps that change rarely enough that the
// panel re-renders every ten seconds, not every second.
func ageLabel(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d/(10*time.Second))*10) + " s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	}
	return strconv.Itoa(int(d/time.Hour)) + " h ago"
}

// clock is a time of day as the panels write it, a <time>: in the
// browser's zone, or in UTC, named, when the view is in UTC (the chart's
// zone toggle). The server prerendering a page does not know the reader's
// zone, and its own may be another: it writes UTC, names it and marks the
// time data-zone="local", which web/app-start.js writes in the browser's
// zone before the page is first drawn, as the app writes it.
func clock(t time.Time, utc bool) app.UI {
	at := app.Time().Attr("datetime", utcStamp(t, false))
	if !utc {
		at = at.Attr("data-zone", "local")
	}
	if utc || app.IsServer {
		return at.Text(timeOfDay(t.UTC()) + " UTC")
	}
	return at.Text(timeOfDay(t.Local()))
}

// timeOfDay is t's time of day as Format("15:04:05") writes it. It and
// utcStamp write the panels' times from the time's fields, as the chart's
// labels are (chartopt): Format's layout parser otherwise runs, and is
// compiled, in Go's first run for the first risk table's line alone
// (docs/performance.md#fmt-errorsas-and-times-layouts-out-of-gos-first-run).
func timeOfDay(t time.Time) string {
	hour, minute, second := t.Clock()
	var b [8]byte
	return string(appendClock(b[:0], hour, minute, second))
}

// appendClock appends hh:mm:ss.
func appendClock(b []byte, hour, minute, second int) []byte {
	b = append(chartopt.AppendDigits(b, hour, 2), ':')
	b = append(chartopt.AppendDigits(b, minute, 2), ':')
	return chartopt.AppendDigits(b, second, 2)
}

// utcStamp is t in UTC as Format(time.RFC3339) writes it, or, with nano, as
// Format(time.RFC3339Nano) does: the fraction of a second without its
// trailing zeros, and none for a whole second. A year outside 0–9999 is
// left to Format.
func utcStamp(t time.Time, nano bool) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		if nano {
			return t.Format(time.RFC3339Nano)
		}
		return t.Format(time.RFC3339)
	}
	b := make([]byte, 0, len("2006-01-02T15:04:05.999999999Z"))
	b = append(chartopt.AppendDigits(b, year, 4), '-')
	b = append(chartopt.AppendDigits(b, int(month), 2), '-')
	b = append(chartopt.AppendDigits(b, day, 2), 'T')
	hour, minute, second := t.Clock()
	b = appendClock(b, hour, minute, second)
	if ns := t.Nanosecond(); nano && ns != 0 {
		var frac [9]byte
		for i := len(frac) - 1; i >= 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(frac)
		for frac[n-1] == '0' {
			n--
		}
		b = append(append(b, '.'), frac[:n]...)
	}
	return string(append(b, 'Z'))
}

// stateLine is the line above a table: when its data was fetched and how
// old it is (or "Loading…" before the first answer, which no "refreshing…"
// repeats), whether a refresh runs, and any stale or failed refresh; its
// times of day in UTC when utc is set (clock).
func stateLine(id string, f fetchState, every time.Duration, now time.Time, utc bool) app.UI {
	loading := f.dataAt.IsZero() && f.err == "" && !f.noAccess // the first fetch: "Loading…" says it all
	var fetched app.UI
	switch {
	case !f.dataAt.IsZero():
		fetched = app.Span().Class("age").Attr("data-at", utcStamp(f.dataAt, true)).
			Body(app.Text("Fetched "), clock(f.dataAt, utc), app.Text(" · "+ageLabel(now.Sub(f.dataAt))))
	case loading:
		fetched = app.Span().Class("muted").Text("Loading…")
	}
	stale := ""
	switch {
	case f.stale:
		stale = "stale: the venue did not answer; these are the server's last numbers"
	case f.late(now, every):
		stale = "stale: refreshes are failing"
	}
	tried := ""
	if !f.triedAt.IsZero() {
		tried = utcStamp(f.triedAt, true)
	}
	return app.Div().ID(id).Class("data-state").Attr("role", "status").Attr("data-tried", tried).Body(
		fetched,
		app.If(f.busy && !loading, func() app.UI { return app.Span().Class("muted refreshing").Text("refreshing…") }),
		app.If(stale != "", func() app.UI { return app.Span().Class("badge warn stale").Text(stale) }),
		app.If(f.err != "" && !f.noAccess, func() app.UI {
			return app.Span().Class("field-error refresh-error").Body(app.Text("Refresh failed at "), clock(f.triedAt, utc), app.Text(": "+f.err))
		}),
	)
}
