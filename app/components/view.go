package components

import (
	"net/url"
	"slices"

	"github.com/riskchart/riskchart/venueapi"
)

// View is what a chart page's URL holds: reload or share restores it.
type View struct {
	Contract string
	Period   venueapi.Period
	UTC      bool
	Theme    string // "auto", "light" or "dark"
	Look     Look   // ?scale= and ?style= (viewlook.go)
	// Notice says what the URL asked for that is not shown, and why ("": all is).
	Notice string
}

// The values of ?tz= and ?theme= that a view reads; any other is the
// browser's zone, or its colour scheme ("auto").
const zoneUTC = "utc"

var themes = []string{"light", "dark"}

// Themes are the values of ?theme= a view reads, for the service worker,
// which puts one on a page it answers from its shell (server/internal/bundle).
func Themes() []string { return slices.Clone(themes) }

// DefaultView is the view of a URL that names none.
func DefaultView() View {
	return View{Contract: "BTC-USDT", Period: venueapi.Period1Min, Theme: "auto"}
}

// ViewFromURL reads ?contract_code=&period=&tz=&theme=, falling back to
// BTC-USDT, 1min, the browser's zone and its colour scheme.
func ViewFromURL(u *url.URL) View {
	q := u.Query()
	v := DefaultView()
	if c := contractParam(q); c != "" {
		if _, err := venueapi.ParseContractCode(c); err == nil {
			v.Contract = c
		}
	}
	if p, err := venueapi.ParsePeriod(periodParam(q)); err == nil {
		v.Period = p
	}
	v.UTC = q.Get("tz") == zoneUTC
	if t := q.Get("theme"); slices.Contains(themes, t) {
		v.Theme = t
	}
	v.Look, v.Notice = lookFromQuery(q)
	return v
}

// Query is the view as a URL query.
func (v View) Query() string { return v.values().Encode() }

// PageQuery is the view as the query of a risk page (/tiers, /limits): the
// contract, and the zone and the theme when they are not the browser's.
// Those pages show no period.
func (v View) PageQuery() string { return v.pageValues().Encode() }

func (v View) pageValues() url.Values {
	q := url.Values{"contract_code": {v.Contract}}
	if v.UTC {
		q.Set("tz", zoneUTC)
	}
	if v.Theme != "auto" && v.Theme != "" {
		q.Set("theme", v.Theme)
	}
	return q
}

// values is the view as the query's names and values.
func (v View) values() url.Values {
	q := url.Values{"contract_code": {v.Contract}, "period": {string(v.Period)}}
	if v.UTC {
		q.Set("tz", zoneUTC)
	} else {
		q.Set("tz", "local")
	}
	if v.Theme != "auto" {
		q.Set("theme", v.Theme)
	}
	v.Look.setLook(q)
	return q
}
