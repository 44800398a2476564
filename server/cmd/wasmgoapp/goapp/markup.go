//go:build ignore

// riskchart's build of app.wasm: server/cmd/wasmgoapp adds this file to
// pkg/app of its copy of go-app, without its first line, the build
// constraint that keeps it out of this module's builds.

package app

// A tree is mounted from markup. go-app's own mount makes each node with its
// own calls into JavaScript (the document, the element, each attribute, the
// append): over a thousand for the chart page. Here the tree is first
// prepared in Go alone, every component's OnInit and Render run as go-app
// runs them, and written as markup with the shape it must parse into; the
// page parses the markup once (riskchartParseMarkup, web/loader-patch.js)
// and hands back the nodes in document order. When the parse does not give
// that shape (markup the parser rebuilds, such as a block in a paragraph),
// or the tree holds what markup cannot say exactly (raw HTML, a namespace,
// text the parser rewrites), the nodes are made one by one with go-app's
// calls, as before. Attributes that go-app sets as properties are set as
// properties after the parse. See docs/startup.md, "Mounting from markup".

import (
	"html"
	"reflect"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/errors"
)

// markupMinNodes is the size of tree below which the nodes are made one by
// one: the parse's fixed cost is not worth it for a few.
const markupMinNodes = 24

// markupParser is the page's function that parses a tree's markup
// (web/loader-patch.js).
const markupParser = "riskchartParseMarkup"

// markup is a tree being prepared for its mount.
type markup struct {
	html    []byte
	shape   []byte
	nodes   []UI // the texts and elements, in document order
	props   []markupProp
	exact   bool // the markup parses back into exactly this tree
	depth   int  // of the next node, in the markup
	textEnd bool // the last node written is a text: a next text needs a separator
}

// markupProp is an attribute go-app sets as a property.
type markupProp struct {
	elem        HTML
	name, value string
}

// Mount mounts v: from markup when it can, node by node otherwise.
func (m nodeManager) Mount(ctx Context, depth uint, v UI) (UI, error) {
	if IsServer {
		return m.mountEach(ctx, depth, v)
	}
	nodes := 0
	v, err := m.prepare(ctx, depth, v, &nodes)
	if err != nil {
		return nil, err
	}
	if nodes >= markupMinNodes {
		b := markup{exact: true}
		b.write(ctx, v)
		if b.exact && m.adopt(ctx, &b) {
			return v, nil
		}
	}
	return v, m.build(ctx, v)
}

// prepare runs what go-app's mount runs in Go, in the same order, and counts
// the texts and elements; it makes no node. It runs for every node of every
// tree mounted, so its errors are built in functions of their own
// (mountFailed and the rest): V8 charges a WebAssembly function's tier-up
// budget by its size, and with them inline this was a 16 kB function that
// V8's optimising compiler compiled twice over a cold start and the next
// visit (docs/startup.md, "Mounting from markup").
func (m nodeManager) prepare(ctx Context, depth uint, v UI, nodes *int) (UI, error) {
	ctx = m.context(ctx, v)
	switch v := v.(type) {
	case *text:
		if v.Mounted() {
			return nil, alreadyMounted(v)
		}
		*nodes++
		return v, nil

	case HTML:
		if v.Mounted() {
			return nil, alreadyMounted(v)
		}
		v = v.setDepth(depth).(HTML)
		*nodes++
		if err := m.prepareChildren(ctx, depth, v, nodes); err != nil {
			return nil, err
		}
		return v, nil

	case Composer:
		if v.Mounted() {
			return nil, alreadyMounted(v)
		}
		return m.prepareComponent(ctx, depth, v, nodes)

	case *raw:
		if v.Mounted() {
			return nil, alreadyMounted(v)
		}
		return v, nil

	default:
		return nil, unsupportedElement(v, depth)
	}
}

// prepareChildren prepares the children of the element v, at depth+1.
func (m nodeManager) prepareChildren(ctx Context, depth uint, v HTML, nodes *int) error {
	children := v.body()
	for i, child := range children {
		child, err := m.prepare(ctx, depth+1, child, nodes)
		if err != nil {
			return mountFailed(v, depth, i, err)
		}
		children[i] = child.setParent(v)
	}
	return nil
}

