package bundle

import (
	"bytes"
	"errors"
	"html"
	"net/url"
	"strings"
)

// go-app writes og:url and og:image in every page, as "https://" + its
// Handler.Domain + a path, and a bare "https://" without a domain; it cannot
// write an http:// address or leave the tags out, and RawHeaders, the same
// for every page, cannot remove its tags. So go-app is given ogDomain, a
// name that cannot resolve (.invalid, RFC 2606), and each page's head is
// rewritten: ogPrefix becomes RISKCHART_PUBLIC_URL, or, without one, the
// <meta> elements holding it are taken out. Finding the placeholder does not
// depend on the order go-app writes attributes in, which varies.
const (
	ogDomain = "riskchart-public-url.invalid"
	ogPrefix = "https://" + ogDomain
)

// ogBase is what ogPrefix becomes in a page: the public URL without a
// trailing slash (go-app's paths start with one), escaped for an HTML
// attribute; "" for none.
func ogBase(public *url.URL) string {
	if public == nil {
		return ""
	}
	return html.EscapeString(strings.TrimSuffix(public.String(), "/"))
}

// rewriteOG rewrites the head of a page go-app rendered with ogDomain:
// ogPrefix becomes base (base + "/" when it is the whole address), or, when
// base is "", each <meta> element holding it is taken out with its line's
// indentation. It fails when the head holds no ogPrefix or holds one outside
// a <meta> element: go-app has changed.
func rewriteOG(page []byte, base string) ([]byte, error) {
	end := bytes.Index(page, []byte("</head>"))
	if end < 0 {
		return nil, errors.New("go-app's page has no </head>")
	}
	head, rest := page[:end], page[end:]
	out := make([]byte, 0, len(page)+2*len(base))
	found := 0
	for {
		i := bytes.Index(head, []byte(ogPrefix))
		if i < 0 {
			break
		}
		found++
		if base != "" {
			out = append(out, head[:i]...)
			out = append(out, base...)
			head = head[i+len(ogPrefix):]
			if len(head) > 0 && (head[0] == '"' || head[0] == '\'') {
				out = append(out, '/') // go-app writes the root page's address without its slash
			}
			continue
		}
		start := bytes.LastIndex(head[:i], []byte("<meta "))
		closing := bytes.IndexByte(head[i:], '>')
		if start < 0 || closing < 0 || bytes.IndexByte(head[start:i], '>') >= 0 {
			return nil, errors.New("go-app's page holds og:url or og:image outside a <meta> element")
		}
		cut := start
		for cut > 0 && (head[cut-1] == ' ' || head[cut-1] == '\t') {
			cut--
		}
		if cut > 0 && head[cut-1] == '\n' {
			cut--
		}
		out = append(out, head[:cut]...)
		head = head[i+closing+1:]
	}
	if found == 0 {
		return nil, errors.New("go-app's page no longer writes og:url and og:image under Handler.Domain")
	}
	out = append(out, head...)
	return append(out, rest...), nil
}
