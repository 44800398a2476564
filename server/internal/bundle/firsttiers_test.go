package bundle

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/embedscope"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// A page written with the tiers the server holds has its calculator say
// what it waits for with them, as the app's first render does: the mark
// price (the account's position limits), or the contract's face value
// when the page carries no contract list, or that the tiers are no ladder;
// never the tiers the table above it shows; and the table's note says it
// marks the calculator's tier. Without the tiers it still waits for them,
// and a page with no calculator (a future's) gets none. An embed whose link
// does not grant the limits says from the start that it has no price.
func TestTheCalculatorBesideTheServersTiersWaitsForWhatComesNext(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	ladder := benchTiers() // ETH-USDT's, as the pages asked for
	notALadder := firstdata.TiersLookup(func(firstdata.TiersPage) (venueapi.TierEnvelope, bool) {
		env := benchLadder()
		env.Data[1].MaxVolume = env.Data[0].MaxVolume // tier 2 tops where tier 1 does
		return env, true
	})
	noList := firstdata.ContractsLookup(func() ([]byte, bool) { return nil, false })
	status := regexp.MustCompile(`<p [^>]*id="calc-status"[^>]*>([^<]*)</p>`)
	for _, tc := range []struct {
		name, path string
		contracts  firstdata.ContractsLookup
		tiers      firstdata.TiersLookup
		want       string // the calculator's status; "" for no calculator
	}{
		{"the chart page", "/?contract_code=ETH-USDT", twoContracts(), ladder,
			"The calculator cannot answer: waiting for the mark price (your position limits)."},
		{"/tiers", "/tiers?contract_code=ETH-USDT", twoContracts(), ladder,
			"The calculator cannot answer: waiting for the mark price (your position limits)."},
		{"no contract list", "/?contract_code=ETH-USDT", noList, ladder,
			"The calculator cannot answer: waiting for the face value of ETH-USDT."},
		{"tiers that are no ladder", "/?contract_code=ETH-USDT", twoContracts(), notALadder,
			"The calculator cannot answer: the venue's tiers do not form a ladder."},
		{"no tiers held", "/?contract_code=ETH-USDT", twoContracts(), nil,
			"The calculator cannot answer: waiting for the tiers."},
		{"a future's page", "/?contract_code=ETH-USDT-CQ", twoContracts(), ladder, ""},
		{"a tiers embed whose link grants the limits too", "/embed/tiers?contract_code=ETH-USDT&embed=" + embedLinkOf("tiers", "limits"), twoContracts(), ladder,
			"The calculator cannot answer: waiting for the mark price (your position limits)."},
		{"a tiers embed whose link grants no limits", "/embed/tiers?contract_code=ETH-USDT&embed=" + embedLinkOf("tiers"), twoContracts(), ladder,
			"The calculator cannot answer: it needs a price: the mark price comes with your position limits, which this page has no access to; type an entry price to reckon at it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := getWith(withFirstData(h, tc.contracts, tc.tiers), tc.path, nil)
			if rec.Code != http.StatusOK {
				t.Fatalf("HTTP %d", rec.Code)
			}
			page := rec.Body.String()
			if tc.tiers != nil && tc.want != "" && !strings.Contains(page, `id="tiers-first"`) {
				t.Fatal("the page does not carry the tiers: the case tests nothing")
			}
			if n := strings.Count(page, ` id="calculator"`); tc.want != "" && n != 1 {
				t.Errorf("the page has %d calculators, want 1", n)
			}
			m := status.FindAllStringSubmatch(page, -1)
			switch {
			case tc.want == "" && (len(m) > 0 || strings.Contains(page, `id="calculator"`)):
				t.Errorf("a page with no calculator has one: %q", m)
			case tc.want != "" && len(m) != 1:
				t.Errorf("%d calculator statuses, want 1", len(m))
			case tc.want != "" && html.UnescapeString(m[0][1]) != tc.want:
				t.Errorf("the calculator says %q, want %q", html.UnescapeString(m[0][1]), tc.want)
			}
			if tc.want != "" && !regexp.MustCompile(`<input [^>]*id="calc-leverage"[^>]*>`).MatchString(page) {
				t.Error("the calculator has no leverage field")
			}
			// The table drawn with the tiers has the app's note: it marks the calculator's tier.
			want := tc.want != "" && tc.tiers != nil
			if marks := strings.Contains(page, "Highlighted: the tier of the calculator&#39;s position."); marks != want {
				t.Errorf("the tier table's note says it marks the calculator's tier: %v, want %v", marks, want)
			}
		})
	}
}

// The fetch time of the tiers the server writes into a page is in UTC,
// named; in a view in the reader's zone it is marked for web/app-start.js
// to write in that zone, and in a view in UTC (?tz=utc) it is not.
func TestTheServersTiersAreFetchedInTheViewsZone(t *testing.T) {
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	fetched := regexp.MustCompile(`Fetched\s*<time ([^>]*)>[0-9]{2}:[0-9]{2}:[0-9]{2} UTC</time>`)
	for _, tc := range []struct {
		path  string
		local bool
	}{
		{"/?contract_code=ETH-USDT", true},
		{"/?contract_code=ETH-USDT&tz=utc", false},
		{"/tiers?contract_code=ETH-USDT", true},
		{"/tiers?contract_code=ETH-USDT&tz=utc", false},
		{"/embed/tiers?contract_code=ETH-USDT", true},
		{"/embed/tiers?contract_code=ETH-USDT&tz=utc", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := getWith(withFirstData(h, twoContracts(), benchTiers()), tc.path, nil)
			m := fetched.FindAllStringSubmatch(rec.Body.String(), -1)
			if rec.Code != http.StatusOK || len(m) != 1 {
				t.Fatalf("HTTP %d, %d fetch times, want one", rec.Code, len(m))
			}
			if !regexp.MustCompile(`\bdatetime="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"`).MatchString(m[0][1]) {
				t.Errorf("the fetch time's attributes %s have no datetime", m[0][1])
			}
			if local := strings.Contains(m[0][1], `data-zone="local"`); local != tc.local {
				t.Errorf("the fetch time is marked for the reader's zone: %v, want %v", local, tc.local)
			}
		})
	}
}

// embedLinkOf is an ETH-USDT embed link of panels, as a page reads it: its
// signature is the gateway's to check, and these pages' tiers lookup grants
// them.
func embedLinkOf(panels ...string) string {
	return embedscope.Join(embedscope.Encode(embedscope.Payload{Contracts: []string{"ETH-USDT"}, Panels: panels, Expires: 1}), []byte("signature"))
}
