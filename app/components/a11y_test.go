//go:build !js

package components

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/app/studies"
	"github.com/riskchart/riskchart/venueapi"
)

// liveText is the text of the live regions of ui (role status or alert, or
// aria-live polite or assertive), what a screen reader reads out when it
// changes; one line per region.
func liveText(t *testing.T, ui app.UI) string {
	t.Helper()
	page := app.HTMLString(ui)
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var out []string
	depth, live := 0, 0 // live: the depth of the region being read; 0 none
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading the HTML: %v\n%s", err, page)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			if live > 0 {
				continue
			}
			for _, a := range el.Attr {
				if v := a.Value; a.Name.Local == "role" && (v == "status" || v == "alert") || a.Name.Local == "aria-live" && v != "off" {
					live = depth
				}
			}
		case xml.EndElement:
			if depth == live {
				out, live = append(out, strings.Join(strings.Fields(text.String()), " ")), 0
				text.Reset()
			}
			depth--
		case xml.CharData:
			if live > 0 {
				text.Write(el)
			}
		}
	}
	return strings.Join(out, "\n")
}

// A table's state line reads out what a screen reader user needs to hear
// (the data going stale, a refresh failing) and not the refreshes of a
// healthy panel: the limits refresh every 10 s, and a live region holding
// "refreshing…", the time fetched and the age read out two or three
// lines every 10 s, for as long as the page was open.
func TestAHealthyRefreshReadsNothingOut(t *testing.T) {
	t0 := time.Date(2026, 7, 6, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	healthy := []struct {
		name string
		f    fetchState
		now  time.Time
	}{
		{"fetched", fetchState{dataAt: at(0), triedAt: at(0)}, at(1)},
		{"ten seconds on, refreshing", fetchState{dataAt: at(0), triedAt: at(0), busy: true}, at(10)},
		{"refreshed", fetchState{dataAt: at(10), triedAt: at(10)}, at(11)},
		{"a minute old, between refreshes", fetchState{dataAt: at(10), triedAt: at(10)}, at(70)},
	}
	first := liveText(t, stateLine("limits-state", healthy[0].f, limitsEvery, healthy[0].now, true))
	for _, tc := range healthy[1:] {
		if got := liveText(t, stateLine("limits-state", tc.f, limitsEvery, tc.now, true)); got != first {
			t.Errorf("%s: a screen reader reads out %q (it read %q)", tc.name, got, first)
		}
	}
	failed := fetchState{dataAt: at(10), triedAt: at(40), err: "The server did not answer."}
	if got := liveText(t, stateLine("limits-state", failed, limitsEvery, at(41), true)); !strings.Contains(got, "Refresh failed") || !strings.Contains(got, "stale") {
		t.Errorf("a failing refresh: a screen reader reads out %q, want the failure and the stale mark", got)
	}
}

// The calculator's answer reads out what the user's typing changed, not
// each refresh of the mark price: the limits carrying it land every 10 s,
// and a live answer that holds the price read out the position, the
// margins and the liquidation prices again each time, while nothing was
// typed.
func TestTheCalculatorReadsOutNoMarkPriceRefresh(t *testing.T) {
	d := decimal.RequireFromString
	ladder, err := risk.NewLadder(openLadder)
	if err != nil {
		t.Fatal(err)
	}
	calc := func(mark string) *Calculator {
		c := &Calculator{Contract: "BTC-USDT", Tiers: openLadder, Ladder: ladder,
			Contracts: []venueapi.Offer{{Code: "BTC-USDT", FaceValue: d("0.001")}},
			Limit: &venueapi.PositionLimit{ContractCode: "BTC-USDT", LeverRate: 10, MarkPrice: d(mark),
				BuyLimit: d("10000"), BuyLimitValue: d("950000"), SellLimit: d("5000"), SellLimitValue: d("475000")}}
		c.size, c.unit, c.leverage, c.touched = "6000", risk.Contracts, "10", true
		return c
	}
	before, after := liveText(t, calc("95000")), liveText(t, calc("95012.5"))
	if !strings.Contains(before, "Tier") {
		t.Fatalf("the answer reads out no tier: %q", before)
	}
	if before != after {
		t.Errorf("a new mark price alone reads out\n%s\n(before it:\n%s)", after, before)
	}
	typed := calc("95000")
	typed.size = "20000"
	if liveText(t, typed) == before {
		t.Errorf("another size reads out nothing new: %q", before)
	}
}

// fieldTiedToError checks that in page the field whose id is field is
// marked invalid and described by an element on the page whose text is
// the error, want: a screen reader user back in the field hears that it is
// wrong and why, not only once, when the alert was read out.
func fieldTiedToError(t *testing.T, page, field, want string) {
	t.Helper()
	tag := tagWith(t, page, `id="`+field+`"`)
	if !has(tag, `aria-invalid="true"`) && !has(tag, "aria-invalid") {
		t.Errorf("the field is not marked invalid: %s", tag)
	}
	i := strings.Index(tag, `aria-describedby="`)
	if i < 0 {
		t.Fatalf("the field is described by nothing: %s", tag)
	}
	ids := tag[i+len(`aria-describedby="`):]
	ids = ids[:strings.IndexByte(ids, '"')]
	for _, id := range strings.Fields(ids) {
		if j := strings.Index(page, `id="`+id+`"`); j >= 0 {
			end := strings.Index(page[j:], "</")
			if strings.Contains(page[j:j+end], want) {
				return
			}
		}
	}
	t.Errorf("the field is described by %q, and no element of those ids says %q:\n%s", ids, want, page)
}

func TestAFormsErrorIsTiedToItsField(t *testing.T) {
	t.Run("the limits filter", func(t *testing.T) {
		f := &LimitFilter{Contract: "BTC-USDT"}
		f.draft = venueapi.LimitQuery{Pair: "btc"}
		f.filterErr = f.draft.Validate()
		if filterField(f.filterErr) != "pair" {
			t.Fatalf("the filter's error is about %q: %v", filterField(f.filterErr), f.filterErr)
		}
		fieldTiedToError(t, app.HTMLString(f), "filter-pair", "pair")
	})
	t.Run("the studies' period", func(t *testing.T) {
		m := &StudyMenu{}
		_, _ = render(t, m)
		m.open, m.period = true, "0"
		m.addHandler(studies.MA)(app.Context{}, app.Event{Value: app.Null()})
		fieldTiedToError(t, app.HTMLString(m.Render()), "study-period", "The period must be")
	})
	t.Run("the contract entry", func(t *testing.T) {
		c := &ContractEntry{Contract: "BTC-USDT", OnError: func(app.Context, string) {}}
		_, _ = render(t, c)
		c.entry = "btc"
		c.submit(app.Context{}, app.Event{Value: app.Null()})
		// The page shows the error the entry was told of (pages.ChartPage's #contract-error).
		page := app.HTMLString(c.Render()) + `<p id="contract-error" class="field-error" role="alert">Not a contract code</p>`
		fieldTiedToError(t, page, "contract-input", "Not a contract code")
	})
}
