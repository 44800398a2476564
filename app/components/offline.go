package components

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The last data a view showed is kept in the browser's storage
// (browser.KeepLastSeen), so that the next visit draws it before the network
// answers, and a visit without a network shows it marked "Offline, as of …"
// until the server answers again.

// offlineMark is the badge of data shown from browser storage because the
// server cannot be reached.
func offlineMark(id string, at time.Time, loc *time.Location) app.UI {
	text := "Offline: the server cannot be reached"
	if !at.IsZero() {
		text = "Offline, as of " + at.In(loc).Format("2006-01-02 15:04:05")
	}
	return app.Span().ID(id).Class("badge warn offline").Text(text)
}
