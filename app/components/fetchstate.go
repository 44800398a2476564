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
	failures int       // attempts failed in a row (not refused), for the backoff
	// backoff is how soon a failed attempt may be tried again, and atLeast
	// the least wait the server's Retry-After asked for (retryWait).
	backoff, atLeast time.Duration
}

// start marks an attempt under way: the refresh loop starts no second one.
func (f *fetchState) start() { f.busy = true }

// done records an attempt's outcome at now. A failure keeps the data on
// show and its time, and so does a stale answer (the server's cached
// numbers are no newer than those on show), so that the age tells the truth.
// A failure's retry waits the backoff, drawn by jitter in [0, 1), and at
// least the server's Retry-After (retryDelay).
func (f *fetchState) done(err error, stale bool, now time.Time, jitter float64) {
	f.busy, f.triedAt = false, now
	f.noAccess = errors.Is(err, api.ErrNoAccess)
	f.backoff, f.atLeast = 0, 0
	if err != nil {
		f.err = api.Words(err)
		f.backoff = backoffDelay(f.failures, 2*retryFailed, retryFailedMost, jitter)
		f.atLeast = notBefore(api.RetryAfter(err), jitter)
		f.failures++
		if f.noAccess {
			f.failures = 0
			// A page or an embed link without access to the data: a state the
			// panel shows, asked again each minute, not a fault to warn of.
			browser.Debug("a panel's data is not shared with this page", "err", err)
			return
		}
		browser.Warn("a panel's refresh failed", "err", err) // the technical text: the console's
		return
	}
	f.err, f.stale, f.failures = "", stale, 0
	if !stale || f.dataAt.IsZero() {
		f.dataAt = now
	}
}

// retryFailed is how soon a refresh that failed (not refused) is first
// tried again, however long the panel's pace: the failure it shows goes as
// soon as the server answers again, not a pace later. Failures in a row
// back off from it, doubling, up to retryFailedMost or the panel's pace.
const (
	retryFailed     = 3 * time.Second
	retryFailedMost = time.Minute
)

// retryWait is how long after the last attempt the next is due, at the
// panel's pace every: sooner after a failure (the backoff), but never
// before the server's Retry-After.
func (f fetchState) retryWait(every time.Duration) time.Duration {
	if f.err != "" && !f.noAccess {
		every = min(every, f.backoff)
	}
	return max(every, f.atLeast)
}

// due reports whether the refresh loop should try again.
func (f fetchState) due(now time.Time, every time.Duration) bool {
	return !f.busy && now.Sub(f.triedAt) >= f.retryWait(every)
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
// zone before the page is first drawn, as the app writes it. The browser's
// offset is asked for t itself: Go's time.Local in the browser is the
// offset at start-up, an hour off once a page open over a change of
// daylight saving time fetches again (app/zone).
func clock(t time.Time, utc bool) app.UI {
	at := app.Time().Attr("datetime", t.UTC().Format(time.RFC3339))
	if !utc {
		at = at.Attr("data-zone", "local")
	}
	shown, inUTC := viewTime(t, utc)
	return at.Text(timeOfDay(shown) + either(inUTC, " UTC", ""))
}

// viewTime is t with the fields a panel writes it by: in UTC when the view
// is in UTC or on the server, which does not know the reader's zone
// (inUTC), else in the browser's offset at that instant.
func viewTime(t time.Time, utc bool) (shown time.Time, inUTC bool) {
	if utc || app.IsServer {
		return t.UTC(), true
	}
	return t.UTC().Add(time.Duration(browser.UTCOffset(t.Unix())) * time.Second), false
}

// timeOfDay is t's time of day as Format("15:04:05") writes it, written
// from the time's fields as the chart's labels are (chartopt): that layout
// runs Format's general layout parser, which Go's first run otherwise
// compiles for the first risk table's line alone. The RFC 3339 stamps stay
// with Format, whose RFC 3339 layouts take a path of their own
// (docs/startup.md#fmt-errorsas-and-times-layouts-out-of-gos-first-run).
func timeOfDay(t time.Time) string {
	hour, minute, second := t.Clock()
	var b [8]byte
	c := append(chartopt.AppendDigits(b[:0], hour, 2), ':')
	c = append(chartopt.AppendDigits(c, minute, 2), ':')
	return string(chartopt.AppendDigits(c, second, 2))
}

// stateLine is the line above a table: when its data was fetched and how
// old it is (or "Loading…" before the first answer, which no "refreshing…"
// repeats), whether a refresh runs, and any stale or failed refresh; its
// times of day in UTC when utc is set (clock). Only the stale mark and the
// failure are read out as they change.
func stateLine(id string, f fetchState, every time.Duration, now time.Time, utc bool) app.UI {
	loading := f.dataAt.IsZero() && f.err == "" && !f.noAccess // the first fetch: "Loading…" says it all
	var fetched app.UI
	switch {
	case !f.dataAt.IsZero():
		fetched = app.Span().Class("age").Attr("data-at", f.dataAt.UTC().Format(time.RFC3339Nano)).
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
		tried = f.triedAt.UTC().Format(time.RFC3339Nano)
	}
	// Only what went wrong is a live region, read out when it changes: the
	// time fetched, its age and "refreshing…" change with every refresh of a
	// healthy panel (the limits' every 10 s), which a screen reader would
	// read out for as long as the page is open.
	return app.Div().ID(id).Class("data-state").Attr("data-tried", tried).Body(
		fetched,
		app.If(f.busy && !loading, func() app.UI { return app.Span().Class("muted refreshing").Text("refreshing…") }),
		app.Span().Class("data-news").Attr("role", "status").Body(
			app.If(stale != "", func() app.UI { return app.Span().Class("badge warn stale").Text(stale) }),
			app.If(f.err != "" && !f.noAccess, func() app.UI {
				return app.Span().Class("field-error refresh-error").Body(app.Text("Refresh failed at "), clock(f.triedAt, utc), app.Text(": "+f.err+" Next try at "),
					clock(f.triedAt.Add(f.retryWait(every)), utc), app.Text("."))
			}),
		),
	)
}
