package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// serverOnly is the build constraint of the declarations split off.
const serverOnly = "//go:build !wasm"

// A goFile is one file of the package being split.
type goFile struct {
	name   string
	src    []byte
	f      *ast.File
	cutAs  string     // the file's name for the cut import; "" if it has none
	decls  []ast.Decl // every top-level declaration but the imports
	moved  []bool     // which of decls the server keeps to itself
	whole  bool       // the file carries a build constraint: never split
	offset func(token.Pos) int
}

// split divides the files of one package into what a js/wasm build may keep
// and what names the import path cut: directly, or through what else moves
// (a function calling one that moves, a method whose receiver type moves, a
// method calling one that moved off a type that stays). It returns, by file
// name, each changed file's new text, and beside it NAME_nowasm.go holding
// what moved under serverOnly. A file that already carries a build
// constraint has chosen its builds and is left whole; one that imports cut
// under a blank or dot name is an error.
func split(files map[string][]byte, cut string) (map[string][]byte, error) {
	var fs []*goFile
	for _, name := range slices.Sorted(maps.Keys(files)) { // the same split every time
		gf, err := parseFile(name, files[name], cut)
		if err != nil {
			return nil, err
		}
		fs = append(fs, gf)
	}
	names := map[string]bool{}   // package-level names that moved
	methods := map[string]bool{} // methods that moved off a type that stays
	for changed := true; changed; {
		changed = false
		for _, gf := range fs {
			for i, d := range gf.decls {
				if gf.moved[i] || gf.whole || !refers(d, gf.cutAs, names, methods) {
					continue
				}
				gf.moved[i], changed = true, true
				for _, n := range declared(d) {
					names[n] = true
				}
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && !names[receiverType(fd.Recv.List[0].Type)] {
					methods[fd.Name.Name] = true
				}
			}
		}
	}
	out := map[string][]byte{}
	for _, gf := range fs {
		keep, server, err := gf.emit()
		if err != nil {
			return nil, err
		}
		if server != nil {
			serverName := strings.TrimSuffix(gf.name, ".go") + "_nowasm.go"
			if _, taken := files[serverName]; taken {
				return nil, fmt.Errorf("splitting %s: the package already has a %s", gf.name, serverName)
			}
			out[gf.name], out[serverName] = keep, server
		}
	}
	return out, nil
}

func parseFile(name string, src []byte, cut string) (*goFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	gf := &goFile{name: name, src: src, f: f, offset: func(p token.Pos) int { return fset.Position(p).Offset }}
	above := src[:gf.offset(f.Package)]
	gf.whole = bytes.Contains(above, []byte("//go:build")) || bytes.Contains(above, []byte("// +build"))
	for _, spec := range f.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p == cut {
			gf.cutAs = importName(spec)
			if gf.cutAs == "_" || gf.cutAs == "." {
				return nil, fmt.Errorf("%s imports %s as %q", name, cut, gf.cutAs)
			}
		}
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		gf.decls = append(gf.decls, d)
	}
	gf.moved = make([]bool, len(gf.decls))
	return gf, nil
}

