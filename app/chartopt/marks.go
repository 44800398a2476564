package chartopt

import (
	"fmt"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// LastColor is the colour of the last-price line: the current candle's
// direction, as the candles are coloured (a doji counts as rising).
func LastColor(open, close float64, s Style) string {
	if close < open {
		return s.Down
	}
	return s.Up
}

// TimeLeft writes how long the candle that opened at id has until it
// closes, at now: "42s", "12:05" (minutes), "3:12:05" (hours), "2d 03:12"
// (days); "" once it has closed.
func TimeLeft(id int64, p venueapi.Period, now time.Time) string {
	left := p.Next(id) - now.Unix()
	if left <= 0 {
		return ""
	}
	d, h, m, sec := left/86400, left%86400/3600, left%3600/60, left%60
	switch {
	case d > 0:
		return fmt.Sprintf("%dd %02d:%02d", d, h, m)
	case h > 0:
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%d:%02d", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}
