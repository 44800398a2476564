package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/app/chartopt"
)

// TestComponentsCoverTheFrame fails when the chart's options use a part of
// ECharts this build leaves out: ECharts ignores an option whose component
// is not registered, silently.
func TestComponentsCoverTheFrame(t *testing.T) {
	// The options ECharts' core draws, then those of the build's components.
	drawn := map[string]bool{"animation": true, "backgroundColor": true, "textStyle": true, "color": true}
	for _, c := range components {
		for _, o := range c.draws {
			drawn[o] = true
		}
	}
	for _, kind := range []chartopt.Kind{chartopt.KindCandles, chartopt.KindOHLC, chartopt.KindLine, chartopt.KindArea} {
		dark := kind == chartopt.KindLine
		s := chartopt.DefaultStyle(dark)
		s.Kind = kind
		raw, err := chartopt.Frame(s)
		if err != nil {
			t.Fatal(err)
		}
		var frame map[string]json.RawMessage
		if err := json.Unmarshal(raw, &frame); err != nil {
			t.Fatal(err)
		}
		var used []string
		for key, v := range frame {
			if key != "series" {
				used = append(used, key)
				continue
			}
			var series []struct{ Type string }
			if err := json.Unmarshal(v, &series); err != nil {
				t.Fatal(err)
			}
			for _, s := range series {
				used = append(used, "series:"+s.Type)
			}
		}
		for _, u := range used {
			if !drawn[u] {
				t.Errorf("the frame uses %s: the build has no component that draws it (add it to components)", u)
			}
		}
	}
}

func TestEntryRegistersAndExports(t *testing.T) {
	src := entry()
	for _, want := range []string{"use([CandlestickChart, BarChart, LineChart, CustomChart, GridComponent", "CanvasRenderer]);",
		"export function ohlcBars(up, down)", "export function closeLine(color, area)",
		`import { DataZoomComponent } from "echarts/components";`, "export { init, getInstanceByDom, graphic, version }"} {
		if !strings.Contains(src, want) {
			t.Errorf("the entry lacks %q:\n%s", want, src)
		}
	}
}

// TestBuild bundles the installed echarts package (make test installs it)
// and checks what the pages rely on: a global echarts, the licence notices,
// and a size well under the full dist file's.
func TestBuild(t *testing.T) {
	modules, err := filepath.Abs("../../../node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "echarts")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("echarts is not installed (make deps): %v", err)
		}
		t.Skipf("echarts is not installed (make deps): %v", err)
	}
	out := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := build(modules, out); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.Stat(filepath.Join(modules, "echarts", "dist", "echarts.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/*! Apache ECharts ", "var echarts=", "ZRender, a high performance 2d drawing library"} {
		if !strings.Contains(string(js), want) {
			t.Errorf("the build lacks %q", want)
		}
	}
	if len(js) > int(full.Size())*6/10 {
		t.Errorf("the build is %d bytes, the full dist file %d: more than 60 %%", len(js), full.Size())
	}
	if err := build(filepath.Join(t.TempDir(), "none"), out); err == nil || !strings.Contains(err.Error(), "run npm ci") {
		t.Errorf("without echarts installed: %v, want an error saying to run npm ci", err)
	}
}
