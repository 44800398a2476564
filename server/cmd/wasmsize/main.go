// Command wasmsize prints how much of the WebAssembly front end each package
// takes. It builds the package (./app/wasm by default) for js/wasm as the
// Makefile does but keeping the module's "name" section, sums the code of
// each function by the package it belongs to, and shows the data segments
// (type data, strings, pclntab, which no section assigns to a package) as
// one row.
//
//	go run ./server/cmd/wasmsize -top 15 ./app/wasm
//
// make wasm-size runs it; docs/startup.md keeps the table, "Size per
// package (`make wasm-size`)".
//
// With -over, it lists instead the functions of the built package's own
// module whose bodies are larger than that, and fails when there are any:
// V8 tiers such a function up on its first call (docs/startup.md,
// "What tiers Go's code up").
//
//	go run ./server/cmd/wasmsize -over 12000 ./app/wasm
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/riskchart/riskchart/server/internal/cmdline"
	"github.com/riskchart/riskchart/server/internal/wasmbin"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("wasmsize", flag.ContinueOnError)
	top := fs.Int("top", 25, "packages to list, the largest first; the rest are summed in one row")
	module := fs.Bool("module", false, "sum by module (host/owner/repo, or the standard library's top-level package) instead of by package")
	in := fs.String("in", "", "list the functions of this import path instead, the largest first")
	modfile := fs.String("modfile", "", "build with this module file, as the Makefile builds app.wasm (server/cmd/wasmgoapp)")
	over := fs.Int64("over", 0, "list the functions of the package's own module larger than this many bytes instead, and fail if there are any")
	if err := fs.Parse(args); err != nil {
		return cmdline.Result(err)
	}
	if *over < 0 {
		return fmt.Errorf("-over is %d: it must be 0 (off) or more", *over)
	}
	if *top < 1 {
		return fmt.Errorf("-top is %d: it must be at least 1", *top)
	}
	pkg := "./app/wasm"
	switch fs.NArg() {
	case 0:
	case 1:
		pkg = fs.Arg(0)
	default:
		return errors.New("want at most one argument: the main package to build")
	}
	dir, err := os.MkdirTemp("", "wasmsize")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var withMod []string
	if *modfile != "" {
		withMod = []string{"-modfile", *modfile}
	}
	deps, err := goCmd(ctx, append(append([]string{"list"}, withMod...), "-deps", pkg)...)
	if err != nil {
		return err
	}
	if *in != "" && !slices.Contains(strings.Fields(deps), *in) {
		return fmt.Errorf("-in is %q: %s does not link a package of that import path", *in, pkg)
	}
	out := filepath.Join(dir, "app.wasm")
	if _, err := goCmd(ctx, append(append([]string{"build"}, withMod...), "-trimpath", "-o", out, pkg)...); err != nil {
		return err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("reading the module: %w", err)
	}
	m, err := parse(b)
	if err != nil {
		return fmt.Errorf("reading the module built from %s: %w", pkg, err)
	}
	names := newPackageNames(strings.Fields(deps))
	if *over > 0 {
		own, err := goCmd(ctx, append(append([]string{"list"}, withMod...), "-f", "{{.Module.Path}}", pkg)...)
		if err != nil {
			return err
		}
		own = strings.TrimSpace(own)
		inOwn := func(sym string) bool { p := names.of(sym); return p == own || strings.HasPrefix(p, own+"/") }
		return reportOver(stdout, m.over(*over, inOwn), own, *over)
	}
	group := names.of
	switch {
	case *in != "":
		group = func(sym string) string {
			if names.of(sym) == *in {
				return sym
			}
			return "(other packages)"
		}
	case *module:
		group = func(sym string) string { return moduleOf(names.of(sym)) }
	}
	return report(stdout, m, int64(len(b)), group, *top)
}