// prepareComponent runs the component v's OnInit, dispatches its OnMount
// and prepares what it renders, at depth+1.
func (m nodeManager) prepareComponent(ctx Context, depth uint, v Composer, nodes *int) (UI, error) {
	v = v.setRef(v)
	v = v.setDepth(depth)
	if initializer, ok := v.(Initializer); ok {
		initializer.OnInit()
	}
	if mounter, ok := v.(Mounter); ok {
		ctx.Dispatch(mounter.OnMount)
	}
	root, err := m.renderComponent(v)
	if err != nil {
		return nil, componentFailed("rendering component failed", v, err)
	}
	if root, err = m.prepare(ctx, depth+1, root, nodes); err != nil {
		return nil, componentFailed("mounting component root failed", v, err)
	}
	return v.setRoot(root.setParent(v)), nil
}

// alreadyMounted is go-app's error for a node mounted a second time.
//
//go:noinline
func alreadyMounted(v UI) error {
	switch v := v.(type) {
	case *text:
		return errors.New("text is already mounted").
			WithTag("preview-value", previewText(v.value))
	case HTML:
		return errors.New("html element is already mounted").
			WithTag("type", reflect.TypeOf(v)).
			WithTag("tag", v.Tag())
	case *raw:
		return errors.New("raw html is already mounted").
			WithTag("raw-preview", previewText(v.value))
	default: // a component
		return errors.New("component is already mounted").
			WithTag("type", reflect.TypeOf(v))
	}
}

// unsupportedElement is go-app's error for a node of a kind it does not know.
//
//go:noinline
func unsupportedElement(v UI, depth uint) error {
	return errors.New("unsupported element").
		WithTag("type", reflect.TypeOf(v)).
		WithTag("depth", depth)
}

// mountFailed is go-app's error for the child i of v that failed.
//
//go:noinline
func mountFailed(v HTML, depth uint, i int, err error) error {
	return errors.New("mounting child failed").
		WithTag("type", reflect.TypeOf(v)).
		WithTag("tag", v.Tag()).
		WithTag("depth", depth).
		WithTag("index", i).
		Wrap(err)
}

// componentFailed is go-app's error for the component v that failed.
//
//go:noinline
func componentFailed(msg string, v Composer, err error) error {
	return errors.New(msg).
		WithTag("type", reflect.TypeOf(v)).
		WithTag("depth", v.depth()).
		Wrap(err)
}

// write writes the prepared tree v as markup, with its nodes and the
// attributes to set as properties.
func (b *markup) write(ctx Context, v UI) {
	switch v := v.(type) {
	case *text:
		b.text(v)

	case HTML:
		b.open(ctx, v)
		for _, child := range v.body() {
			b.write(ctx, child)
		}
		b.close(v)

	case Composer:
		b.write(ctx, v.root())

	default: // raw HTML
		b.exact = false
	}
}

// The markup is written by small functions, each byte looked for with
// strings.IndexByte, which Go's WebAssembly port writes in assembly: they run
// for every node and attribute of the first mount, inside Go's first run. V8
// charges a function's tier-up budget by its size at each jump between Go's
// blocks, and a loop over every byte, or a large function run for every
// attribute, had V8's optimising compiler compile them beside that run, on
// the cores it needs (docs/startup.md, "What V8 compiles beside Go's
// first run").

func (b *markup) text(v *text) {
	if markupRewritten(v.value) {
		b.exact = false
	}
	if b.textEnd {
		b.html = append(b.html, "<!---->"...) // two texts in a row parse as one
	}
	if v.value == "" {
		b.html = append(b.html, "<!--e-->"...) // an empty text has no markup
	} else {
		b.escape(v.value)
	}
	b.shapeOf("#")
	b.nodes = append(b.nodes, v)
	b.textEnd = true
}

func (b *markup) open(ctx Context, v HTML) {
	tag := v.Tag()
	if v.XMLNamespace() != "" || !markupTag(tag) {
		b.exact = false
	}
	b.shapeOf(tag)
	b.nodes = append(b.nodes, v)
	b.html = append(b.html, '<')
	b.html = append(b.html, tag...)
	if attrs := v.attrs(); len(attrs) > 0 {
		b.attrs(ctx, v, attrs)
	}
	b.html = append(b.html, '>')
	b.depth++
	b.textEnd = false
}

// attrs writes the attributes of v: a loop of its own, run for every element.
//
//go:noinline
func (b *markup) attrs(ctx Context, v HTML, attrs attributes) {
	for name, value := range attrs {
		b.attr(ctx, v, name, value)
	}
}

// attr writes the attribute name of v, or keeps it to be set as a property.
// A function of its own, as prepare's errors are: with it inline, open was
// 10.6 kB, and V8 compiled it again with its optimising compiler in a cold
// start.
func (b *markup) attr(ctx Context, v HTML, name, value string) {
	value = resolveAttributeURLValue(name, value, ctx.ResolveStaticResource)
	if markupProperty(name) {
		b.props = append(b.props, markupProp{elem: v, name: name, value: value})
		return
	}
	if !markupName(name) || markupRewritten(value) {
		b.exact = false
	}
	b.html = append(b.html, ' ')
	b.html = append(b.html, name...)
	b.html = append(b.html, '=', '"')
	b.escape(value)
	b.html = append(b.html, '"')
}

