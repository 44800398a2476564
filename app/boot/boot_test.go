package boot

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/studies"
	"github.com/riskchart/riskchart/venueapi"
)

func TestTheConfigCarriesTheAppsRulesAsData(t *testing.T) {
	c, err := NewConfig(Page{Contract: "BTC-USDT", Period: venueapi.Period1Min, UTC: "utc", Themes: []string{"light", "dark"}, Size: 300, Shown: 120})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Path            string                       `json:"path"`
		Size            int                          `json:"size"`
		Shown           int                          `json:"shown"`
		Contract        string                       `json:"contract"`
		Period          string                       `json:"period"`
		ContractPattern string                       `json:"contractPattern"`
		ContractMaxLen  int                          `json:"contractMaxLen"`
		Labels          map[string]string            `json:"labels"`
		UTCLabels       []string                     `json:"utcLabels"`
		UTC             string                       `json:"utc"`
		Themes          []string                     `json:"themes"`
		Frames          map[string]json.RawMessage   `json:"frames"`
		Steps           map[string]chartopt.TimeStep `json:"steps"`
		EdgeHalf        int                          `json:"edgeHalf"`
		ContractsID     string                       `json:"contractsID"`
		PriceRoom       struct {
			Min, Step, Pad int
			Above          float64
			Font           string
		} `json:"priceRoom"`
		Compact struct {
			Below, PerPane, MinPane int
			Panes                   []string
			Patch                   json.RawMessage
			Font                    string
		} `json:"compact"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.EdgeHalf != chartopt.TimeLabelHalf {
		t.Errorf("the time labels' half width %d, want chartopt's %d", got.EdgeHalf, chartopt.TimeLabelHalf)
	}
	if r := got.PriceRoom; got.ContractsID != ContractsID || r.Min != chartopt.DefaultPriceRoom || r.Step != chartopt.PriceRoomStep ||
		r.Pad != chartopt.PriceRoomPad || r.Above != chartopt.PriceRoomAbove || r.Font != chartopt.AxisFont(chartopt.AxisFontSize) {
		t.Errorf("the price axis' room rule %+v from list %q, want chartopt's from %q", r, got.ContractsID, ContractsID)
	}
	// The compact layout's height rule, as app/pages/embed.go applies it: the
	// studies named Panes are those that take a pane of their own.
	cr := got.Compact
	for _, spec := range []string{"", "ma:7", "boll", "macd", "rsi", "macd,rsi", "ma:7,macd,rsi,vol_ma"} {
		specs, err := studies.ParseSpecs(spec)
		if err != nil {
			t.Fatal(err)
		}
		panes := 0
		for _, s := range specs {
			if slices.Contains(cr.Panes, string(s.Kind)) {
				panes++
			}
		}
		if k := studies.OscillatorPanes(specs); panes != k || cr.Below+panes*cr.PerPane != chartopt.CompactBelow(k) {
			t.Errorf("%q: the rule counts %d panes, compact under %d px; the app %d, under %d px", spec, panes, cr.Below+panes*cr.PerPane, k, chartopt.CompactBelow(k))
		}
	}
	// The measure rule reads the light frame's price grid for both themes.
	if cr.MinPane != chartopt.MinPricePane {
		t.Errorf("the least candles' pane %d px, want chartopt's %d", cr.MinPane, chartopt.MinPricePane)
	}
	var grids [2]struct {
		Grid []struct{ Top, Bottom string }
	}
	for i, theme := range []string{"light", "dark"} {
		if err := json.Unmarshal(got.Frames[theme], &grids[i]); err != nil || len(grids[i].Grid) == 0 {
			t.Fatalf("the %s frame's grids: %v", theme, err)
		}
	}
	if l, d := grids[0].Grid[0], grids[1].Grid[0]; l != d || l.Top == "" || l.Bottom == "" {
		t.Errorf("the price grid's top and bottom: light %+v, dark %+v; want the same, both given", l, d)
	}
	if cr.Font != chartopt.AxisFont(chartopt.CompactAxisFontSize) {
		t.Errorf("the compact labels' font %q, want %q", cr.Font, chartopt.AxisFont(chartopt.CompactAxisFontSize))
	}
	// One patch for both themes: chartopt.Compact sets sizes, not colours.
	for _, dark := range []bool{false, true} {
		want, err := chartopt.Compact(chartopt.DefaultStyle(dark))
		if err != nil {
			t.Fatal(err)
		}
		if string(cr.Patch) != string(want) {
			t.Errorf("the compact patch %s, want chartopt's %s (dark %v)", cr.Patch, want, dark)
		}
	}
	if got.Path != venueapi.PathKLine || got.Size != 300 || got.Shown != 120 || got.Contract != "BTC-USDT" || got.Period != "1min" ||
		got.UTC != "utc" || len(got.Themes) != 2 {
		t.Errorf("config %+v", got)
	}
	if got.ContractPattern != venueapi.ContractCodePattern || got.ContractMaxLen != venueapi.ContractCodeMaxLen {
		t.Errorf("contract rule %q, %d; want venueapi's", got.ContractPattern, got.ContractMaxLen)
	}
	if len(got.Labels) != len(venueapi.Periods()) {
		t.Errorf("labels for %d periods, want %d", len(got.Labels), len(venueapi.Periods()))
	}
	for _, p := range venueapi.Periods() {
		if got.Labels[string(p)] != chartopt.LabelLayout(p) {
			t.Errorf("period %s labelled %q, want chartopt's %q", p, got.Labels[string(p)], chartopt.LabelLayout(p))
		}
		if want := chartopt.StepFor(p, 120, chartopt.TimeLabels); got.Steps[string(p)] != want {
			t.Errorf("period %s: the time axis' step %+v, want chartopt's %+v for the 120 candles shown", p, got.Steps[string(p)], want)
		}
		if slices.Contains(got.UTCLabels, string(p)) != chartopt.LabelsInUTC(p) {
			t.Errorf("period %s: the script's UTC periods %v disagree with chartopt", p, got.UTCLabels)
		}
	}
	for _, name := range []string{"light", "dark"} {
		if !json.Valid(got.Frames[name]) || len(got.Frames[name]) < 2 {
			t.Errorf("no %s frame", name)
		}
	}
	if strings.ContainsAny(string(b), "<>") {
		t.Error("the config could end its script element")
	}
}

// The script knows five elements of Go's layouts (web/chart-boot.js).
func TestEveryLabelLayoutIsOneTheScriptWrites(t *testing.T) {
	known := regexp.MustCompile(`2006|01|02|15|04`)
	for _, p := range venueapi.Periods() {
		layout := chartopt.LabelLayout(p)
		if rest := strings.Trim(known.ReplaceAllString(layout, ""), "-: "); rest != "" {
			t.Errorf("period %s: layout %q holds %q, which the script does not write", p, layout, rest)
		}
	}
}

func TestStateShowsItsViewOnly(t *testing.T) {
	s := State{Contract: "ETH-USDT", Period: venueapi.Period5Min}
	if !s.Shows("ETH-USDT", venueapi.Period5Min) || s.Shows("ETH-USDT", venueapi.Period1Min) || s.Shows("BTC-USDT", venueapi.Period5Min) {
		t.Error("Shows disagrees with the state's view")
	}
}
