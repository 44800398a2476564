package bundle

import "bytes"

// go-app's server-side renderer writes an attribute whose value is "true"
// bare and one whose value is "false" as ="false", whatever the attribute,
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

// booleanAttrs are the HTML boolean attributes go-app sets as properties
// in the browser (its setJSAttribute), with readonly and ismap.
var booleanAttrs = map[string]bool{
	"async": true, "autofocus": true, "autoplay": true, "checked": true, "default": true, "defer": true,
	"disabled": true, "hidden": true, "ismap": true, "loop": true, "multiple": true, "muted": true,
	"open": true, "readonly": true, "required": true, "reversed": true, "selected": true,
}

// rawTextTags hold text the HTML parser does not read as markup: a tag
// inside them is text, and is left alone.
var rawTextTags = map[string]bool{"script": true, "style": true, "textarea": true, "title": true}

// withAttrValues is page with the start tags from its <body> on mended:
// an HTML boolean attribute whose value is false left out, an enumerated
// attribute written bare given ="true". Every other byte is left as it is,
// and so is a tag that does not read as go-app writes them.
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
		if lt < 0 || lt+1 >= len(rest) || !isASCIILetter(rest[lt+1]) {
			if lt < 0 {
				return append(out, rest...)
			}
			out = append(out, rest[:lt+1]...)
			rest = rest[lt+1:]
			continue
		}
		out = append(out, rest[:lt]...)
		rest = rest[lt:]
		tag, name, n, ok := mendTag(rest)
		if !ok {
			out = append(out, rest[0])
			rest = rest[1:]
			continue
		}
		out = append(out, tag...)
		rest = rest[n:]
		if rawTextTags[name] {
			end := bytes.Index(rest, []byte("</"+name))
			if end < 0 {
				return append(out, rest...)
			}
			out = append(out, rest[:end]...)
			rest = rest[end:]
		}
	}
}

// mendTag reads the start tag at the head of b ("<name attr…>") and
// returns it mended, the tag's name and how many bytes of b it took; ok is
// false when b does not start with a tag written as go-app writes them.
func mendTag(b []byte) (tag []byte, name string, n int, ok bool) {
	i := 1
	for i < len(b) && isNameByte(b[i]) {
		i++
	}
	name = string(b[1:i])
	tag = append(make([]byte, 0, 64), b[:i]...)
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t') {
			i++
		}
		switch {
		case i >= len(b):
			return nil, "", 0, false
		case b[i] == '>':
			return append(tag, '>'), name, i + 1, true
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '>':
			return append(tag, "/>"...), name, i + 2, true
		}
		start := i
		for i < len(b) && isNameByte(b[i]) {
			i++
		}
		if i == start {
			return nil, "", 0, false
		}
		attr := string(b[start:i])
		if i >= len(b) || b[i] != '=' { // written bare: go-app's true
			tag = append(tag, ' ')
			tag = append(tag, attr...)
			if !booleanAttrs[attr] {
				tag = append(tag, `="true"`...)
			}
			continue
		}
		n := quotedLen(b[i+1:])
		if n == 0 {
			return nil, "", 0, false
		}
		value := b[i+1 : i+1+n] // with its quotes
		i += 1 + n
		if booleanAttrs[attr] && string(value) == `"false"` {
			continue
		}
		tag = append(tag, ' ')
		tag = append(tag, attr...)
		tag = append(tag, '=')
		tag = append(tag, value...)
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
