package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goECharts is the other module app.wasm links a copy of.
const goECharts = "github.com/go-echarts/go-echarts/v2"

// An edit replaces text that must occur exactly once in a file of a module's
// copy, so that a release that changes the text fails the build by name
// instead of being edited wrongly. Each edit keeps the package's behaviour.
// Three take regexp out of app.wasm (docs/startup.md#what-appwasm-links):
// the regexp compiler (260 kB of code), and with it unicode's category and
// script tables, maps that package init builds in every start whatever uses
// them. go-echarts compiled two regexps at init besides. One moves go-app's
// sweep of browser storage out of Go's first run
// (docs/startup.md#go-apps-sweep-of-browser-storage). One, with the
// file goapp/markup.go added, mounts a tree from markup
// (docs/startup.md#mounting-from-markup). One writes the attribute
// values of every render without fmt
// (docs/startup.md#go-apps-attribute-values), and two the key of each
// action handler
// (docs/startup.md#fmt-errorsas-and-times-layouts-out-of-gos-first-run).
type edit struct {
	module, file, why string
	old, new          string
}

func edits() []edit {
	return []edit{
		{
			module: goApp, file: "pkg/app/route.go",
			why: "a route's pattern is used only to match: the field's type kept *regexp.Regexp's methods, and through UnmarshalText the regexp compiler, in every build",
			old: "	regexp       *regexp.Regexp\n",
			new: "	regexp       interface{ MatchString(string) bool }\n",
		},
		{
			module: goECharts, file: "opts/js.go",
			why: "the two regexps compiled at package init only delete newlines and tabs, and // comments to the end of their line",
			old: "import (\n\t\"fmt\"\n\t\"regexp\"\n",
			new: "import (\n\t\"fmt\"\n\t\"strings\"\n",
		},
		{
			module: goECharts, file: "opts/js.go",
			why: "as above",
			old: "var (\n\tnewlineTabPat = regexp.MustCompile(`\\n|\\t`)\n\tcommentPat    = regexp.MustCompile(`(//.*)\\n`)\n)\n",
			new: `// riskchart's build of app.wasm (server/cmd/wasmgoapp) has these two in
// place of regexp.MustCompile(` + "`\\n|\\t`" + `) and regexp.MustCompile(` + "`(//.*)\\n`" + `):
// the same replacements, with no regexp compiled at init. A replacement is
// inserted as it is, without regexp's $ expansion; every caller passes "".
var (
	newlineTabPat newlineOrTab
	commentPat    lineComment
)

type newlineOrTab struct{}

func (newlineOrTab) ReplaceAllString(s, repl string) string {
	return strings.NewReplacer("\n", repl, "\t", repl).Replace(s)
}

type lineComment struct{}

// ReplaceAllString replaces each "//" up to and with the next newline; a
// "//" with no newline after it is left, as the regexp left it.
func (lineComment) ReplaceAllString(s, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "//")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
`,
		},
		{
			module: goApp, file: "pkg/app/engine.go",
			why: "go-app reads and decodes every localStorage value at start, looking for its own expired states, inside Go's first run, which the page's controls wait for: the sweep now runs a second later, on the same goroutine",
			old: "\te.states.CleanupExpiredPersistedStates(e.baseContext())\n",
			new: `	// riskchart's build of app.wasm (server/cmd/wasmgoapp): the sweep of
	// expired persisted states runs a second after the start, on the
	// engine's goroutine, rather than inside Go's first run.
	time.AfterFunc(time.Second, func() {
		e.dispatch(func() { e.states.CleanupExpiredPersistedStates(e.baseContext()) })
	})
`,
		},
		{
			module: goApp, file: "pkg/app/engine.go",
			why: "go-app decodes its list of internal URLs with encoding/json at the first navigation, inside Go's first run, where nothing else of the app needs encoding/json: an empty list is no longer decoded",
			old: "\t\tjson.Unmarshal([]byte(Getenv(\"GOAPP_INTERNAL_URLS\")), &e.internalURLs)\n",
			new: `		// riskchart's build of app.wasm (server/cmd/wasmgoapp): the list is
		// decoded only when there is one, which keeps encoding/json out of
		// Go's first run.
		if urls := Getenv("GOAPP_INTERNAL_URLS"); urls != "null" && urls != "[]" {
			json.Unmarshal([]byte(urls), &e.internalURLs)
		}
`,
		},
		{
			module: goApp, file: "pkg/app/strings.go",
			why: "every Aria, DataSet and typed attribute setter of every element formats its value with fmt.Sprintf(\"%v\", v) on every render: a string, bool or integer is now written as %v writes it, without fmt, whose printer V8 otherwise compiles twice in Go's first run",
			old: "\tif len(v) == 0 {\n\t\treturn format\n\t}\n\treturn fmt.Sprintf(format, v...)\n",
			new: `	if len(v) == 0 {
		return format
	}
	// riskchart's build of app.wasm (server/cmd/wasmgoapp): "%v" of a
	// string, bool or integer, as fmt writes it, without fmt.
	if format == "%v" && len(v) == 1 {
		switch x := v[0].(type) {
		case string:
			return x
		case bool:
			return strconv.FormatBool(x)
		case int:
			return strconv.Itoa(x)
		case int64:
			return strconv.FormatInt(x, 10)
		case int32:
			return strconv.FormatInt(int64(x), 10)
		case uint:
			return strconv.FormatUint(uint64(x), 10)
		case uint64:
			return strconv.FormatUint(x, 10)
		}
	}
	return fmt.Sprintf(format, v...)
`,
		},
		{
			module: goApp, file: "pkg/app/action.go",
			why: "every handler a component sets (ctx.Handle, at its mount) is keyed by fmt.Sprintf(\"/%T/%p/%p\", ...), the one call of fmt left in Go's first run: the same key is now written without fmt for a component's pointer and a func, and by fmt for anything else",
			old: "func actionHandlerKey(source UI, handler ActionHandler) string {\n\treturn fmt.Sprintf(\"/%T/%p/%p\", source, source, handler)\n}\n",
			new: `func actionHandlerKey(source UI, handler ActionHandler) string {
	// riskchart's build of app.wasm (server/cmd/wasmgoapp): the key that
	// fmt.Sprintf("/%T/%p/%p", source, source, handler) writes, without fmt
	// when source is a pointer and handler a func, as they are for every
	// handler a component sets.
	sv, hv := reflect.ValueOf(source), reflect.ValueOf(handler)
	if sv.Kind() != reflect.Pointer || hv.Kind() != reflect.Func {
		return fmt.Sprintf("/%T/%p/%p", source, source, handler)
	}
	return "/" + sv.Type().String() +
		"/0x" + strconv.FormatUint(uint64(uintptr(sv.UnsafePointer())), 16) +
		"/0x" + strconv.FormatUint(uint64(uintptr(hv.UnsafePointer())), 16)
}
`,
		},
		{
			module: goApp, file: "pkg/app/action.go",
			why: "as above",
			old: "import (\n\t\"fmt\"\n\t\"sync\"\n",
			new: "import (\n\t\"fmt\"\n\t\"reflect\"\n\t\"strconv\"\n\t\"sync\"\n",
		},
		{
			module: goApp, file: "pkg/app/attribute.go",
			why: "every attribute of every render passes through attributes.Set, which then compared the value (not the name) with six names, each of them set as any other non-empty value is: the same rule, said once, leaves a function small enough that V8 no longer compiles it again beside Go's first run",
			old: "\tswitch v {\n\tcase \"cite\",\n\t\t\"data\",\n\t\t\"download\",\n\t\t\"href\",\n\t\t\"src\",\n\t\t\"value\":\n\t\ta[name] = v\n\n\tdefault:\n\t\tif v != \"\" {\n\t\t\ta[name] = v\n\t\t}\n\t}\n",
			new: `	// riskchart's build of app.wasm (server/cmd/wasmgoapp): go-app compared
	// v with "cite", "data", "download", "href", "src" and "value" here, and
	// set each as it sets any other value that is not empty.
	if v != "" {
		a[name] = v
	}
`,
		},
		{
			module: goApp, file: "pkg/app/node.go",
			why: "go-app tells every node of the page of a navigation (and of each resize), inside Go's first run for the first one: it made each element a context of its own (a method value on the heap) that only the element's children read, and each child sets its own first; the children are now told in a function of their own with the context as it came, which leaves NotifyComponentEvent small enough that V8 does not compile it again beside that run",
			old: "func (m nodeManager) NotifyComponentEvent(ctx Context, root UI, event any) {\n\tctx = m.context(ctx, root)\n\n\tswitch element := root.(type) {\n\tcase HTML:\n\t\tfor _, child := range element.body() {\n\t\t\tm.NotifyComponentEvent(ctx, child, event)\n\t\t}\n\n\tcase Composer:\n",
			new: "func (m nodeManager) NotifyComponentEvent(ctx Context, root UI, event any) {\n\tswitch element := root.(type) {\n\tcase HTML:\n\t\tm.notifyChildren(ctx, element, event)\n\n\tcase Composer:\n\t\tctx = m.context(ctx, root)\n",
		},
		{
			module: goApp, file: "pkg/app/node.go",
			why: "every element is one type in the copy (elements.go): go-app told elements apart by their type here and then, for the two it makes from any tag, by the tag; now every element is told apart by its tag, and by whether it closes itself",
			old: "\tcase *htmlElem, *htmlElemSelfClosing:\n\t\treturn v.(HTML).Tag() == new.(HTML).Tag()\n",
			new: "\tcase *htmlAny:\n\t\t// riskchart's build of app.wasm (server/cmd/wasmgoapp): every element\n\t\t// is an htmlAny, told apart by its tag and whether it closes itself.\n\t\treturn v.(HTML).Tag() == new.(HTML).Tag() && v.(HTML).SelfClosing() == new.(HTML).SelfClosing()\n",
		},
		{
			module: goApp, file: "pkg/app/engine.go",
			why: "every element is one type in the copy (elements.go), so that every element is an HTMLBody: the document's body is the child whose tag is body",
			old: "\t\tif child, isBody := child.(HTMLBody); isBody {\n",
			new: "\t\tif child, isBody := child.(HTMLBody); isBody && child.Tag() == \"body\" { // riskchart's build: every element is an HTMLBody (server/cmd/wasmgoapp)\n",
		},
		{
			module: goApp, file: "pkg/app/node.go",
			why: "go-app's mount makes each node with its own calls into JavaScript: Mount, which go-app calls for every tree it mounts, is now goapp/markup.go's, which mounts from markup; go-app's own becomes mountEach, which it still uses for a text or raw HTML, and, where IsServer, for every tree",
			old: "func (m nodeManager) Mount(ctx Context, depth uint, v UI) (UI, error) {\n",
			new: "func (m nodeManager) mountEach(ctx Context, depth uint, v UI) (UI, error) {\n",
		},
	}
}