// goCmd runs the go command for js/wasm and returns its output.
func goCmd(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// report writes the table: the top packages by code, the rest in one row,
// then the data and the other sections, each with its share of total.
func report(stdout io.Writer, m *wasmModule, total int64, group func(string) string, top int) error {
	rows := m.byGroup(group)
	w := bufio.NewWriter(stdout)
	fmt.Fprintf(w, "%-60s %10s %6s\n", "package (code of its functions)", "bytes", "share")
	var rest int64
	for i, r := range rows {
		if i >= top {
			rest += r.size
			continue
		}
		fmt.Fprintf(w, "%-60s %10d %5.1f%%\n", r.name, r.size, pct(r.size, total))
	}
	if rest > 0 {
		fmt.Fprintf(w, "%-60s %10d %5.1f%%\n", fmt.Sprintf("(%d more rows)", len(rows)-top), rest, pct(rest, total))
	}
	fmt.Fprintf(w, "%-60s %10d %5.1f%%\n", "(data segments: types, strings, pclntab, tables)", m.data, pct(m.data, total))
	fmt.Fprintf(w, "%-60s %10d %5.1f%%\n", "(other sections: names, imports, headers)", total-m.code-m.data, pct(total-m.code-m.data, total))
	fmt.Fprintf(w, "%-60s %10d\n", "module, with its name section", total)
	if m.unnamed > 0 {
		fmt.Fprintf(w, "note: %d functions have no name\n", m.unnamed)
	}
	return w.Flush()
}

// over is the functions that keep(name) and whose bodies are larger than
// limit bytes, the largest first.
func (m *wasmModule) over(limit int64, keep func(name string) bool) []row {
	var rows []row
	for i, size := range m.bodies {
		name := m.names[m.imported+i]
		if size > limit && keep(name) {
			rows = append(rows, row{name, size})
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.size, a.size), strings.Compare(a.name, b.name)) })
	return rows
}

// reportOver lists the functions of module over limit bytes; an error
// when there are any.
func reportOver(stdout io.Writer, rows []row, module string, limit int64) error {
	for _, r := range rows {
		fmt.Fprintf(stdout, "%-100s %10d\n", r.name, r.size)
	}
	if len(rows) > 0 {
		return fmt.Errorf("%d functions of %s are over %d bytes: split them (docs/performance.md, \"What tiers Go's code up\")", len(rows), module, limit)
	}
	fmt.Fprintf(stdout, "no function of %s is over %d bytes\n", module, limit)
	return nil
}

func pct(n, total int64) float64 { return 100 * float64(n) / float64(total) }

// wasmModule is what wasmsize reads of a module.
type wasmModule struct {
	imported int            // imported functions, which come first in the function index space
	bodies   []int64        // each defined function's body size, in code section order
	names    map[int]string // function index → name, from the "name" section
	code     int64          // the code section's size
	data     int64          // the data section's size
	unnamed  int            // defined functions the name section does not name
}

type row struct {
	name string
	size int64
}

