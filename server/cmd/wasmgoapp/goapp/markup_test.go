//go:build ignore

// server/cmd/wasmgoapp's test adds this file to pkg/app of a copy of go-app
// and runs it there, with go-app's own tests (TestGoAppsTestsAndOursPassOnItsCopy).

package app

import (
	"bytes"
	"fmt"
	"html"
	"reflect"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/errors"
)

type markupList struct {
	Compo
	items []string
}

func (l *markupList) Render() UI {
	return Ul().Class("list").Body(Range(l.items).Slice(func(i int) UI {
		return Li().Text(l.items[i])
	}))
}

func TestMarkupPrepare(t *testing.T) {
	ctx := Context{
		resolveURL: func(s string) string { return "/prefix" + s },
		dispatch:   func(func()) {},
	}
	for _, c := range []struct {
		name         string
		tree         UI
		html, shape  string
		exact        bool
		props, nodes int
	}{
		{"texts in a row, and an empty one", Div().ID("a").Body(Text("x"), Text("y"), Text("")),
			`<div id="a">x<!---->y<!----><!--e--></div>`, "0:div,1:#,1:#,1:#,", true, 0, 4},
		{"escaped", Span().Title(`a"<&'`).Body(Text("<b>&")),
			`<span title="a&#34;&lt;&amp;&#39;">&lt;b&gt;&amp;</span>`, "0:span,1:#,", true, 0, 2},
		{"a void element, its properties set after the parse", Input().Value("v").Checked(true),
			`<input>`, "0:input,", true, 2, 1},
		{"a URL resolved as go-app resolves it", A().Href("/x").Text("go"),
			`<a href="/prefix/x">go</a>`, "0:a,1:#,", true, 0, 2},
		{"a component in its place", Div().Body(Text("t"), &markupList{items: []string{"1", "2"}}, P()),
			`<div>t<ul class="list"><li>1</li><li>2</li></ul><p></p></div>`, "0:div,1:#,1:ul,2:li,3:#,2:li,3:#,1:p,", true, 0, 8},
		{"a text after an element needs no separator", P().Body(B().Text("b"), Text("c")),
			`<p><b>b</b>c</p>`, "0:p,1:b,2:#,1:#,", true, 0, 4},
		{"raw HTML", Div().Body(Raw("<span>r</span>")), "<div></div>", "0:div,", false, 0, 1},
		{"a namespace", Elem("svg").XMLNS("http://www.w3.org/2000/svg"), "<svg></svg>", "0:svg,", false, 0, 1},
		{"text the parser trims", Pre().Text("\ncode"), "<pre>\ncode</pre>", "0:pre,1:#,", false, 0, 2},
		{"text the parser rewrites", Div().Text("a\r\nb"), "<div>a\r\nb</div>", "0:div,1:#,", false, 0, 2},
		{"an attribute name markup does not keep", Div().Attr("Data-X", "1"), `<div Data-X="1"></div>`, "0:div,", false, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodes := 0
			v, err := nodeManager{}.prepare(ctx, 3, c.tree, &nodes)
			if err != nil {
				t.Fatal(err)
			}
			b := markup{exact: true}
			b.write(ctx, v)
			if got := string(b.html); got != c.html {
				t.Errorf("markup %q, want %q", got, c.html)
			}
			if got := string(b.shape); got != c.shape {
				t.Errorf("shape %q, want %q", got, c.shape)
			}
			if b.exact != c.exact || len(b.props) != c.props || len(b.nodes) != c.nodes {
				t.Errorf("exact %v, %d properties, %d nodes; want %v, %d, %d", b.exact, len(b.props), len(b.nodes), c.exact, c.props, c.nodes)
			}
			if b.depth != 0 || b.nodes[0] != rootNode(v) {
				t.Errorf("depth left at %d; first node %T", b.depth, b.nodes[0])
			}
			if h, ok := rootNode(v).(HTML); ok && h.depth() != 3 && !strings.Contains(c.name, "component") {
				t.Errorf("the root's depth is %d, want 3", h.depth())
			}
			for _, n := range b.nodes[1:] {
				if n.parent() == nil {
					t.Errorf("%T has no parent", n)
				}
			}
		})
	}
}

