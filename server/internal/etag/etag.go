// Package etag reads an If-None-Match header as HTTP says (RFC 9110,
// 13.1.2): "*", or a list of entity tags compared weakly. The gateway's
// KLine answers and the bundle's pages both answer it with a 304.
package etag

import "strings"

// Matches reports whether header, an If-None-Match value, is "*" or names
// tag; a W/ on either side is ignored (the weak comparison).
func Matches(header, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for header != "" {
		var t string
		t, header, _ = strings.Cut(header, ",")
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == tag || t == "*" {
			return true
		}
	}
	return false
}