// escape writes s escaped as html.EscapeString escapes it. Few values have
// a byte to escape (none on the app's pages as the server renders them):
// those bytes are looked for with strings.IndexByte, and only a value that
// has one goes through html.EscapeString, whose loop over every byte would
// otherwise run for every text and attribute of the page.
//
//go:noinline
func (b *markup) escape(s string) {
	for i := 0; i < len(markupEscaped); i++ {
		if strings.IndexByte(s, markupEscaped[i]) >= 0 {
			b.html = append(b.html, html.EscapeString(s)...)
			return
		}
	}
	b.html = append(b.html, s...)
}

// markupEscaped are the bytes html.EscapeString escapes.
const markupEscaped = "&'<>\""

// markupRewritten reports whether the parser would not keep s as written:
// it rewrites a carriage return and a NUL.
func markupRewritten(s string) bool {
	return strings.IndexByte(s, '\r') >= 0 || strings.IndexByte(s, 0) >= 0
}

func (b *markup) close(v HTML) {
	b.depth--
	b.textEnd = false
	if v.SelfClosing() {
		return
	}
	b.html = append(b.html, '<', '/')
	b.html = append(b.html, v.Tag()...)
	b.html = append(b.html, '>')
}

func (b *markup) shapeOf(name string) {
	b.shape = strconv.AppendInt(b.shape, int64(b.depth), 10)
	b.shape = append(b.shape, ':')
	b.shape = append(b.shape, name...)
	b.shape = append(b.shape, ',')
}

// markupTag reports whether an element named tag parses from markup as
// itself, its text as written: a lower-case name, not one whose content the
// parser reads raw or trims, nor one a template cannot hold.
func markupTag(tag string) bool {
	switch tag {
	case "", "html", "head", "body", "frameset", "template",
		"script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext",
		"pre", "listing":
		return false
	}
	return markupName(tag)
}

// markupName reports whether name is written in markup as itself: lower-case
// letters, digits and dashes, a letter first.
//
//go:noinline
func markupName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '_' || c == ':'):
		default:
			return false
		}
	}
	return name != ""
}

// markupProperty reports whether go-app sets the attribute name as a
// property (setJSAttribute), which markup does not say.
//
//go:noinline
func markupProperty(name string) bool {
	switch name {
	case "value", "contenteditable", "ismap", "readonly",
		"async", "autofocus", "autoplay", "checked", "default", "defer", "disabled",
		"hidden", "loop", "multiple", "muted", "open", "required", "reversed", "selected":
		return true
	}
	return false
}

// adopt has the page parse the markup and takes its nodes as the tree's,
// reporting whether the parse gave the tree's shape.
func (m nodeManager) adopt(ctx Context, b *markup) bool {
	if !Window().Get(markupParser).Truthy() {
		return false
	}
	nodes := Window().Call(markupParser, string(b.html), string(b.shape))
	if !nodes.Truthy() {
		return false
	}
	for i, n := range b.nodes {
		switch n := n.(type) {
		case *text:
			n.jsvalue = nodes.Index(i)
		case HTML:
			n.setJSElement(nodes.Index(i))
			if len(n.events()) > 0 { // most elements have none: no context made, no map walked
				m.mountHTMLEventHandlers(m.context(ctx, n), n)
			}
		}
	}
	for _, p := range b.props {
		setJSAttribute(p.elem.JSValue(), p.name, p.value)
	}
	return true
}

// build makes a prepared tree's nodes one by one, as go-app's mount does:
// a text or raw HTML with go-app's own mount of it.
func (m nodeManager) build(ctx Context, v UI) error {
	switch v := v.(type) {
	case HTML:
		ctx = m.context(ctx, v)
		jsElement, _ := Window().createElement(v.Tag(), v.XMLNamespace())
		v = v.setJSElement(jsElement)
		m.mountHTMLAttributes(ctx, v)
		m.mountHTMLEventHandlers(ctx, v)
		for _, child := range v.body() {
			if err := m.build(ctx, child); err != nil {
				return err
			}
			v.JSValue().appendChild(child)
		}
		return nil

	case Composer:
		return m.build(ctx, v.root())

	default:
		_, err := m.mountEach(ctx, 0, v)
		return err
	}
}