// emit writes the file without what moved, and what moved; server is nil
// when nothing did.
func (gf *goFile) emit() (keep, server []byte, err error) {
	src, offset := gf.src, gf.offset
	// Each declaration takes the text from the end of the one before it, so
	// its doc comment and any comment floating above it go with it.
	start := offset(gf.f.Name.End())
	for _, d := range gf.f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			start = offset(g.End())
		}
	}
	var kept, gone []ast.Decl
	var keptText, goneText []byte
	for i, d := range gf.decls {
		text := src[start:offset(d.End())]
		start = offset(d.End())
		if gf.moved[i] {
			gone, goneText = append(gone, d), append(goneText, text...)
			continue
		}
		kept, keptText = append(kept, d), append(keptText, text...)
	}
	if len(gone) == 0 {
		return src, nil, nil
	}
	keptText = append(keptText, src[start:]...) // comments after the last declaration

	header := func(constraint string, ds []ast.Decl) []byte {
		var b bytes.Buffer
		if constraint != "" {
			b.WriteString(constraint + "\n\n")
		}
		b.Write(src[:offset(gf.f.Package)]) // comments above the package clause
		fmt.Fprintf(&b, "package %s\n\nimport (\n", gf.f.Name.Name)
		for _, spec := range gf.f.Imports {
			if uses(ds, importName(spec)) {
				if spec.Name != nil {
					b.WriteString(spec.Name.Name + " ")
				}
				b.WriteString(spec.Path.Value + "\n")
			}
		}
		b.WriteString(")\n")
		return b.Bytes()
	}
	if keep, err = format.Source(append(header("", kept), keptText...)); err != nil {
		return nil, nil, fmt.Errorf("formatting what %s keeps: %w", gf.name, err)
	}
	if server, err = format.Source(append(header(serverOnly, gone), goneText...)); err != nil {
		return nil, nil, fmt.Errorf("formatting what %s splits off: %w", gf.name, err)
	}
	return keep, server, nil
}

// importName is the name a file uses for an import: its own name for it, or
// the last element of its path (a major version suffix skipped), which is
// what the packages this program reads declare.
func importName(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	p, _ := strconv.Unquote(spec.Path.Value)
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	return base
}

// refers reports whether d refers to the import named pkg (never, for ""),
// to a package-level name in names, or to a method name in methods, or is a
// method of a type in names.
func refers(d ast.Decl, pkg string, names, methods map[string]bool) bool {
	if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && names[receiverType(fd.Recv.List[0].Type)] {
		return true
	}
	found := false
	inspectRefs(d, func(id *ast.Ident, kind refKind) {
		switch kind {
		case qualifier:
			found = found || pkg != "" && id.Name == pkg || names[id.Name]
		case plain:
			found = found || names[id.Name]
		case selected:
			found = found || methods[id.Name]
		}
	})
	return found
}

// uses reports whether any of ds refers to the import named pkg.
func uses(ds []ast.Decl, pkg string) bool {
	for _, d := range ds {
		found := false
		inspectRefs(d, func(id *ast.Ident, kind refKind) { found = found || kind == qualifier && id.Name == pkg })
		if found {
			return true
		}
	}
	return false
}

// refKind says where an identifier stands.
type refKind int

const (
	plain     refKind = iota // on its own: a package-level name, or a local one
	qualifier                // X in X.Sel: an import, a package-level name, a local one
	selected                 // Sel in X.Sel: a field or a method
)

// inspectRefs calls ref for each identifier in n that may name an import, a
// package-level declaration or a method. Struct field names and the keys of
// composite literals name fields and are skipped. Without type checking a
// local name that shadows a declaration counts, and a method name counts
// whatever its receiver, so a split may move more than it must; what it
// moves too much or too little the js/wasm build then refuses to compile.
func inspectRefs(n ast.Node, ref func(id *ast.Ident, kind refKind)) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				ref(id, qualifier)
			} else {
				inspectRefs(n.X, ref)
			}
			ref(n.Sel, selected)
			return false
		case *ast.Field:
			if n.Type != nil {
				inspectRefs(n.Type, ref)
			}
			return false
		case *ast.KeyValueExpr:
			if _, ok := n.Key.(*ast.Ident); !ok {
				inspectRefs(n.Key, ref)
			}
			inspectRefs(n.Value, ref)
			return false
		case *ast.Ident:
			ref(n, plain)
		}
		return true
	})
}

// declared lists the package-level names d declares; a method declares none.
func declared(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
	case *ast.GenDecl:
		var out []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					out = append(out, n.Name)
				}
			}
		}
		return out
	}
	return nil
}

// receiverType is the name of a method's receiver type: T in T, *T, T[P].
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}