// goappFiles are the files added to pkg/app of go-app's copy, goapp/ less
// its tests (TestGoAppsTestsAndOursPassOnItsCopy adds those itself): the
// mount from markup (markup.go) and the loop over an element's children
// that NotifyComponentEvent's edit calls (notify.go).
//
//go:embed goapp/*.go
var goappFiles embed.FS

// An addition is a file added to a module's copy, written without its first
// line, the build constraint that keeps it out of this module's builds. A
// release that comes with a file of that name fails the build by name.
type addition struct {
	module, file string
	src          []byte
}

func additions() []addition {
	entries, err := goappFiles.ReadDir("goapp")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	var out []addition
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := goappFiles.ReadFile("goapp/" + e.Name())
		if err != nil {
			panic(err) // as above
		}
		out = append(out, addition{module: goApp, file: "pkg/app/" + e.Name(), src: src})
	}
	return out
}

// withoutConstraint is the source of a file added to a copy (goapp/), less
// its first line, the build constraint that keeps it out of this module.
func withoutConstraint(src []byte) ([]byte, error) {
	constraint, rest, ok := bytes.Cut(src, []byte("\n"))
	if !ok || string(constraint) != "//go:build ignore" {
		return nil, errors.New("its source does not start with //go:build ignore")
	}
	return rest, nil
}

// applyEdits applies the edits and additions of module to its copy in dir.
func applyEdits(module, dir string) error {
	for _, a := range additions() {
		if a.module != module {
			continue
		}
		p := filepath.Join(dir, a.file)
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("adding %s to %s: the module has a file of that name: see server/cmd/wasmgoapp/edits.go", a.file, module)
		}
		src, err := withoutConstraint(a.src)
		if err != nil {
			return fmt.Errorf("adding %s to %s: %w", a.file, module, err)
		}
		if err := os.WriteFile(p, src, 0o644); err != nil {
			return fmt.Errorf("adding %s: %w", a.file, err)
		}
	}
	for _, e := range edits() {
		if e.module != module {
			continue
		}
		p := filepath.Join(dir, e.file)
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("editing %s: %w", e.file, err)
		}
		if n := bytes.Count(b, []byte(e.old)); n != 1 {
			return fmt.Errorf("editing %s of %s (%s): the text to replace occurs %d times, not once: see server/cmd/wasmgoapp/edits.go", e.file, module, e.why, n)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(e.old), []byte(e.new), 1), 0o644); err != nil {
			return fmt.Errorf("editing %s: %w", e.file, err)
		}
	}
	return nil
}
