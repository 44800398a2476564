// Command echartsbuild writes Riskchart's ECharts: the pinned npm package's
// own ES modules, bundled and minified with esbuild, with only the chart
// types and components the chart draws. ECharts' full dist file is 1.1 MB
// (368 kB gzip) and holds thirty-odd chart types the page never shows; this
// build is about half of it, which the browser downloads, caches and
// compiles on every first visit. It keeps ECharts' global API (window.echarts
// with init, getInstanceByDom, graphic), so the pages use it as they would
// the dist file.
//
//	go run ./server/cmd/echartsbuild -o web/echarts.min.js
//
// A new option in app/chartopt that needs a component not listed in
// components fails TestComponentsCoverTheFrame, not the page.
package main

import (
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// components are the ECharts modules the chart needs, each with the option
// keys and series types ("series:bar") it draws: TestComponentsCoverTheFrame
// checks every one the frame uses against them.
var components = []struct {
	module, name string
	draws        []string
}{
	{"echarts/charts", "CandlestickChart", []string{"series:candlestick"}},
	{"echarts/charts", "BarChart", []string{"series:bar"}},
	{"echarts/charts", "LineChart", []string{"series:line"}},     // the studies' lines
	{"echarts/charts", "CustomChart", []string{"series:custom"}}, // OHLC bars, line and area (styles.js)
	{"echarts/components", "GridComponent", []string{"grid", "xAxis", "yAxis"}},
	{"echarts/components", "TooltipComponent", []string{"tooltip"}}, // the crosshair's trigger
	{"echarts/components", "AxisPointerComponent", []string{"axisPointer"}},
	{"echarts/components", "DataZoomComponent", []string{"dataZoom"}}, // inside and slider
	{"echarts/renderers", "CanvasRenderer", nil},                      // the canvas
}

func main() {
	out := flag.String("o", "web/echarts.min.js", "the file to write")
	modules := flag.String("modules", "node_modules", "where npm installed echarts")
	flag.Parse()
	if err := build(*modules, *out); err != nil {
		fmt.Fprintln(os.Stderr, "echartsbuild:", err)
		os.Exit(1)
	}
}

func build(modules, out string) error {
	version, err := echartsVersion(modules)
	if err != nil {
		return err
	}
	res := api.Build(api.BuildOptions{
		Stdin:             &api.StdinOptions{Contents: entry(), ResolveDir: filepath.Dir(modules), Sourcefile: "riskchart-echarts.js"},
		NodePaths:         []string{modules},
		Bundle:            true,
		Format:            api.FormatIIFE,
		GlobalName:        "echarts",
		Target:            api.ES2020,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Define:            map[string]string{"process.env.NODE_ENV": `"production"`},
		LegalComments:     api.LegalCommentsEndOfFile,
		Banner: map[string]string{"js": "/*! Apache ECharts " + version + " (Apache-2.0, https://echarts.apache.org) with ZRender " +
			"(BSD-3-Clause) and tslib (0BSD): Riskchart's build of the candlestick, bar, line and custom charts only (server/cmd/echartsbuild). */"},
		Outfile:  out,
		Write:    true,
		LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		msgs := make([]string, 0, len(res.Errors))
		for _, m := range res.Errors {
			msgs = append(msgs, m.Text)
		}
		return fmt.Errorf("bundling echarts %s: %s", version, strings.Join(msgs, "; "))
	}
	return nil
}

// entry is the bundle's source: register the components, then export the
// part of ECharts' API the pages call.
func entry() string {
	var b strings.Builder
	b.WriteString("import { use } from \"echarts/core\";\n")
	names := make([]string, 0, len(components))
	for _, c := range components {
		fmt.Fprintf(&b, "import { %s } from %q;\n", c.name, c.module)
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, "use([%s]);\n", strings.Join(names, ", "))
	b.WriteString("export { init, getInstanceByDom, graphic, version } from \"echarts/core\";\n")
	b.WriteString(stylesJS) // exports the chart styles' drawing functions beside ECharts' API
	return b.String()
}

// stylesJS draws the chart styles ECharts has no series for.
//
//go:embed styles.js
var stylesJS string

func echartsVersion(modules string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(modules, "echarts", "package.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("echarts is not installed in %s: run npm ci", modules)
	}
	if err != nil {
		return "", fmt.Errorf("reading echarts' version: %w", err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Version == "" {
		return "", fmt.Errorf("reading echarts' version from %s: no version", filepath.Join(modules, "echarts", "package.json"))
	}
	return pkg.Version, nil
}
