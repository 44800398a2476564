package boot

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

// timeAxisHarness runs web/chart-boot.js in Node, in a page of the stubs it
// touches, on the configuration and KLine answer it is given, and prints
// the time axis' labels and which of them the drawn chart names (the
// interval ECharts is handed), as JSON.
const timeAxisHarness = `
const fs = require("fs"), vm = require("vm");
const [script, confFile, answerFile, search, width] = process.argv.slice(2);
const ctx2d = () => new Proxy({}, { get: (t, k) => (k in t ? t[k] : k === "measureText" ? (s) => ({ width: 7 * String(s).length }) : () => {}), set: (t, k, v) => ((t[k] = v), true) });
const el = (props) => Object.assign({ append() {}, remove() {}, setAttribute() {}, hasAttribute: () => false, classList: { contains: () => false, add() {} },
  style: {}, closest: () => null, getBoundingClientRect: () => ({ top: 0, bottom: 0 }), getContext: ctx2d }, props);
const w = Number(width), h = 500;
const ids = { "chart-boot": el({ textContent: fs.readFileSync(confFile, "utf8") }), chart: el({ clientWidth: w, clientHeight: h }) };
let option = null;
const page = {
  document: { addEventListener() {}, currentScript: { src: "http://x/web/chart-boot.js" }, getElementById: (id) => ids[id] || null,
    scripts: [], head: { append() {} }, documentElement: el({}), createElement: (t) => el({ tagName: t }) },
  echarts: { init: () => ({ setOption(o) { option = o; }, getWidth: () => w, getHeight: () => h }) },
  location: { search },
  fetch: async () => ({ ok: true, text: async () => fs.readFileSync(answerFile, "utf8") }),
  matchMedia: () => ({ matches: false }), requestAnimationFrame: (f) => setTimeout(f), setTimeout,
  performance: { mark() {} }, devicePixelRatio: 1, innerHeight: h, URL, URLSearchParams,
  Event: class { constructor(type) { this.type = type; } },
  dispatchEvent() {
    const x = option && option.xAxis[option.xAxis.length - 1];
    console.log(JSON.stringify(x ? { labels: x.data, named: x.data.map((_, i) => x.axisLabel.interval(i)) } : {}));
  },
};
page.window = page;
vm.runInContext(fs.readFileSync(script, "utf8"), vm.createContext(page));
`

// The first paint names the candles the app names on the time axis
// (app/boot.Config's steps; docs/performance.md, "What the first paint
// promises": the app's first draw changes no label): by the step for the
// candles in view, also when the history is shorter than the candles
// shown at first (a weekly future's days), and in a zone with daylight
// saving time across its change.
func TestTheFirstPaintNamesTheTimesTheAppNames(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		// make installs Node.js with Debian's npm, for echarts: under CI a
		// missing node is a failure, never a pass.
		if os.Getenv("CI") == "true" {
			t.Fatal("no node to run web/chart-boot.js in (make installs Debian's npm, and node with it); CI=true makes this a failure")
		}
		t.Skip("no node to run web/chart-boot.js in: run make test, which installs Debian's npm and node with it")
	}
	const shown, width = 120, 800
	conf, err := NewConfig(Page{Contract: "BTC-USDT", Period: venueapi.Period60Min, UTC: "utc", Themes: []string{"light", "dark"}, Size: 300, Shown: shown})
	if err != nil {
		t.Fatal(err)
	}
	confJSON, err := conf.JSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{"harness.js": []byte(timeAxisHarness), "config.json": confJSON}
	script, err := filepath.Abs("../../web/chart-boot.js")
	if err != nil {
		t.Fatal(err)
	}
	change := time.Date(2025, 10, 26, 1, 0, 0, 0, time.UTC).Unix() // Europe's autumn change
	series := func(from, step int64, n int) []int64 {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = from + int64(i)*step
		}
		return ids
	}
	months := make([]int64, 130)
	for i := range months {
		months[i] = time.Date(2015, time.Month(1+i), 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	for _, c := range []struct {
		zone   string
		period venueapi.Period
		ids    []int64
	}{
		{"UTC", venueapi.Period1Min, series(change, 60, 30)},
		{"UTC", venueapi.Period60Min, series(change, 3600, 40)},
		{"UTC", venueapi.Period4Hour, series(change, 4*3600, 60)},
		{"UTC", venueapi.Period1Day, series(change-86400/2, 86400, 20)},
		{"Europe/Berlin", venueapi.Period60Min, series(change-150*3600, 3600, 300)},
		{"Europe/Berlin", venueapi.Period4Hour, series(change-40*86400, 4*3600, 300)},
		{"America/New_York", venueapi.Period30Min, series(change+7*86400-150*1800, 1800, 300)},
		{"Australia/Sydney", venueapi.Period1Mon, months},
	} {
		name := fmt.Sprintf("%s %s, %d candles", c.zone, c.period, len(c.ids))
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		var candles []string
		for i, id := range c.ids {
			p := 100 + i%7
			candles = append(candles, fmt.Sprintf(`{"id":%d,"open":%d,"close":%d.5,"low":%d,"high":%d,"vol":%d,"amount":1,"count":1,"trade_turnover":1}`, id, p, p, p-1, p+1, 10*i))
		}
		files["answer.json"] = []byte(`{"status":"ok","ch":"x","data":[` + strings.Join(candles, ",") + `]}`)
		for f, b := range files {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(node, filepath.Join(dir, "harness.js"), script, filepath.Join(dir, "config.json"), filepath.Join(dir, "answer.json"),
			"?contract_code=BTC-USDT&period="+string(c.period), fmt.Sprint(width))
		cmd.Env = append(os.Environ(), "TZ="+c.zone)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: node: %v\n%s", name, err, out)
		}
		var got struct {
			Labels []string `json:"labels"`
			Named  []bool   `json:"named"`
		}
		if err := json.Unmarshal(out, &got); err != nil || len(got.Labels) != len(c.ids) || len(got.Named) != len(c.ids) {
			t.Fatalf("%s: the script drew no chart (%v): %s", name, err, out)
		}
		// The app's rule: app/components' timeShown and app/echarts' nearEdge.
		start, end := max(0, len(c.ids)-shown), len(c.ids)-1
		step := chartopt.StepFor(c.period, end-start+1, chartopt.TimeLabels)
		zone := chartopt.LabelZone(c.period, loc)
		edge := int(float64(end-start+1)*chartopt.TimeLabelHalf/width) + 1
		var js, app []string
		for i, id := range c.ids {
			label := chartopt.Label(id, c.period, loc)
			if got.Labels[i] != label {
				t.Errorf("%s: candle %d labelled %q, want the app's %q", name, i, got.Labels[i], label)
			}
			near := (i > start && i-start < edge) || (i < end && end-i < edge)
			if i > 0 && step.Bucket(id, zone) != step.Bucket(c.ids[i-1], zone) && !near {
				app = append(app, label)
			}
			if got.Named[i] {
				js = append(js, label)
			}
		}
		if strings.Join(js, ", ") != strings.Join(app, ", ") {
			t.Errorf("%s: the first paint names\n  [%s]\nwhere the app names\n  [%s]", name, strings.Join(js, ", "), strings.Join(app, ", "))
		}
	}
}
