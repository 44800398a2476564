package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// elementsFile is go-app's generated file of HTML elements, which
// oneElementType rewrites in the copy.
const elementsFile = "pkg/app/html_gen.go"

// oneElementType rewrites go-app's html_gen.go so that every HTML element is
// one Go type. go-app generates a type for each of its 110 elements, with
// each method written again for each (Class, ID, Body, and the ten of the
// HTML interface every element implements: Tag, setParent, setJSElement,
// …). app.wasm then held 716 such methods, and a cold start called 388 of
// them for the first time inside Go's first run, each compiled by V8 on that
// call (docs/startup.md, "One type for every element").
//
// In the rewritten file HTMLAny holds every element's methods, each
// element's interface (HTMLDiv, HTMLInput, …) and type (htmlDiv, …) is an
// alias of HTMLAny and htmlAny, and each method is written once. An element
// takes the same attributes and events as released: a method another
// element has, which the released interface lacks, is no longer a compile
// error in the copy, but the app is built against the released module too
// (the server renders every page with it). Where go-app's methods differ
// between elements (a textarea's Text sets its value), the method chooses
// by the element's constructor, kept in htmlAny.variant. The file fails to
// rewrite, naming what it met, if a release changes its shape or has fewer
// than minElements elements.
func oneElementType(src []byte, minElements int) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, elementsFile, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", elementsFile, err)
	}
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	// shared replaces the names of one element's type (htmlDiv) and
	// interface (HTMLDiv) with the names every element shares.
	names := map[string][2]*regexp.Regexp{}
	shared := func(s, typ string) string {
		re, ok := names[typ]
		if !ok {
			re = [2]*regexp.Regexp{regexp.MustCompile(`\b` + typ + `\b`), regexp.MustCompile(`\b` + elementInterface(typ) + `\b`)}
			names[typ] = re
		}
		return re[1].ReplaceAllString(re[0].ReplaceAllString(s, "htmlAny"), "HTMLAny")
	}

	var (
		ifaces   []string            // HTMLDiv, …, in the file's order
		structs  []string            // htmlDiv, …
		ifMeths  []string            // the union's methods, first seen first
		ifMethOf = map[string]bool{} // name: in ifMeths
		ctors    []*ast.FuncDecl
		methods  = map[string][]*ast.FuncDecl{} // by method name
		order    []string                       // method names, first seen first
		imports  string
	)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				imports = text(d.Pos(), d.End())
				continue
			}
			if d.Tok != token.TYPE || len(d.Specs) != 1 {
				return nil, fmt.Errorf("%s: a %s declaration at %s, where only types and functions were", elementsFile, d.Tok, fset.Position(d.Pos()))
			}
			ts := d.Specs[0].(*ast.TypeSpec)
			switch t := ts.Type.(type) {
			case *ast.InterfaceType:
				ifaces = append(ifaces, ts.Name.Name)
				typ := elementType(ts.Name.Name)
				for _, m := range t.Methods.List {
					if len(m.Names) == 0 {
						if id, ok := m.Type.(*ast.Ident); !ok || id.Name != "HTML" {
							return nil, fmt.Errorf("%s: %s embeds %s, not HTML", elementsFile, ts.Name.Name, text(m.Pos(), m.End()))
						}
						continue
					}
					name := m.Names[0].Name
					if ifMethOf[name] {
						continue
					}
					ifMethOf[name] = true
					doc := ""
					if m.Doc != nil {
						doc = text(m.Doc.Pos(), m.Doc.End()) + "\n"
					}
					ifMeths = append(ifMeths, doc+shared(text(m.Pos(), m.End()), typ))
				}
			case *ast.StructType:
				if len(t.Fields.List) != 1 || len(t.Fields.List[0].Names) != 0 || text(t.Fields.List[0].Pos(), t.Fields.List[0].End()) != "htmlElement" {
					return nil, fmt.Errorf("%s: %s is not a struct of htmlElement alone", elementsFile, ts.Name.Name)
				}
				structs = append(structs, ts.Name.Name)
			default:
				return nil, fmt.Errorf("%s: type %s is neither an interface nor a struct", elementsFile, ts.Name.Name)
			}
		case *ast.FuncDecl:
			if d.Recv == nil {
				ctors = append(ctors, d)
				continue
			}
			name := d.Name.Name
			if methods[name] == nil {
				order = append(order, name)
			}
			methods[name] = append(methods[name], d)
		}
	}
	if len(ifaces) < minElements || len(ifaces) != len(structs) || len(ctors) != len(ifaces) {
		return nil, fmt.Errorf("%s: %d interfaces, %d types and %d constructors, where one of each per element was", elementsFile, len(ifaces), len(structs), len(ctors))
	}

	// Each method once; where elements differ, the one most have, and the
	// others by the element's variant.
	variants := map[string]bool{} // element types some method tells apart
	var meths []string
	for _, name := range order {
		type body struct {
			text  string
			types []string
		}
		var bodies []*body
		var header string
		for _, d := range methods[name] {
			recv := d.Recv.List[0].Type
			if _, ok := recv.(*ast.StarExpr); !ok {
				return nil, fmt.Errorf("%s: method %s has no pointer receiver", elementsFile, name)
			}
			typ := receiverType(recv) // split.go's
			if typ == "" {
				return nil, fmt.Errorf("%s: method %s has a receiver of a type that is not named", elementsFile, name)
			}
			h := shared(text(d.Pos(), d.Body.Lbrace), typ)
			if header == "" {
				header = h
			} else if h != header {
				return nil, fmt.Errorf("%s: %s of %s is %q, of another element %q", elementsFile, name, typ, h, header)
			}
			b := shared(text(d.Body.Lbrace+1, d.Body.Rbrace), typ)
			i := slices.IndexFunc(bodies, func(x *body) bool { return x.text == b })
			if i < 0 {
				bodies = append(bodies, &body{text: b})
				i = len(bodies) - 1
			}
			bodies[i].types = append(bodies[i].types, typ)
		}
		slices.SortStableFunc(bodies, func(a, b *body) int { return len(b.types) - len(a.types) })
		if len(bodies) == 1 {
			meths = append(meths, header+"{"+bodies[0].text+"}")
			continue
		}
		var sw strings.Builder
		sw.WriteString(header + "{\n\tswitch e.variant {\n")
		for _, b := range bodies[1:] {
			var cases []string
			for _, t := range b.types {
				variants[t] = true
				cases = append(cases, fmt.Sprintf("%q", t))
			}
			fmt.Fprintf(&sw, "\tcase %s:%s", strings.Join(cases, ", "), strings.TrimRight(b.text, "\n"))
		}
		fmt.Fprintf(&sw, "\n\tdefault:%s\n\t}\n}", strings.TrimRight(bodies[0].text, "\n"))
		meths = append(meths, sw.String())
	}

	var out bytes.Buffer
	out.WriteString("// Code generated by riskchart's server/cmd/wasmgoapp (elements.go) from go-app's html_gen.go; DO NOT EDIT.\n\npackage app\n\n")
	out.WriteString(imports + "\n\n")
	out.WriteString("// HTMLAny is the interface of every HTML element in riskchart's build of\n// app.wasm: the methods of all of go-app's element interfaces, each of which\n// is an alias of it.\ntype HTMLAny interface {\n\tHTML\n\n")
	out.WriteString(strings.Join(ifMeths, "\n\n"))
	out.WriteString("\n}\n\n")
	out.WriteString("// htmlAny is the type of every HTML element in riskchart's build of\n// app.wasm. variant names the element's type in go-app's release where one\n// of its methods differs from most elements'.\ntype htmlAny struct {\n\thtmlElement\n\tvariant string\n}\n\n")
	out.WriteString("type (\n")
	for _, n := range ifaces {
		fmt.Fprintf(&out, "\t%s = HTMLAny\n", n)
	}
	out.WriteString(")\n\ntype (\n")
	for _, n := range structs {
		fmt.Fprintf(&out, "\t%s = htmlAny\n", n)
	}
	out.WriteString(")\n\n")
	for _, d := range ctors {
		res := d.Type.Results
		if res == nil || len(res.List) != 1 {
			return nil, fmt.Errorf("%s: constructor %s returns %d results", elementsFile, d.Name.Name, res.NumFields())
		}
		id, ok := res.List[0].Type.(*ast.Ident)
		if !ok {
			return nil, fmt.Errorf("%s: constructor %s returns no element interface", elementsFile, d.Name.Name)
		}
		typ := elementType(id.Name)
		s := text(d.Pos(), d.End())
		if d.Doc != nil {
			s = text(d.Doc.Pos(), d.End())
		}
		lit := "&" + typ + "{\n"
		if strings.Count(s, lit) != 1 {
			return nil, fmt.Errorf("%s: constructor %s does not make one %s", elementsFile, d.Name.Name, typ)
		}
		s = shared(s, typ)
		if variants[typ] {
			s = strings.Replace(s, "&htmlAny{\n", "&htmlAny{\n"+fmt.Sprintf("\t\tvariant: %q,\n", typ), 1)
		}
		out.WriteString(s + "\n\n")
	}
	out.WriteString(strings.Join(meths, "\n\n"))
	out.WriteString("\n")
	formatted, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the rewritten %s: %w", elementsFile, err)
	}
	return formatted, nil
}

// elementType is the name of the type go-app gives the element whose
// interface is iface: htmlDiv for HTMLDiv. elementInterface is its inverse.
func elementType(iface string) string {
	return "html" + strings.TrimPrefix(iface, "HTML")
}

// elementInterface is the name of the interface of the element whose type
// is typ: HTMLDiv for htmlDiv.
func elementInterface(typ string) string {
	return "HTML" + strings.TrimPrefix(typ, "html")
}

// rewriteElements rewrites html_gen.go in go-app's copy at dir
// (oneElementType).
func rewriteElements(dir string) error {
	p := filepath.Join(dir, elementsFile)
	src, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("rewriting go-app's elements: %w", err)
	}
	out, err := oneElementType(src, 100)
	if err != nil {
		return fmt.Errorf("rewriting go-app's elements: %w", err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		return fmt.Errorf("rewriting go-app's elements: %w", err)
	}
	return nil
}
