package bundle

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

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
// contract path, which the app then does not fetch. offers is the list
// read, for the rest of the page's first data (withFirstTiers). ok is false
// (and offers nil) when the page is left as it was: it shows no picker, or
// body holds no contract.
func withFirstContracts(page []byte, u *url.URL, body []byte) (out []byte, offers []venueapi.Offer, ok bool) {
	offers, err := venueapi.DecodeContracts(body) // in one pass: it is the server's own answer
	if err != nil || len(offers) == 0 {
		return page, nil, false
	}
	if code, alone := pages.FirstOffer(u); alone {
		if out, ok = withFirstOffer(page, offers, code); !ok {
			return page, nil, false
		}
		return out, offers, true
	}
	picker, shown := pages.FirstContractPicker(u, offers)
	if !shown {
		return page, nil, false
	}
	// The prerendered picker is the one form with id="contract-pick"
	// (ContractPicker), holding no other form.
	out, ok = replaceElement(page, "form", "contract-pick", append([]byte(app.HTMLString(picker)), contractsScript(body)...), "")
	if !ok {
		return page, nil, false
	}
	return withoutPreload(out, api.PathContracts), offers, true
}

// withFirstOffer puts in an embed (pages.FirstOffer) the contract path's
// answer cut to the entry of the contract code it shows, right inside its
// root, ahead of the chart's first paint; ok is false, and page as it was,
// when offers do not list code or the page has no root. The app fetches
// the whole list all the same: the page preloads none.
func withFirstOffer(page []byte, offers []venueapi.Offer, code string) (out []byte, ok bool) {
	i := slices.IndexFunc(offers, func(o venueapi.Offer) bool { return o.Code == code })
	if i < 0 {
		return page, false
	}
	body, err := json.Marshal(struct {
		Data []venueapi.Offer `json:"data"`
	}{offers[i : i+1]})
	if err != nil { // an Offer always encodes
		return page, false
	}
	return insertInto(page, pages.EmbedRootID, contractsScript(body))
}

// contractsScript is the element that carries a contract path's answer
// body for the app to adopt (boot.ContractsID), with <, > and & escaped as
// json.Marshal escapes them, so that the text cannot end the script
// element; the same JSON value for the app.
func contractsScript(body []byte) []byte {
	var script bytes.Buffer
	script.WriteString(`<script type="application/json" id="` + boot.ContractsID + `">`)
	json.HTMLEscape(&script, body)
	script.WriteString("</script>\n")
	return script.Bytes()
}

// insertInto is page with with put first inside the element whose id is
// id, right after its start tag; ok is false, and page as it was, when the
// page has no such element. go-app writes a tag's attributes in no fixed
// order, each value quoted and escaped.
func insertInto(page []byte, id string, with []byte) (out []byte, ok bool) {
	at := bytes.Index(page, []byte(` id="`+id+`"`))
	if at < 0 {
		return page, false
	}
	end := bytes.IndexByte(page[at:], '>')
	if end < 0 {
		return page, false
	}
	end += at + 1
	out = make([]byte, 0, len(page)+len(with))
	return append(append(append(out, page[:end]...), with...), page[end:]...), true
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
