// Package etag reads an If-None-Match header as HTTP says (RFC 9110,
// 13.1.2): "*", or a list of entity tags compared weakly, which a client or
// a proxy may split over several field lines (5.3). The gateway's KLine
// answers and the bundle's pages both answer it with a 304.
package etag

import "strings"

// Matches reports whether lines, a request's If-None-Match field lines
// (Header.Values, read as one comma-separated list), hold "*" or name tag;
// a W/ on either side is ignored (the weak comparison).
func Matches(lines []string, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for _, header := range lines {
		for header != "" {
			var t string
			t, header, _ = strings.Cut(header, ",")
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == tag || t == "*" {
				return true
			}
		}
	}
	return false
}
