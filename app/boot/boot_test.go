package boot

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
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
		Path            string                     `json:"path"`
		Size            int                        `json:"size"`
		Shown           int                        `json:"shown"`
		Contract        string                     `json:"contract"`
		Period          string                     `json:"period"`
		ContractPattern string                     `json:"contractPattern"`
		ContractMaxLen  int                        `json:"contractMaxLen"`
		Labels          map[string]string          `json:"labels"`
		UTCLabels       []string                   `json:"utcLabels"`
		UTC             string                     `json:"utc"`
		Themes          []string                   `json:"themes"`
		Frames          map[string]json.RawMessage `json:"frames"`
		Steps           map[string][]Step          `json:"steps"`
		EdgeHalf        int                        `json:"edgeHalf"`
		ContractsID     string                     `json:"contractsID"`
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
		// The step the script picks for each count of candles in view: the
		// first whose UpTo holds it.
		for visible := 1; visible <= 120; visible++ {
			steps, pick := got.Steps[string(p)], chartopt.TimeStep{}
			for _, s := range steps {
				if visible <= s.UpTo {
					pick = s.TimeStep
					break
				}
			}
			if want := chartopt.StepFor(p, visible, chartopt.TimeLabels); pick != want {
				t.Errorf("period %s, %d candles in view: the time axis' step %+v, want chartopt's %+v", p, visible, pick, want)
			}
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

// A Look is the app's frame of the view (the studies' panes, the scale's
// price axis, the style's price series), both themes, and the app's
// patches for a narrow chart and a compact one: the first paint merges them
// as ECharts would, and the narrow patch over the frame is the narrow
// chart's frame. A style ECharts has no series for names the app's drawing
// function, and the percent scale says so.
func TestALookIsTheAppsFrameOfTheView(t *testing.T) {
	for _, tc := range []struct {
		name     string
		view     View
		grids    int
		draw     string // the drawing function; "": candles
		percent  bool
		sketched bool // the first paint sketches it before ECharts runs
	}{
		{"MA", View{Studies: []chartopt.StudyLine{{Name: "MA 7", Pane: 0}}}, 2, "", false, false},
		{"MA and MACD", View{Studies: []chartopt.StudyLine{{Name: "MA 7", Pane: 0}, {Name: "MACD DIF", Pane: 2}, {Name: "MACD hist", Pane: 2, Bars: true}}}, 3, "", false, false},
		{"MACD and RSI", View{Studies: []chartopt.StudyLine{{Name: "MACD DIF", Pane: 2}, {Name: "RSI 14", Pane: 3}}}, 4, "", false, false},
		{"log", View{Scale: chartopt.ScaleLog}, 2, "", false, false},
		{"percent", View{Scale: chartopt.ScalePercent}, 2, "", true, true},
		{"hollow", View{Kind: chartopt.KindHollow}, 2, "", false, true},
		{"OHLC", View{Kind: chartopt.KindOHLC}, 2, "ohlcBars", false, true},
		{"line", View{Kind: chartopt.KindLine}, 2, "closeLine", false, true},
		{"area on a percent scale", View{Scale: chartopt.ScalePercent, Kind: chartopt.KindArea}, 2, "closeLine", true, true},
		{"area on a log scale, with RSI", View{Scale: chartopt.ScaleLog, Kind: chartopt.KindArea, Studies: []chartopt.StudyLine{{Name: "RSI 14", Pane: 2}}}, 3, "closeLine", false, false},
	} {
		l, err := NewLook(tc.view)
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var got Look
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Percent != tc.percent {
			t.Errorf("%s: percent %v, want %v", tc.name, got.Percent, tc.percent)
		}
		if got.Sketched() != tc.sketched {
			t.Errorf("%s: sketched %v, want %v", tc.name, got.Sketched(), tc.sketched)
		}
		for name, dark := range map[string]bool{"light": false, "dark": true} {
			s := chartopt.DefaultStyle(dark)
			s.Scale, s.Kind, s.Studies = tc.view.Scale, tc.view.Kind, tc.view.Studies
			want, err := chartopt.Frame(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Frames[name]) != string(want) {
				t.Errorf("%s: the %s frame is not chartopt's of the view", tc.name, name)
			}
			var frame struct{ Grid []map[string]any }
			if err := json.Unmarshal(got.Frames[name], &frame); err != nil || len(frame.Grid) != tc.grids {
				t.Errorf("%s: the %s frame has %d grids (%v), want %d", tc.name, name, len(frame.Grid), err, tc.grids)
			}
			draw, ok := got.Draw[name]
			if wantDraw, wantOK := s.Drawing(); draw.Fn != tc.draw || ok != (tc.draw != "") || !jsonEqual(t, mustJSON(t, draw), mustJSON(t, wantDraw)) || ok != wantOK {
				t.Errorf("%s: the %s drawing %+v (%v), want %q as the app's %+v", tc.name, name, draw, ok, tc.draw, wantDraw)
			}
			compact, err := chartopt.Compact(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Compact) != string(compact) {
				t.Errorf("%s: the compact patch %s, want chartopt's %s (dark %v)", tc.name, got.Compact, compact, dark)
			}
			if len(tc.view.Studies) == 0 {
				continue // the app's frame is the same at any width (components' KLineChart.narrow)
			}
			s.Narrow = true
			narrow, err := chartopt.Frame(s)
			if err != nil {
				t.Fatal(err)
			}
			if merged := mergedJSON(t, got.Frames[name], got.Narrow); !jsonEqual(t, merged, narrow) {
				t.Errorf("%s: the %s frame with the narrow patch is\n%s\nwant the narrow chart's\n%s", tc.name, name, merged, narrow)
			}
		}
		if wantWidth := chartopt.NarrowWidth * min(len(tc.view.Studies), 1); got.NarrowWidth != wantWidth || (len(got.Narrow) > 0) != (wantWidth > 0) {
			t.Errorf("%s: narrow up to %d px (patch %s), want %d px, chartopt's with studies, and no patch without", tc.name, got.NarrowWidth, got.Narrow, wantWidth)
		}
	}
}

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mergedJSON is patch p merged over option o as web/chart-boot.js merges
// it (objects key by key, arrays index by index).
func mergedJSON(t *testing.T, o, p []byte) []byte {
	t.Helper()
	var merge func(o, p any) any
	merge = func(o, p any) any {
		switch pv := p.(type) {
		case []any:
			ov, ok := o.([]any)
			if !ok {
				return p
			}
			out := slices.Clone(ov)
			for i := range out {
				if i < len(pv) {
					out[i] = merge(out[i], pv[i])
				}
			}
			return out
		case map[string]any:
			ov, ok := o.(map[string]any)
			if !ok {
				return p
			}
			out := map[string]any{}
			for k, v := range ov {
				out[k] = v
			}
			for k, v := range pv {
				if w, has := ov[k]; has {
					out[k] = merge(w, v)
				} else {
					out[k] = v
				}
			}
			return out
		}
		return p
	}
	b, err := json.Marshal(merge(decoded(t, o), decoded(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	x, _ := json.Marshal(decoded(t, a))
	y, _ := json.Marshal(decoded(t, b))
	return string(x) == string(y)
}

// decoded is the JSON value b holds.
func decoded(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestALookWithStudiesCarriesTheAppsLegend: the first paint's copy of the
// legend (web/chart-boot.js) writes each study's lines under the app's
// names, at the app's decimals (studies.LegendDecimals), computed with the
// study's numbers, and starts the price grid by the app's rule
// (chartopt.PriceTopUnder); a view without studies has no legend to
// measure.
func TestALookWithStudiesCarriesTheAppsLegend(t *testing.T) {
	specs, err := studies.ParseSpecs("ma:7,ema:99,boll,vol_ma,vol_ma:5,macd,rsi")
	if err != nil {
		t.Fatal(err)
	}
	set := studies.NewSet(specs)
	var lines []chartopt.StudyLine
	for _, l := range set.Lines() {
		lines = append(lines, chartopt.StudyLine{Name: l.Name, Pane: l.Pane, Bars: l.Bars})
	}
	l, err := NewLook(View{Specs: specs, Studies: lines})
	if err != nil {
		t.Fatal(err)
	}
	var got Look
	if err := json.Unmarshal(mustJSON(t, l), &got); err != nil {
		t.Fatal(err)
	}
	if got.LegendFit == nil {
		t.Fatal("a look with studies carries no legend")
	}
	for bottom := -10; bottom <= 120; bottom++ {
		if top, want := got.LegendFit.Top(bottom), chartopt.PriceTopUnder(bottom); top != want {
			t.Fatalf("under a legend ending %d px down the rule starts the candles at %d, the app at %d", bottom, top, want)
		}
	}
	wantParams := [][]int{{7}, {99}, {studies.BollPeriod, studies.BollWidth}, {studies.VolMAPeriod}, {5}, {studies.MACDFast, studies.MACDSlow, studies.MACDSignal}, {studies.RSIPeriod}}
	if len(got.Studies) != len(specs) {
		t.Fatalf("%d studies in the legend, want %d", len(got.Studies), len(specs))
	}
	var k int // the line in the app's order
	appLines := set.Lines()
	for i, st := range got.Studies {
		if st.Kind != specs[i].Kind || !slices.Equal(st.Params, wantParams[i]) {
			t.Errorf("study %d: %s %v, want %s %v", i, st.Kind, st.Params, specs[i].Kind, wantParams[i])
		}
		for _, line := range st.Lines {
			if k >= len(appLines) {
				t.Fatalf("more lines in the legend than the app's %d", len(appLines))
			}
			app := appLines[k]
			k++
			for _, decimals := range []int32{-1, 0, 1, 9} {
				written := line.Places
				if line.Finer > 0 && decimals >= 0 {
					written = decimals + line.Finer
				}
				if want := studies.LegendDecimals(app.Pane, decimals); line.Name != app.Name || written != want {
					t.Errorf("line %q at %d decimals written with %d, want %q with %d", line.Name, decimals, written, app.Name, want)
				}
			}
		}
	}
	if k != len(appLines) {
		t.Errorf("%d lines in the legend, the app's %d", k, len(appLines))
	}
	if plain, err := NewLook(View{Scale: chartopt.ScaleLog}); err != nil || plain.LegendFit != nil || plain.Studies != nil {
		t.Errorf("a look without studies carries a legend %+v %+v (%v)", plain.LegendFit, plain.Studies, err)
	}
}

// TestTheConfigCarriesTheVolumeUnits: the first paint writes the volume
// axis' labels with the config's units, a decimal at most, as
// chartopt.FormatVolume does.
func TestTheConfigCarriesTheVolumeUnits(t *testing.T) {
	c, err := NewConfig(Page{Contract: "BTC-USDT", Period: venueapi.Period1Min, Size: 300, Shown: 120})
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := json.Unmarshal(mustJSON(t, c), &got); err != nil {
		t.Fatal(err)
	}
	script := func(v float64) string { // web/chart-boot.js' volume
		units := got.VolumeUnits
		i := 0 // the unit v reaches; len(units) when it reaches none
		for i < len(units) && math.Abs(v) < units[i].At {
			i++
		}
		at := func(k int) float64 {
			if k < len(units) {
				return units[k].At
			}
			return 1
		}
		r := math.Round(v/at(i)*10) / 10
		if i > 0 && math.Abs(r)*at(i) >= units[i-1].At { // rounded up to the next unit
			i--
			r = math.Round(v/at(i)*10) / 10
		}
		if r == 0 {
			r = 0 // String(-0) is "0"
		}
		s := strconv.FormatFloat(r, 'f', -1, 64)
		if i < len(units) {
			s += units[i].Suffix
		}
		return s
	}
	for _, v := range []float64{0, 950, 999.94, 999.95, 1000, 12500, 30000, 999950, 999999, 3.2e6, 999_950_000, 4.5e9, 0.25, -999950} {
		if s, want := script(v), chartopt.FormatVolume(v); s != want {
			t.Errorf("%g: the first paint writes %q, the app %q", v, s, want)
		}
	}
}
