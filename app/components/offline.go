package components

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/riskchart/riskchart/app/browser"
)

// The last data a view showed is kept in the browser's storage
// (browser.KeepLastSeen), so that the next visit draws it before the network
// answers, and a visit without a network shows it marked "Offline, as of …"
// until the server answers again.

// keepLater runs keep, which stores data on show in browser storage, in a task
// of its own once the browser has had a turn: in the task that showed the data
// it held the browser's frame back (35 ms of a cold start for the chart's
// candles: docs/startup.md, "The chart's kept candles"). It runs on go-app's
// UI goroutine and changes nothing on show, so go-app renders nothing after
// it.
func keepLater(ctx app.Context, keep func()) {
	ctx.Async(func() {
		browser.Yield()
		ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			keep()
		})
	})
}

// offlineMark is the badge of data shown from browser storage because the
// server cannot be reached.
func offlineMark(id string, at time.Time, loc *time.Location) app.UI {
	text := "Offline: the server cannot be reached"
	if !at.IsZero() {
		text = "Offline, as of " + at.In(loc).Format("2006-01-02 15:04:05")
	}
	return app.Span().ID(id).Class("badge warn offline").Text(text)
}

// asOf writes when data was saved as the panels' clock writes a time of
// day (viewTime): in UTC, named, when the view is in UTC, else in the
// browser's offset at that instant. A time read back from storage carries
// the offset it was saved with, which is neither.
func asOf(t time.Time, utc bool) string {
	shown, inUTC := viewTime(t, utc)
	return shown.Format("2006-01-02 15:04:05") + either(inUTC, " UTC", "")
}
