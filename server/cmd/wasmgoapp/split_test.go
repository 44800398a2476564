package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// outline is what a file declares and imports, to compare splits by.
type outline struct {
	constraint bool
	decls      []string // "F", "T", "T.M", "V"
	imports    []string
}

func outlineOf(t *testing.T, name string, src []byte) outline {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", name, err, src)
	}
	o := outline{constraint: strings.HasPrefix(string(src), serverOnly+"\n")}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		o.imports = append(o.imports, p)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			o.decls = append(o.decls, receiverType(fd.Recv.List[0].Type)+"."+fd.Name.Name)
			continue
		}
		o.decls = append(o.decls, declared(d)...)
	}
	return o
}

func TestSplit(t *testing.T) {
	const (
		serve = `package app

import (
	"net/http"
	"strings"
)

// Handler serves the app.
type Handler struct{ Name string }

// ServeHTTP answers a request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.init() }

// init prepares h.
func (h *Handler) init() { h.Name = strings.TrimSpace(h.Name); h.files() }

func (h *Handler) files() { _ = LocalDir("web") }

func trim(s string) string { return strings.TrimSpace(s) }
`
		resource = `package app

import (
	"net/http"
	"strings"
)

type Resolver interface{ Resolve(string) string }

func LocalDir(d string) Resolver { return local{Handler: http.FileServer(http.Dir(d)), dir: d} }

type local struct {
	http.Handler
	dir string
}

func (l local) Resolve(p string) string { return l.dir + "/" + strings.Trim(p, "/") }

// clientResolver is what the browser uses.
func clientResolver(p string) string { return trim(p) }

var status = http.StatusOK
`
		engine = `package app

func start(h *Handler) { clientResolver("/web/app.wasm") }

func prepare(h *Handler) { h.init() }
`
		walled = `//go:build !wasm

package app

import "net/http"

func serve() http.Handler { return nil }
`
	)
	tests := []struct {
		name    string
		files   map[string]string
		want    map[string]outline // the files written, by name
		wantErr string
	}{
		{
			name:  "a package without the import is left as it is",
			files: map[string]string{"engine.go": "package app\n\nfunc start() {}\n"},
			want:  map[string]outline{},
		},
		{
			name:  "what names net/http, a method of a type that moves, and what calls a method that moved off a type that stays, across files",
			files: map[string]string{"http.go": serve, "resource.go": resource, "engine.go": engine},
			want: map[string]outline{
				"http.go":            {decls: []string{"Handler", "trim"}, imports: []string{"strings"}},
				"http_nowasm.go":     {constraint: true, decls: []string{"Handler.ServeHTTP", "Handler.init", "Handler.files"}, imports: []string{"net/http", "strings"}},
				"resource.go":        {decls: []string{"Resolver", "clientResolver"}, imports: nil},
				"resource_nowasm.go": {constraint: true, decls: []string{"LocalDir", "local", "local.Resolve", "status"}, imports: []string{"net/http", "strings"}},
				"engine.go":          {decls: []string{"start"}, imports: nil},
				"engine_nowasm.go":   {constraint: true, decls: []string{"prepare"}, imports: nil},
			},
		},
		{
			name:  "a file with a build constraint has chosen its builds",
			files: map[string]string{"static.go": walled},
			want:  map[string]outline{},
		},
		{
			name:    "a dot import cannot be followed",
			files:   map[string]string{"x.go": "package app\n\nimport . \"net/http\"\n\nvar s = StatusOK\n"},
			wantErr: `x.go imports net/http as "."`,
		},
		{
			name: "the server's part may not overwrite a file of the package",
			files: map[string]string{
				"x.go":        "package app\n\nimport \"net/http\"\n\nvar s = http.StatusOK\n",
				"x_nowasm.go": "//go:build !wasm\n\npackage app\n",
			},
			wantErr: "splitting x.go: the package already has a x_nowasm.go",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for name, src := range tt.files {
				files[name] = []byte(src)
			}
			out, err := split(files, "net/http")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("split: err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("split: %v", err)
			}
			for name, want := range tt.want {
				b, ok := out[name]
				if !ok {
					t.Errorf("%s not written", name)
					continue
				}
				if got := outlineOf(t, name, b); !slices.Equal(got.decls, want.decls) || !slices.Equal(got.imports, want.imports) || got.constraint != want.constraint {
					t.Errorf("%s: got %+v, want %+v\n%s", name, got, want, b)
				}
			}
			for name := range out {
				if _, ok := tt.want[name]; !ok {
					t.Errorf("%s written, want it left alone", name)
				}
			}
		})
	}
}