// The markup escapes as html.EscapeString does, byte for byte.
func TestMarkupEscapesAsHTMLEscapeString(t *testing.T) {
	for _, s := range []string{
		"", "plain", "&", "'", "<", ">", `"`, `&'<>"`, `"><&'`, "a&b<c>d\"e'f",
		"&&&", "x<", ">x", "ünï&cödé<", "\x00&\r", strings.Repeat("ab&<", 50),
		strings.Repeat("<", 1000) + "&", "'" + strings.Repeat("x", 1000) + `"`,
	} {
		var b markup
		b.escape(s)
		if got, want := string(b.html), html.EscapeString(s); got != want {
			t.Errorf("escape(%q) = %q, want %q", s, got, want)
		}
	}
}

// rootNode is the first text or element of v.
func rootNode(v UI) UI {
	if c, ok := v.(Composer); ok {
		return rootNode(c.root())
	}
	return v
}

// A tree once prepared is mounted: preparing it again fails, as go-app's
// mount does.
func TestMarkupPrepareTwice(t *testing.T) {
	ctx := Context{resolveURL: func(s string) string { return s }, dispatch: func(func()) {}}
	tree := &markupList{items: []string{"a"}}
	if _, err := (nodeManager{}).prepare(ctx, 0, tree, new(int)); err != nil {
		t.Fatal(err)
	}
	if _, err := (nodeManager{}).prepare(ctx, 0, tree, new(int)); err == nil {
		t.Error("a component prepared twice: no error")
	}
}

// markupWrap renders the tree it holds.
type markupWrap struct {
	Compo
	inner UI
}

func (w *markupWrap) Render() UI { return w.inner }

// Preparing fails as go-app's mount does: its messages and tags, each cause
// wrapped, from a node however deep. prepare builds its errors in functions
// of its own, to keep itself small.
func TestMarkupPrepareFailsAsGoAppsMount(t *testing.T) {
	ctx := Context{resolveURL: func(s string) string { return s }, dispatch: func(func()) {}}
	mounted := func() UI {
		l := &markupList{items: []string{"a"}}
		if _, err := (nodeManager{}).prepare(ctx, 0, l, new(int)); err != nil {
			t.Fatal(err)
		}
		return l
	}
	again := errors.Error{Message: "component is already mounted", Tags: map[string]any{"type": reflect.TypeOf(&markupList{})}}
	div := Div()
	for _, c := range []struct {
		name string
		tree UI
		want []errors.Error // the outermost first
	}{
		{"a component prepared twice", mounted(), []errors.Error{again}},
		{"a child", div.Body(P(), mounted()), []errors.Error{
			{Message: "mounting child failed", Tags: map[string]any{"type": reflect.TypeOf(div), "tag": "div", "depth": uint(0), "index": 1}},
			again,
		}},
		{"a component's root", &markupWrap{inner: mounted()}, []errors.Error{
			{Message: "mounting component root failed", Tags: map[string]any{"type": reflect.TypeOf(&markupWrap{}), "depth": uint(0)}},
			again,
		}},
		{"a child of a component's root", &markupWrap{inner: Section().Body(mounted())}, []errors.Error{
			{Message: "mounting component root failed", Tags: map[string]any{"type": reflect.TypeOf(&markupWrap{}), "depth": uint(0)}},
			{Message: "mounting child failed", Tags: map[string]any{"type": reflect.TypeOf(Section()), "tag": "section", "depth": uint(1), "index": 0}},
			again,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := (nodeManager{}).prepare(ctx, 0, c.tree, new(int))
			if v != nil {
				t.Errorf("prepare returned %T with its error", v)
			}
			for i, want := range c.want {
				got, ok := err.(errors.Error)
				if !ok {
					t.Fatalf("error %d: %T %v, want go-app's %q", i, err, err, want.Message)
				}
				if got.Message != want.Message || !reflect.DeepEqual(got.Tags, want.Tags) {
					t.Errorf("error %d: %q %v, want %q %v", i, got.Message, got.Tags, want.Message, want.Tags)
				}
				err = got.WrappedErr
			}
			if err != nil {
				t.Errorf("a further error wrapped: %v", err)
			}
		})
	}
}