// byGroup sums the body sizes of the defined functions by group(name),
// the largest first.
func (m *wasmModule) byGroup(group func(string) string) []row {
	sums := map[string]int64{}
	for i, size := range m.bodies {
		name, ok := m.names[m.imported+i]
		if !ok {
			name = "(unnamed)"
		}
		sums[group(name)] += size
	}
	rows := make([]row, 0, len(sums))
	for k, v := range sums {
		rows = append(rows, row{k, v})
	}
	slices.SortFunc(rows, func(a, b row) int {
		if c := cmp.Compare(b.size, a.size); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	return rows
}

// The linker writes a function's name with every character other than a
// letter, digit, underscore or dot replaced by an underscore (cmd/link's
// wasm nameRegexp): github.com/a-b/c.(*T).M becomes github.com_a_b_c.__T_.M.
var nameRegexp = regexp.MustCompile(`[^\w.]`)

// packageNames maps the linker's function names back to import paths.
type packageNames struct {
	bySanitized map[string]string // sanitized import path → import path
}

func newPackageNames(paths []string) packageNames {
	p := packageNames{bySanitized: map[string]string{}}
	for _, path := range paths {
		p.bySanitized[nameRegexp.ReplaceAllString(path, "_")] = path
	}
	return p
}

// of is the import path of the function named sym: the longest known
// package whose sanitized path, then a dot, starts sym. Compiler-made
// functions (type:.eq.T becomes type_.eq.T) are grouped by what comes
// before their first dot.
func (p packageNames) of(sym string) string {
	best := ""
	for i := 0; i < len(sym); i++ {
		if sym[i] != '.' {
			continue
		}
		if path, ok := p.bySanitized[sym[:i]]; ok && len(path) > len(best) {
			best = path
		}
	}
	if best != "" {
		return best
	}
	if i := strings.IndexByte(sym, '.'); i > 0 {
		return "(" + sym[:i] + ")"
	}
	return "(" + sym + ")"
}

// moduleOf is a package path's module-like prefix: host/owner/repo for a
// path on a host (a dot in its first element), else its first element
// (the standard library's top-level packages).
func moduleOf(pkg string) string {
	parts := strings.Split(pkg, "/")
	if strings.Contains(parts[0], ".") && len(parts) >= 3 {
		return strings.Join(parts[:3], "/")
	}
	return parts[0]
}

// parse reads a module's import, code, data and name sections.
func parse(b []byte) (*wasmModule, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, errors.New("not a WebAssembly module")
	}
	m := &wasmModule{names: map[int]string{}}
	for sec, err := range wasmbin.Sections(b) {
		if err != nil {
			return nil, err
		}
		s := &wasmbin.Reader{B: sec.Body}
		switch sec.ID {
		case 2:
			err = m.readImports(s)
		case 10:
			m.code = int64(len(sec.Body))
			err = m.readCode(s)
		case 11:
			m.data = int64(len(sec.Body))
		case 0:
			err = m.readCustom(s)
		}
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", sec.ID, err)
		}
	}
	for i := range m.bodies {
		if _, ok := m.names[m.imported+i]; !ok {
			m.unnamed++
		}
	}
	return m, nil
}

func (m *wasmModule) readImports(r *wasmbin.Reader) error {
	n, err := r.Uleb()
	if err != nil {
		return err
	}
	for range n {
		for range 2 { // module, field
			if _, err := r.Name(); err != nil {
				return err
			}
		}
		kind, err := r.Byte()
		if err != nil {
			return err
		}
		switch kind {
		case 0: // function: a type index
			m.imported++
			_, err = r.Uleb()
		case 1: // table: reftype, limits
			if _, err = r.Byte(); err == nil {
				err = r.Limits()
			}
		case 2: // memory: limits
			err = r.Limits()
		case 3: // global: valtype, mutability
			_, err = r.Bytes(2)
		default:
			err = fmt.Errorf("import kind %d", kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (m *wasmModule) readCode(r *wasmbin.Reader) error {
	n, err := r.Uleb()
	if err != nil {
		return err
	}
	for range n {
		size, err := r.Uleb()
		if err != nil {
			return err
		}
		if _, err := r.Bytes(int(size)); err != nil {
			return err
		}
		m.bodies = append(m.bodies, int64(size))
	}
	return nil
}

// readCustom reads the function names of a "name" section; other custom
// sections are skipped.
func (m *wasmModule) readCustom(r *wasmbin.Reader) error {
	name, err := r.Name()
	if err != nil || name != "name" {
		return err
	}
	for !r.Done() {
		id, err := r.Byte()
		if err != nil {
			return err
		}
		size, err := r.Uleb()
		if err != nil {
			return err
		}
		sub, err := r.Bytes(int(size))
		if err != nil {
			return err
		}
		if id != 1 { // function names
			continue
		}
		s := &wasmbin.Reader{B: sub}
		n, err := s.Uleb()
		if err != nil {
			return err
		}
		for range n {
			idx, err := s.Uleb()
			if err != nil {
				return err
			}
			fn, err := s.Name()
			if err != nil {
				return err
			}
			m.names[int(idx)] = fn
		}
	}
	return nil
}
