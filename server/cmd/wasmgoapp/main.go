// Command wasmgoapp writes the module file app.wasm is built with: the
// project's go.mod and go.sum, with go-app replaced by a copy in which every
// declaration of pkg/app that names net/http is built for the server only,
// and go-app and go-echarts by copies with the edits of edits.go, which take
// regexp out of app.wasm, and go-app's with goapp/markup.go added, which
// mounts a tree from markup, goapp/notify.go, which keeps a function run
// for every node small, and its HTML elements made one type (elements.go).
//
// go-app's pkg/app holds both halves of the framework, the front end and the
// http.Handler that serves it, and its handler files import net/http in every
// build. The front end never calls them, but an import keeps its package's
// initialisers, and net/http's bring crypto/tls, x509, HTTP/2 and FIPS self
// tests into app.wasm: 1.3 MB of 9.7 MB, 0.27 MB of 1.82 MB with brotli
// (docs/startup.md#what-appwasm-links). The copies change nothing else; the
// server and every test outside the browser build with the modules as
// released.
//
//	go run ./server/cmd/wasmgoapp -out build/wasm
//	GOOS=js GOARCH=wasm go build -modfile build/wasm/go.mod ./app/wasm
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const (
	goApp = "github.com/maxence-charriere/go-app/v10"
	// cut is what the copy keeps out of js/wasm, and where it looks for it.
	cut, cutIn = "net/http", "pkg/app"
	// edited is what the edits take out of app.wasm.
	edited = "regexp"
	// appMain is app.wasm's main package.
	appMain = "./app/wasm"
)

func main() {
	out := flag.String("out", "build/wasm", "directory to write go.mod, go.sum and the copy of go-app into")
	flag.Parse()
	if err := run(*out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmgoapp:", err)
		os.Exit(1)
	}
}

// run writes out/go.mod, out/go.sum, out/go-app and out/go-echarts, from the
// module in the working directory.
func run(out string, stdout io.Writer) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("locating %s: %w", out, err)
	}
	copyDir, version, err := freshCopy(goApp, filepath.Join(out, "go-app"))
	if err != nil {
		return err
	}
	if err := rewriteElements(copyDir); err != nil {
		return err
	}
	splits, err := splitDir(filepath.Join(copyDir, cutIn))
	if err != nil {
		return err
	}
	if len(splits) == 0 {
		return fmt.Errorf("no file of %s@%s/%s imports %s: this program has nothing left to do and can go", goApp, version, cutIn, cut)
	}
	ecCopy, _, err := freshCopy(goECharts, filepath.Join(out, "go-echarts"))
	if err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading the module's %s: %w", f, err)
		}
		if err := os.WriteFile(filepath.Join(out, f), b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", f, err)
		}
	}
	if _, err := goRun(nil, "mod", "edit", "-modfile", filepath.Join(out, "go.mod"), "-replace", goApp+"="+copyDir, "-replace", goECharts+"="+ecCopy); err != nil {
		return fmt.Errorf("replacing go-app and go-echarts in %s: %w", filepath.Join(out, "go.mod"), err)
	}
	if err := checkLinks(filepath.Join(out, "go.mod")); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s@%s with %s kept out of js/wasm in %s; %d edits and %d added files (%s kept out, go-app's storage sweep out of the first run, trees mounted from markup, small functions where V8 would optimise them beside the first run, fmt out of the first run, one type for every element)\n",
		filepath.Join(out, "go.mod"), goApp, version, cut, strings.Join(splits, ", "), len(edits()), len(additions()), edited)
	return nil
}

// checkLinks fails when app.wasm, built with modfile, would still link
// cut, and names what imports it. Whether it links edited is the linker's
// call (regexp is still imported, by code app.wasm does not reach): a test
// checks it (TestRunOnTheProject).
func checkLinks(modfile string) error {
	b, err := goRun([]string{"GOOS=js", "GOARCH=wasm"}, "list", "-modfile", modfile, "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, appMain)
	if err != nil {
		return fmt.Errorf("listing what %s links: %w", appMain, err)
	}
	var importers []string
	for _, line := range strings.Split(string(b), "\n") {
		if fields := strings.Fields(line); len(fields) > 1 && slices.Contains(fields[1:], cut) {
			importers = append(importers, fields[0])
		}
	}
	if len(importers) > 0 {
		return fmt.Errorf("%s would still link %s: imported by %s", appMain, cut, strings.Join(importers, ", "))
	}
	return nil
}

// freshCopy copies module, at the version go.mod requires, into an emptied
// dst (so that a file the module no longer has does not linger), applies its
// edits, and returns dst and the version.
func freshCopy(module, dst string) (dir, version string, err error) {
	src, version, err := moduleDir(module)
	if err != nil {
		return "", "", err
	}
	if err := os.RemoveAll(dst); err != nil {
		return "", "", fmt.Errorf("emptying %s: %w", dst, err)
	}
	if err := copyModule(src, dst); err != nil {
		return "", "", err
	}
	if err := applyEdits(module, dst); err != nil {
		return "", "", err
	}
	return dst, version, nil
}

// moduleDir is where the go command keeps the module path at the version
// go.mod requires, downloading it first if it must, and that version.
func moduleDir(path string) (dir, version string, err error) {
	b, err := goRun(nil, "mod", "download", "-json", path)
	if err != nil {
		return "", "", fmt.Errorf("locating %s: %w", path, err)
	}
	var m struct{ Dir, Version string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", "", fmt.Errorf("reading go mod download's answer for %s: %w", path, err)
	}
	if m.Dir == "" {
		return "", "", fmt.Errorf("locating %s: go mod download gave no directory", path)
	}
	return m.Dir, m.Version, nil
}

// goRun runs the go command with args, env added to this process's, and
// returns what it printed; its error carries what the command said.
func goRun(env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = fmt.Errorf("go %s: %w: %s", args[0], err, exit.Stderr)
	}
	return b, err
}

// copyModule copies go.mod, the licence and every package of the module at
// src, writable, without its tests, to dst.
func copyModule(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copying %s: %w", src, err)
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		name := d.Name()
		if name != "go.mod" && name != "LICENSE" && (!strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("copying %s: %w", p, err)
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// splitDir splits the package in dir (split) and names the files split.
func splitDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") {
			if files[name], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("reading %s: %w", name, err)
			}
		}
	}
	out, err := split(files, cut)
	if err != nil {
		return nil, err
	}
	var splits []string
	for name, b := range out {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", name, err)
		}
		if !strings.HasSuffix(name, "_nowasm.go") {
			splits = append(splits, name)
		}
	}
	slices.Sort(splits)
	return splits, nil
}
