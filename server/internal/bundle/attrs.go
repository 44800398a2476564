package bundle

import "bytes"

// go-app's server-side renderer writes an attribute whose value is "true"
// bare and one whose value is "false" as ="false", whatever the attribute.
// That is right for neither kind of attribute a component sets from a bool:
//
//   - an HTML boolean attribute is on whatever its value: disabled="false"
//     disabled the chart page's Refresh button and open="false" opened the
//     studies menu, until app.wasm ran;
//   - an enumerated one (aria-pressed, aria-expanded, spellcheck) written
//     bare has no value: the period chip on show was not pressed to a
//     screen reader until app.wasm ran.
//
// In the browser go-app sets both right (properties for the first kind,
// setAttribute for the second), so only the server's page is mended here.

// booleanAttr reports whether name is one of the HTML boolean attributes
// go-app sets as properties in the browser (its setJSAttribute), or
// readonly or ismap.
func booleanAttr(name []byte) bool {
	switch string(name) {
	case "async", "autofocus", "autoplay", "checked", "default", "defer", "disabled", "hidden", "ismap",
		"loop", "multiple", "muted", "open", "readonly", "required", "reversed", "selected":
		return true
	}
	return false
}

// rawTextEnds are the end tags of the elements whose text the HTML parser
// does not read as markup: a tag inside them is text, and is left alone.
var rawTextEnds = map[string][]byte{
	"script": []byte("</script"), "style": []byte("</style"), "textarea": []byte("</textarea"), "title": []byte("</title"),
}

// withAttrValues is page with the start tags from its <body> on mended:
// an HTML boolean attribute whose value is false left out, an enumerated
// attribute written bare given ="true". Every other byte is left as it is,
// and so is a tag that does not read as go-app writes them. It runs on
// every page served, so it copies each byte once and allocates nothing
// more than the page.
func withAttrValues(page []byte) []byte {
	body := bytes.Index(page, []byte("<body"))
	if body < 0 {
		return page
	}
	out := make([]byte, 0, len(page)+256)
	out = append(out, page[:body]...)
	rest := page[body:]
	for {
		lt := bytes.IndexByte(rest, '<')
		if lt < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:lt]...)
		rest = rest[lt:]
		mended, name, n, ok := mendTag(out, rest)
		if !ok {
			out = append(out, '<')
			rest = rest[1:]
			continue
		}
		out, rest = mended, rest[n:]
		if end, raw := rawTextEnds[string(name)]; raw {
			text := bytes.Index(rest, end)
			if text < 0 {
				return append(out, rest...)
			}
			out = append(out, rest[:text]...)
			rest = rest[text:]
		}
	}
}

// mendTag appends to dst the start tag at the head of b ("<name attr…>"),
// mended, and returns dst, the tag's name and how many bytes of b it took;
// ok is false, and dst is to be dropped, when b does not start with a tag
// written as go-app writes them.
func mendTag(dst, b []byte) (out, name []byte, n int, ok bool) {
	if len(b) < 2 || !isASCIILetter(b[1]) {
		return nil, nil, 0, false
	}
	i := 1
	for i < len(b) && isNameByte(b[i]) {
		i++
	}
	name = b[1:i]
	out = append(dst, b[:i]...)
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t') {
			i++
		}
		switch {
		case i >= len(b):
			return nil, nil, 0, false
		case b[i] == '>':
			return append(out, '>'), name, i + 1, true
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '>':
			return append(out, "/>"...), name, i + 2, true
		}
		start := i
		for i < len(b) && isNameByte(b[i]) {
			i++
		}
		if i == start {
			return nil, nil, 0, false
		}
		attr := b[start:i]
		boolean := booleanAttr(attr)
		if i >= len(b) || b[i] != '=' { // written bare: go-app's true
			out = append(append(out, ' '), attr...)
			if !boolean {
				out = append(out, `="true"`...)
			}
			continue
		}
		q := quotedLen(b[i+1:])
		if q == 0 {
			return nil, nil, 0, false
		}
		value := b[i+1 : i+1+q] // with its quotes
		i += 1 + q
		if !boolean || string(value) != `"false"` {
			out = append(append(append(append(out, ' '), attr...), '='), value...)
		}
	}
}

// quotedLen is the length of the double-quoted value at the head of b,
// quotes included, as go-app quotes them (strconv.Quote: a quote inside is
// escaped with a backslash); 0 when b starts with none.
func quotedLen(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return 0
	}
	escaped := false
	for i := 1; i < len(b); i++ {
		switch {
		case escaped:
			escaped = false
		case b[i] == '\\':
			escaped = true
		case b[i] == '"':
			return i + 1
		}
	}
	return 0
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isNameByte is a byte of a tag's or an attribute's name as go-app writes
// them: letters, digits, '-', '_', ':' and '.'.
func isNameByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.'
}
