package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

// BenchmarkStartUpProfile is make profile-startup: where Go's first run in
// the page goes, by function, on a cold visit and the next visit in the
// same tab (docs/startup.md, "Start-up: where the time goes").
//
// Go's first run is the call of app.wasm's run export: the Go runtime,
// package initialisation and main up to its first wait, after which go-app
// removes its loader; it is told in the profile by that export's frame, so
// nothing depends on lining up the profiler's clock with the page's.
// RISKCHART_NAMED_WASM names an app.wasm built with its name section (the
// Makefile builds one): the server then serves it from a root of its own,
// beside the rest of web/, and the profile names Go's functions. Each
// visit's whole profile is kept beside the summary, as a .cpuprofile file
// that Chromium's DevTools loads.
func BenchmarkStartUpProfile(b *testing.B) {
	env := map[string]string{}
	var out strings.Builder
	if named := os.Getenv("RISKCHART_NAMED_WASM"); named != "" {
		env["RISKCHART_ROOT"] = rootWithWasm(b, named)
	} else {
		out.WriteString("app.wasm as shipped, without its name section: Go's functions are numbered (make profile-startup names them)\n\n")
	}
	s := startServer(b, env)
	alloc := newAllocator(b)
	const rounds = 3
	for range b.N {
		for r := range rounds {
			// The start-up bench's visits (startVisits), each inside a profile.
			startVisits(b, alloc, s.URL+"/", startProfiles[0], func(ctx context.Context, visit string) startTimes {
				var prof *profiler.Profile
				var t startTimes
				err := chromedp.Run(ctx, profiler.Enable(), profiler.SetSamplingInterval(200), profiler.Start(), chromedp.ActionFunc(func(ctx context.Context) error {
					t = startAfterNavigation(b, ctx, s.URL+"/")
					var err error
					prof, err = profiler.Stop().Do(ctx)
					return err
				}))
				if err != nil {
					b.Fatalf("profiling the %s visit: %v", visit, err)
				}
				fmt.Fprintf(&out, "round %d, %s visit: app.wasm instantiated at %.0f ms, loader gone at %.0f ms\n", r+1, visit, t.WasmReady, t.Running)
				// The whole profile, for DevTools' Performance panel (Load profile).
				if raw, err := json.Marshal(prof); err == nil {
					os.WriteFile(filepath.Join(artifactDir(b), fmt.Sprintf("startprofile-%d-%s.cpuprofile", r+1, visit)), raw, 0o644)
				}
				writeFirstRun(&out, prof, 25)
				return t
			})
		}
	}
	os.WriteFile(filepath.Join(artifactDir(b), "startprofile.txt"), []byte(out.String()), 0o644)
}

// rootWithWasm is a server root holding wasm_exec.js and every file of
// web/ as the repository has them, but app.wasm from wasm (no compressed
// siblings: it is served as it is).
func rootWithWasm(b *testing.B, wasm string) string {
	root := b.TempDir()
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "web"), 0o755); err != nil {
		b.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(abs, "web"))
	if err != nil {
		b.Fatal(err)
	}
	link := func(from, to string) {
		if err := os.Symlink(from, to); err != nil {
			b.Fatal(err)
		}
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "app.wasm") {
			link(filepath.Join(abs, "web", e.Name()), filepath.Join(root, "web", e.Name()))
		}
	}
	link(filepath.Join(abs, "wasm_exec.js"), filepath.Join(root, "wasm_exec.js"))
	wasm, err = filepath.Abs(wasm)
	if err != nil {
		b.Fatal(err)
	}
	link(wasm, filepath.Join(root, "web", "app.wasm"))
	return root
}

// goFirstRunFrame is the frame of app.wasm's run export, as V8 names it.
const goFirstRunFrame = "wasm_export_run"

// writeFirstRun writes the time of Go's first run in prof, its split by
// the package of the function on top of the stack, and the top functions
// by time inclusive of what they called.
func writeFirstRun(out *strings.Builder, prof *profiler.Profile, top int) {
	byID := map[int64]*profiler.ProfileNode{}
	parent := map[int64]int64{}
	for _, n := range prof.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	var total float64
	self, incl := map[string]float64{}, map[string]float64{}
	for i, id := range prof.Samples {
		ms := float64(prof.TimeDeltas[min(i+1, len(prof.TimeDeltas)-1)]) / 1000 // a sample lasts until the next
		var stack []string                                                      // leaf first
		inRun := false
		for at, ok := id, true; ok; at, ok = parent[at] {
			name := byID[at].CallFrame.FunctionName
			stack = append(stack, name)
			inRun = inRun || name == goFirstRunFrame
		}
		if !inRun {
			continue
		}
		total += ms
		self[packageOf(stack[0])] += ms
		seen := map[string]bool{}
		for _, f := range stack {
			if !seen[f] {
				seen[f] = true
				incl[f] += ms
			}
		}
	}
	fmt.Fprintf(out, "  Go's first run: %.0f ms of samples\n  by package of the function on top (self):\n", total)
	for _, kv := range sortedByValue(self)[:min(12, len(self))] {
		fmt.Fprintf(out, "    %7.1f ms  %s\n", kv.v, kv.k)
	}
	out.WriteString("  functions, inclusive (but the frames under every sample):\n")
	shown := 0
	for _, kv := range sortedByValue(incl) {
		if shown == top {
			break
		}
		if kv.v < total {
			fmt.Fprintf(out, "    %7.1f ms  %s\n", kv.v, kv.k)
			shown++
		}
	}
	out.WriteString("\n")
}

type keyValue struct {
	k string
	v float64
}

func sortedByValue(m map[string]float64) []keyValue {
	var kvs []keyValue
	for k, v := range m {
		kvs = append(kvs, keyValue{k, v})
	}
	slices.SortFunc(kvs, func(a, b keyValue) int { return cmp.Or(cmp.Compare(b.v, a.v), strings.Compare(a.k, b.k)) })
	return kvs
}

// packageOf is the package of a Go function as V8 names it from app.wasm's
// name section ("runtime.mallocgc", "github.com_riskchart_riskchart_app_components.__KLineChart_.draw"):
// the name up to its first dot outside a leading module host; a frame of
// JavaScript or a V8 stub is named as it is.
func packageOf(f string) string {
	host := 0
	for _, h := range []string{"github.com_", "golang.org_"} {
		if strings.HasPrefix(f, h) {
			host = len(h)
		}
	}
	if i := strings.IndexByte(f[host:], '.'); i >= 0 {
		return f[:host+i]
	}
	return f
}
