package components

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func TestLegendFormatsWithTheContractsPrecisionAndExactChange(t *testing.T) {
	d := decimal.RequireFromString
	c := venueapi.Candle{Open: d("98803.8"), Close: d("98761.2"), High: d("98827.7"), Low: d("98759"),
		Vol: d("4146"), Amount: d("4.146"), TradeTurnover: d("409574.6334"), Count: d("692")}
	got := legendOf(c, 1)
	want := legendValues{Open: "98,803.8", High: "98,827.7", Low: "98,759.0", Close: "98,761.2", Change: "-42.6", ChangePct: "-0.04%",
		Vol: "4,146", Amount: "4.146", Turnover: "409,574.6334", Count: "692", Up: false}
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	up := legendOf(venueapi.Candle{Open: d("0.25"), Close: d("0.2575")}, -1)
	if up.Change != "+0.0075" || up.ChangePct != "+3.00%" || !up.Up {
		t.Fatalf("rising candle: %+v", up)
	}
}

// The legend names the time's zone by its name, or, where the zone has only
// an offset, as UTC and the offset; a zone less than an hour behind UTC
// keeps its sign.
func TestZoneLabel(t *testing.T) {
	for _, tt := range []struct {
		name   string
		offset int
		want   string
	}{
		{"EST", -5 * 3600, " EST"},
		{"UTC", 0, " UTC"},
		{"", 5*3600 + 1800, " UTC+05:30"},
		{"+0545", 5*3600 + 2700, " UTC+05:45"},
		{"-03", -3 * 3600, " UTC-03:00"},
		{"-0330", -(3*3600 + 1800), " UTC-03:30"},
		{"", -1800, " UTC-00:30"},
		{"+14", 14 * 3600, " UTC+14:00"},
		{"", 0, " UTC+00:00"},
	} {
		if got := zoneLabel(tt.name, tt.offset); got != tt.want {
			t.Errorf("zoneLabel(%q, %d) = %q, want %q", tt.name, tt.offset, got, tt.want)
		}
	}
}