// TestSplitKeepsDocComments: a declaration's doc comment moves with it and
// stays above it.
func TestSplitKeepsDocComments(t *testing.T) {
	src := "package app\n\nimport \"net/http\"\n\n// Serve answers.\n// Two lines.\nfunc Serve(w http.ResponseWriter) {}\n\n// Keep stays.\nfunc Keep() {}\n"
	out, err := split(map[string][]byte{"x.go": []byte(src)}, "net/http")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out["x_nowasm.go"]); !strings.Contains(s, "// Serve answers.\n// Two lines.\nfunc Serve(") {
		t.Errorf("the moved function lost its doc comment:\n%s", s)
	}
	if s := string(out["x.go"]); !strings.Contains(s, "// Keep stays.\nfunc Keep()") || strings.Contains(s, "Serve") {
		t.Errorf("the kept file:\n%s", s)
	}
}

// runOnTheProject runs the program on this repository, from its root, into
// a temporary directory, and returns that directory and the report; under
// -short it skips, saying why.
func runOnTheProject(t *testing.T, slow string) (out, report string) {
	if testing.Short() {
		t.Skip(slow)
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	out = t.TempDir()
	var b strings.Builder
	if err := run(out, &b); err != nil {
		t.Fatalf("run: %v", err)
	}
	return out, b.String()
}

// TestRunOnTheProject writes the module file for this repository and checks
// that the copy of go-app builds for js/wasm and for the server, and that
// app.wasm links no net/http with it (run checks that itself).
func TestRunOnTheProject(t *testing.T) {
	out, report := runOnTheProject(t, "type-checks go-app twice")
	if !strings.Contains(report, "net/http kept out of js/wasm in http.go, resource.go") {
		t.Errorf("report: %s", report)
	}
	for _, goos := range [][]string{{"GOOS=js", "GOARCH=wasm"}, nil} {
		vet := exec.Command("go", "vet", "-modfile", filepath.Join(out, "go.mod"), goApp+"/pkg/app")
		vet.Env = append(os.Environ(), goos...)
		if b, err := vet.CombinedOutput(); err != nil {
			t.Errorf("go vet %v of the copy: %v\n%s", goos, err, b)
		}
	}
}

// The edits take regexp out of app.wasm (and with it unicode's tables, built
// at every start), and go-echarts' helpers they touch answer as released.
func TestTheEditsTakeRegexpOutAndKeepGoEChartsOutput(t *testing.T) {
	out, _ := runOnTheProject(t, "builds app.wasm")
	modfile := filepath.Join(out, "go.mod")
	released := goOut(t, "run", "./server/cmd/wasmgoapp/testdata/funcopts")
	edited := goOut(t, "run", "-modfile", modfile, "./server/cmd/wasmgoapp/testdata/funcopts")
	if released != edited || strings.Count(released, "\n") < 10 {
		t.Errorf("go-echarts' helpers answer differently once edited:\nreleased:\n%s\nedited:\n%s", released, edited)
	}
	// The packages stay imported, so their own small init functions stay.
	for _, pkg := range []string{"regexp", "regexp/syntax", "unicode"} {
		funcs := goOut(t, "run", "./server/cmd/wasmsize", "-modfile", modfile, "-in", pkg, appMain)
		for _, line := range strings.Split(funcs, "\n") {
			name, _, _ := strings.Cut(line, " ")
			if strings.HasPrefix(name, "regexp") && !strings.HasSuffix(name, ".init") && !strings.HasPrefix(name, "regexp.init.") ||
				strings.HasPrefix(name, "unicode.map.init") {
				t.Errorf("app.wasm still links %s", name)
			}
		}
	}
}

// go-app's FormatString, which every attribute setter calls with "%v", gives
// the same strings edited as released, for the values the edit writes
// without fmt and for those it leaves to fmt (named types, Stringers,
// floats, nil, other formats).
func TestTheEditsKeepGoAppsFormatString(t *testing.T) {
	out, _ := runOnTheProject(t, "builds a program with go-app twice")
	const prog = "./server/cmd/wasmgoapp/testdata/formatstring"
	released := goOut(t, "run", prog)
	edited := goOut(t, "run", "-modfile", filepath.Join(out, "go.mod"), prog)
	if released != edited || strings.Count(released, "\n") < 30 {
		t.Errorf("FormatString answers differently once edited:\nreleased:\n%s\nedited:\n%s", released, edited)
	}
	src, err := os.ReadFile(filepath.Join(out, "go-app", "pkg", "app", "strings.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `format == "%v" && len(v) == 1`) {
		t.Error("the copy's strings.go lacks the edit: the comparison above compared go-app with itself")
	}
}

// goOut runs the go command and returns its standard output, failing t with
// its standard error.
func goOut(t *testing.T, args ...string) string {
	t.Helper()
	b, err := exec.Command("go", args...).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go %v: %v\n%s", args, err, exit.Stderr)
		}
		t.Fatalf("go %v: %v", args, err)
	}
	return string(b)
}
