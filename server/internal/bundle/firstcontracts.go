package bundle

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/boot"
	"github.com/riskchart/riskchart/app/pages"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// firstContracts is the contract path's answer the server holds, for a
// page that may show a contract picker, when the request carries it
// (firstdata); ok is false otherwise. A page's revalidation needs these
// bytes alone, for its ETag: the list is read, and the picker drawn, only
// when the page is (withFirstContracts).
func firstContracts(r *http.Request) (body []byte, ok bool) {
	lookup, found := firstdata.Contracts(r.Context())
	if !found {
		return nil, false
	}
	return lookup()
}

// withFirstContracts puts the list body holds (firstContracts) in the page
// u names: the picker with every contract (pages.FirstContractPicker: the
// chart page, /tiers, /limits) in place of the prerendered one, which lists
// the page's contract alone; the answer for the app to adopt
// (boot.ContractsID), right after the picker, where the chart's first
// paint, further down, finds the contract's decimals; and no preload of the
// contract path, which the app then does not fetch. ok is false when the
// page is left as it was: it shows no picker, or body holds no contract.
func withFirstContracts(page []byte, u *url.URL, body []byte) (out []byte, ok bool) {
	offers, err := venueapi.DecodeContracts(body) // in one pass: it is the server's own answer
	if err != nil || len(offers) == 0 {
		return page, false
	}
	picker, shown := pages.FirstContractPicker(u, offers)
	if !shown {
		return page, false
	}
	// The answer as the contract path sends it, with <, > and & escaped as
	// json.Marshal escapes them, so that the text cannot end the script
	// element; the same JSON value for the app.
	var script bytes.Buffer
	script.WriteString(`<script type="application/json" id="` + boot.ContractsID + `">`)
	json.HTMLEscape(&script, body)
	script.WriteString("</script>\n")
	// The prerendered picker is the one form with id="contract-pick"
	// (ContractPicker), holding no other form.
	out, ok = replaceElement(page, "form", "contract-pick", append([]byte(app.HTMLString(picker)), script.Bytes()...), "")
	if !ok {
		return page, false
	}
	return withoutPreload(out, api.PathContracts), true
}

// withoutPreload is page without the <link> that preloads href (and the
// indentation of its line); page as it is when it holds none. go-app writes
// a link's attributes in no fixed order.
func withoutPreload(page []byte, href string) []byte {
	start, end, ok := preloadLink(page, href+`"`)
	if !ok {
		return page
	}
	cut := start
	for cut > 0 && (page[cut-1] == ' ' || page[cut-1] == '\t') {
		cut--
	}
	if cut > 0 && page[cut-1] == '\n' {
		cut--
	}
	out := make([]byte, 0, len(page))
	return append(append(out, page[:cut]...), page[end:]...)
}

// preloadLink finds in page the first <link> with rel="preload" whose href
// starts with href, and returns where the element starts and ends. go-app
// writes a link's attributes in no fixed order.
func preloadLink(page []byte, href string) (start, end int, ok bool) {
	i := bytes.Index(page, []byte(` href="`+href))
	if i < 0 {
		return 0, 0, false
	}
	start = bytes.LastIndex(page[:i], []byte("<link"))
	closing := bytes.IndexByte(page[i:], '>')
	if start < 0 || closing < 0 || bytes.IndexByte(page[start:i], '>') >= 0 || !bytes.Contains(page[start:i+closing], []byte(`rel="preload"`)) {
		return 0, 0, false
	}
	return start, i + closing + 1, true
}
