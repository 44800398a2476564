package browser

import (
	"math"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// UTCOffset is the browser's offset from UTC, in seconds east, at Unix
// second sec: its zone's rule for that date, daylight saving time or not.
// (Go's time.Local in js/wasm has one offset, the one at start-up, for
// every date: app/zone.) Natively, time.Local's offset then.
func UTCOffset(sec int64) int {
	if !app.IsClient {
		_, off := time.Unix(sec, 0).In(time.Local).Zone()
		return off
	}
	at := app.Window().Get("Date").New(float64(sec) * 1000)
	return int(math.Round(-at.Call("getTimezoneOffset").Float() * 60))
}
