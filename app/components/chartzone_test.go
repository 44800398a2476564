//go:build !js

package components

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // real zones' rules, in the test only: app.wasm asks the browser for its offsets

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// The chart asks the browser for its zone's offsets only when the span of
// its candles and now grows past the one its location covers.
func TestChartZoneProbesOnlyWhenTheSpanGrows(t *testing.T) {
	change := time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC).Unix()
	probes := 0
	off := func(sec int64) int {
		probes++
		if sec >= change {
			return 3600
		}
		return 7200
	}
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC).Unix()
	oldest := now - 300*4*3600 // 300 4hour candles: back to mid-October
	var z chartZone
	steps := []struct {
		name      string
		from, now int64
		probed    bool
	}{
		{"first", oldest, now, true},
		{"again", oldest, now, false},
		{"a newer oldest candle", oldest + 86400, now + 3600, false},
		{"older candles", oldest - 2000*4*3600, now + 7200, true},
		{"within the day past now", oldest, now + 86400, false},
		{"past it", oldest, now + 86400 + 7200 + 1, true},
	}
	for _, s := range steps {
		probes = 0
		loc := z.covering(off, s.from, s.now)
		if (probes > 0) != s.probed {
			t.Errorf("%s: %d probes, want probed %v", s.name, probes, s.probed)
		}
		for _, id := range []int64{change - 4*3600, change, s.from, s.now} {
			if _, got := time.Unix(id, 0).In(loc).Zone(); got != off(id) {
				t.Errorf("%s: offset at %d: %d, want %d", s.name, id, got, off(id))
			}
		}
	}
}

// Labels of a chart held across the autumn change: each candle's own
// offset, as the first paint (web/chart-boot.js) writes them.
func TestChartZoneLabelsEachCandleWithItsOwnOffset(t *testing.T) {
	change := time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC).Unix()
	off := func(sec int64) int {
		if sec >= change {
			return 3600
		}
		return 7200
	}
	var z chartZone
	loc := z.covering(off, change-8*3600, change+8*3600)
	for id, want := range map[int64]string{change - 4*3600: "10-24 23:00", change: "10-25 02:00", change + 4*3600: "10-25 06:00"} {
		if got := chartopt.Label(id, venueapi.Period4Hour, loc); got != want {
			t.Errorf("label of %d: %q, want %q", id, got, want)
		}
	}
	if got := zoneLabel(time.Unix(change+3600, 0).In(loc).Zone()); got != " UTC+1" {
		t.Errorf("zone after the change: %q, want %q", got, " UTC+1")
	}
}

// Natively the browser's offsets are time.Local's: the chart labels its
// candles as time.Local does, with one location until the span grows.
func TestTheChartsZoneIsTimeLocalsNatively(t *testing.T) {
	now := time.Now().Unix() / (4 * 3600) * (4 * 3600)
	k := &KLineChart{Period: venueapi.Period4Hour}
	for id := now - 2000*4*3600; id <= now; id += 4 * 3600 {
		k.candles = append(k.candles, venueapi.Candle{ID: id})
	}
	loc := k.loc()
	for _, c := range k.candles {
		if got, want := chartopt.Label(c.ID, k.Period, loc), chartopt.Label(c.ID, k.Period, time.Local); got != want {
			t.Fatalf("label of %d: %q, want %q", c.ID, got, want)
		}
	}
	if k.loc() != loc {
		t.Error("the location was built again for the same candles")
	}
	if k.UTC = true; k.loc() != time.UTC {
		t.Error("in UTC: not time.UTC")
	}
}

// The legend names the zone of the time it writes: the offset of the candle
// under the crosshair, which on a chart held across a change of daylight
// saving time is not the offset now (docs/decisions.md#day-candle-labels:
// candles of 4 hours and less are named in the zone the page shows).
func TestTheLegendNamesTheHoveredCandlesOffset(t *testing.T) {
	for _, name := range []string{"America/New_York", "Europe/London", "Australia/Sydney"} {
		t.Run(name, func(t *testing.T) {
			zone, err := time.LoadLocation(name)
			if err != nil {
				t.Fatal(err)
			}
			saved := time.Local
			time.Local = zone // natively the browser's offsets are time.Local's (browser.UTCOffset)
			defer func() { time.Local = saved }()

			now := time.Now().Unix() / (4 * 3600) * (4 * 3600)
			k := &KLineChart{Period: venueapi.Period4Hour, Decimals: 1, hover: -1}
			for id := now - 1999*4*3600; id <= now; id += 4 * 3600 {
				k.candles = append(k.candles, venueapi.Candle{ID: id})
			}
			loc := k.loc()
			_, offNow := time.Now().In(loc).Zone()
			for i, c := range k.candles {
				if _, off := time.Unix(c.ID, 0).In(loc).Zone(); off != offNow {
					k.hover = i // a candle of the other side of a change
					break
				}
			}
			if k.hover < 0 {
				t.Fatal("no candle with another offset than now's in 2000 4hour candles")
			}
			c := k.candles[k.hover]
			want := chartopt.Label(c.ID, k.Period, loc) + zoneLabel(time.Unix(c.ID, 0).In(loc).Zone())
			html := app.HTMLString(k.legend())
			if !strings.Contains(html, ">"+want+"<") {
				i := strings.Index(html, `id="legend-time"`)
				t.Errorf("legend of candle %d: want time %q, got %s", c.ID, want, html[i:i+60])
			}
		})
	}
}