// Every element is one type in the copy (server/cmd/wasmgoapp/elements.go),
// and still does what go-app's own type for it did: a textarea's text is its
// value, any other element's a child; elements of different tags, or of one
// tag that closes itself and one that does not, are not updated into each
// other; and the document's body is found among its children.
func TestEveryElementIsOneType(t *testing.T) {
	if a, b := reflect.TypeOf(Div()), reflect.TypeOf(Textarea()); a != b {
		t.Fatalf("Div is a %v and Textarea a %v: the copy's html_gen.go is go-app's as released", a, b)
	}
	for _, c := range []struct {
		name      string
		elem      HTML
		attrValue string
		body      string
	}{
		{"a textarea's Text", Textarea().Text("typed"), "typed", ""},
		{"a textarea's Textf", Textarea().Textf("%d lots", 3), "3 lots", ""},
		{"a div's Text", Div().Text("typed"), "", "typed"},
		{"a paragraph's Textf", P().Textf("%d lots", 3), "", "3 lots"},
		{"Elem's Text", Elem("textarea").Text("typed"), "", "typed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.elem.attrs()["value"]; got != c.attrValue {
				t.Errorf("value attribute %q, want %q", got, c.attrValue)
			}
			body := ""
			for _, child := range c.elem.body() {
				if txt, ok := child.(*text); ok {
					body += txt.value
				}
			}
			if body != c.body {
				t.Errorf("text child %q, want %q", body, c.body)
			}
		})
	}
	m := nodeManager{}
	for _, c := range []struct {
		name string
		v, w UI
		want bool
	}{
		{"two divs", Div(), Div().Class("x"), true},
		{"a div and a span", Div(), Span(), false},
		{"a div and Elem(div)", Div(), Elem("div"), true},
		{"a br and ElemSelfClosing(br)", Br(), ElemSelfClosing("br"), true},
		{"Elem(br) and ElemSelfClosing(br)", Elem("br"), ElemSelfClosing("br"), false},
		{"an input and a textarea", Input(), Textarea(), false},
	} {
		if got := m.CanUpdate(c.v, c.w); got != c.want {
			t.Errorf("CanUpdate of %s: %v, want %v", c.name, got, c.want)
		}
	}
	e := newTestEngine()
	if err := e.Load(&markupList{items: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := e.Encode(&b, Html().privateBody(Head().Body(Title().Text("t")), Body().Body(P().Text("after")))); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if body, root := strings.Index(s, "<body>"), strings.Index(s, `<ul class="list">`); body < 0 || root < body || !strings.Contains(s, "<p>after</p>") {
		t.Errorf("Encode put the loaded component outside the body:\n%s", s)
	}
}

// The key of an action handler is the one fmt.Sprintf("/%T/%p/%p") wrote,
// whether the copy writes it itself (a component's pointer and a func) or
// leaves it to fmt (anything else), and two handlers of one component differ.
func TestActionHandlerKeyIsFmtsKey(t *testing.T) {
	l := &markupList{}
	var none ActionHandler
	cases := []struct {
		name    string
		source  UI
		handler ActionHandler
	}{
		{"a component and a func", l, func(Context, Action) {}},
		{"a component and a method value", l, l.handleForKey},
		{"a nil component pointer", (*markupList)(nil), func(Context, Action) {}},
		{"a component and a nil handler", l, none},
		{"an element", Div(), func(Context, Action) {}},
		{"no source", nil, func(Context, Action) {}},
	}
	for _, c := range cases {
		want := fmt.Sprintf("/%T/%p/%p", c.source, c.source, c.handler)
		if got := actionHandlerKey(c.source, c.handler); got != want {
			t.Errorf("%s: key %q, fmt wrote %q", c.name, got, want)
		}
	}
	if a, b := actionHandlerKey(l, cases[0].handler), actionHandlerKey(l, l.handleForKey); a == b {
		t.Errorf("two handlers of one component share the key %q", a)
	}
}

func (l *markupList) handleForKey(Context, Action) {}
