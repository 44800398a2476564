package components

import (
	"net/url"
	"strings"

	"github.com/riskchart/riskchart/venueapi"
)

// A view's URL is often typed or pasted by a person: contract codes and
// periods are read whatever their letters' case (eth-usdt is ETH-USDT,
// 1MIN is 1min), and a value that still names no contract code or venue
// period is not silently swapped for the default: ViewNotice says what was
// asked and why it is not shown (docs/decisions.md#unknown-view-parameters).
// web/chart-boot.js reads the URL by the same rules, as data
// (app/boot.Config) where it can and by these two case rules where not.

// contractParam is ?contract_code= with its ASCII letters upper-cased.
func contractParam(q url.Values) string {
	return asciiCase(strings.TrimSpace(q.Get("contract_code")), 'a', 'z', true)
}

// periodParam is ?period= with its ASCII letters lower-cased.
func periodParam(q url.Values) string {
	return asciiCase(strings.TrimSpace(q.Get("period")), 'A', 'Z', false)
}

// asciiCase upper-cases (or lower-cases) the ASCII letters from lo to hi:
// ASCII alone, so that the browser's script, which cannot share Go's
// Unicode tables, reads a code exactly as the app does.
func asciiCase(s string, lo, hi byte, upper bool) string {
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			if upper {
				b[i] = c - 'a' + 'A'
			} else {
				b[i] = c - 'A' + 'a'
			}
		}
	}
	return string(b)
}

// ViewNotice says which view parameters of u the view does not take, why,
// and what is shown instead; "" when it takes them all (or u names none).
func ViewNotice(u *url.URL) string {
	q := u.Query()
	def := DefaultView()
	var parts []string
	if c := contractParam(q); q.Has("contract_code") {
		if _, err := venueapi.ParseContractCode(c); err != nil {
			parts = append(parts, "“"+shorten(q.Get("contract_code"))+"” is not a contract code (BASE-QUOTE for a swap, BASE-QUOTE-YYMMDD for a future, or BASE-QUOTE-CW, -NW, -CQ, -NQ): showing "+def.Contract+".")
		}
	}
	if p := periodParam(q); q.Has("period") {
		if _, err := venueapi.ParsePeriod(p); err != nil {
			names := make([]string, 0, 9)
			for _, pr := range venueapi.Periods() {
				names = append(names, string(pr))
			}
			parts = append(parts, "“"+shorten(q.Get("period"))+"” is not a period of the venue ("+strings.Join(names, ", ")+"): showing "+string(def.Period)+".")
		}
	}
	if _, n := lookFromQuery(q); n != "" { // scale=, style=, indicators= (viewlook.go)
		parts = append(parts, n)
	}
	return strings.Join(parts, " ")
}

// shorten keeps a notice readable whatever was pasted into the URL.
func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
