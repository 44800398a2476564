// Package acceptencoding reads a request's Accept-Encoding as HTTP says
// (RFC 9110, 12.5.3): the weight a client gives a content coding, from the
// coding named in the list, else from "*", else 0. The gateway reads it to
// gzip a KLine answer, the bundle to pick a file's precompressed sibling;
// both read it here, once per request and without allocating.
package acceptencoding

import "strings"

// Weight is the weight (0 to 1) that lines, a request's Accept-Encoding
// field lines (Header.Values, read as one comma-separated list, which a
// client or a proxy may split over several lines: RFC 9110, 5.3), give
// coding, a lower-case coding name; "x-gzip" names gzip (8.4.1.3). A
// coding named more than once takes its lowest weight, so that a refusal
// (q=0) anywhere in the list holds. A coding not named takes the weight of
// "*" (its lowest too) when the list has one, else 0: refused. A weight
// that is not a qvalue (0 to 1, at most three decimals) counts as 0.
func Weight(lines []string, coding string) float64 {
	named, star := -1.0, -1.0 // -1: no item yet
	for _, header := range lines {
		for header != "" {
			var item string
			item, header, _ = strings.Cut(header, ",")
			name, params, _ := strings.Cut(item, ";")
			name = strings.TrimSpace(name)
			switch {
			case strings.EqualFold(name, coding), coding == "gzip" && strings.EqualFold(name, "x-gzip"):
				named = lowest(named, qvalue(params))
			case name == "*":
				star = lowest(star, qvalue(params))
			}
		}
	}
	switch {
	case named >= 0:
		return named
	case star >= 0:
		return star
	}
	return 0
}

// lowest is the lower of w, a weight so far (-1 for none), and q.
func lowest(w, q float64) float64 {
	if w < 0 {
		return q
	}
	return min(w, q)
}

// qvalue is the weight that params, an item's parameters after its first
// ";", give it: 1 without a q parameter, 0 when q is not a qvalue.
func qvalue(params string) float64 {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		if k, v, ok := strings.Cut(p, "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			return parseQvalue(strings.TrimSpace(v))
		}
	}
	return 1
}

// parseQvalue is v read as HTTP writes a qvalue: "0" or "1", then up to
// three decimals after a "." ("1" only with zeros); 0 when v is not one.
func parseQvalue(v string) float64 {
	if v == "" || v[0] != '0' && v[0] != '1' || len(v) > 1 && (v[1] != '.' || len(v) > 5) {
		return 0
	}
	thousandths := 1000 * int(v[0]-'0')
	for i, place := 2, 100; i < len(v); i, place = i+1, place/10 {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
		thousandths += place * int(v[i]-'0')
	}
	if thousandths > 1000 {
		return 0
	}
	return float64(thousandths) / 1000
}
