package bundle

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/firstdata"
)

var (
	pickerRE  = regexp.MustCompile(`(?s)<form[^>]* id="contract-pick"[^>]*>.*?</form>`)
	optionRE  = regexp.MustCompile(`<option[^>]*>([^<]*)</option>`)
	inputRE   = regexp.MustCompile(`<input[^>]*>`)
	tagAttrRE = regexp.MustCompile(`[a-z-]+(="[^"]*")?`)
	scriptRE  = regexp.MustCompile(`<script type="application/json" id="contracts-first">([^<]*)</script>`)
	preloadRE = regexp.MustCompile(`<link[^>]* href="/api/v1/contracts"[^>]*>`)
)

// sortedAttrs is each tag's attributes, sorted: go-app writes them in no
// fixed order.
func sortedAttrs(tags []string) []string {
	out := make([]string, len(tags))
	for i, tag := range tags {
		attrs := tagAttrRE.FindAllString(strings.Trim(tag, "<>"), -1)
		slices.Sort(attrs)
		out[i] = strings.Join(attrs, " ")
	}
	return out
}

// The pages with a contract picker (the chart page, /tiers, /limits) carry the
// contract list when the request holds it (docs/architecture.md, "The page
// before the app"): the picker lists every contract, the page's own selected,
// and the answer is there for the app.
func TestThePagesWithAPickerCarryTheContractList(t *testing.T) {
	const answer = `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1},{"contract_code":"ETH-USDT","face_value":"0.01","price_decimals":2},{"contract_code":"SOL-USDT","face_value":"1","price_decimals":3}],"private":true}`
	held := firstdata.ContractsLookup(func() ([]byte, bool) { return []byte(answer), true })
	notHeld := firstdata.ContractsLookup(func() ([]byte, bool) { return nil, false })
	empty := firstdata.ContractsLookup(func() ([]byte, bool) { return []byte(`{"data":[],"private":false}`), true })
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(path string, lookup firstdata.ContractsLookup) string {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if lookup != nil {
			r = r.WithContext(firstdata.WithContracts(r.Context(), lookup))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
		return rec.Body.String()
	}
	const view = "/?contract_code=ETH-USDT&period=5min&theme=dark"
	tests := []struct {
		name     string
		path     string
		lookup   firstdata.ContractsLookup
		options  []string // the picker's, in order
		selected string
		carried  bool
	}{
		{"the list held", view, held, []string{"BTC-USDT", "ETH-USDT", "SOL-USDT"}, "ETH-USDT", true},
		{"the list held, a contract it lacks", "/?contract_code=XRP-USDT", held, []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT"}, "XRP-USDT", true},
		{"the default view", "/", held, []string{"BTC-USDT", "ETH-USDT", "SOL-USDT"}, "BTC-USDT", true},
		{"the tiers page", "/tiers?contract_code=sol-usdt", held, []string{"BTC-USDT", "ETH-USDT", "SOL-USDT"}, "SOL-USDT", true},
		{"the limits page, no contract named", "/limits", held, []string{"BTC-USDT", "ETH-USDT", "SOL-USDT"}, "BTC-USDT", true},
		{"no list in the request (the shell, or no gateway)", view, nil, []string{"ETH-USDT"}, "ETH-USDT", false},
		{"the list not held", view, notHeld, []string{"ETH-USDT"}, "ETH-USDT", false},
		{"an empty list", view, empty, []string{"ETH-USDT"}, "ETH-USDT", false},
	}
	plain := serve(view, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := serve(tt.path, tt.lookup)
			forms := pickerRE.FindAllString(page, -1)
			if len(forms) != 1 {
				t.Fatalf("%d contract pickers in the page, want 1", len(forms))
			}
			var options, selected []string
			for _, m := range optionRE.FindAllStringSubmatch(forms[0], -1) {
				options = append(options, m[1])
				if regexp.MustCompile(` selected[ >=]`).MatchString(m[0]) {
					selected = append(selected, m[1])
				}
			}
			if !slices.Equal(options, tt.options) || !slices.Equal(selected, []string{tt.selected}) {
				t.Errorf("the picker lists %q with %q selected, want %q with %s alone", options, selected, tt.options, tt.selected)
			}
			script := scriptRE.FindAllStringSubmatch(page, -1)
			if tt.carried != (len(script) == 1) {
				t.Fatalf("%d contract answers in the page; want one: %v", len(script), tt.carried)
			}
			if preloads := len(preloadRE.FindAllString(page, -1)); tt.carried != (preloads == 0) || preloads > 1 {
				t.Errorf("%d preloads of the contract path (%q); want one only when the page does not carry the list", preloads, preloadRE.FindAllString(page, -1))
			}
			if !tt.carried {
				return
			}
			if script[0][1] != answer {
				t.Errorf("the page carries %s, want the contract path's answer %s", script[0][1], answer)
			}
			var v struct {
				Data []json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(script[0][1]), &v); err != nil || len(v.Data) != 3 {
				t.Errorf("the answer carried does not read as three contracts: %v", err)
			}
			if !strings.Contains(page[strings.LastIndex(page, `id="contracts-first"`):], "</body>") {
				t.Error("the answer is not in the body")
			}
			// The chart's first paint reads the contract's decimals from it as
			// the parser reaches the chart.
			if list, boot := strings.Index(page, `id="contracts-first"`), strings.Index(page, `id="chart-boot"`); boot >= 0 && list > boot {
				t.Error("the answer comes after the chart's first-paint script, which cannot read it")
			}
		})
	}
	// The picker drawn with the list is the page's own: its form goes to
	// the same view (the hidden fields are the prerendered page's).
	page := serve(view, held)
	got, want := sortedAttrs(inputRE.FindAllString(pickerRE.FindString(page), -1)), sortedAttrs(inputRE.FindAllString(pickerRE.FindString(plain), -1))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("the picker's hidden fields are\n%q\nwant the prerendered page's\n%q", got, want)
	}
	// A risk page's picker goes to the page itself, with the contract alone.
	if form := pickerRE.FindString(serve("/limits?contract_code=ETH-USDT", held)); !strings.Contains(form, `action="/limits"`) || inputRE.MatchString(form) {
		t.Errorf("the limits page's picker is %s, want a form to /limits with no hidden fields", form)
	}
	if other := serve("/tiers?contract_code=not-a-code", held); scriptRE.MatchString(other) {
		t.Error("/tiers?contract_code=not-a-code, a page without a picker, carries the contract list")
	}
}

// An embed shows one contract and no picker: it carries the contract
// path's answer cut to that contract's entry (pages.FirstOffer), inside its
// root and ahead of the chart's first paint, which writes the prices in its
// decimals; the app fetches the whole list all the same, so the page drops
// no preload. An embed of a contract the list lacks carries nothing.
func TestAnEmbedCarriesItsContractsEntryAlone(t *testing.T) {
	const answer = `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1},{"contract_code":"ETH-USDT","face_value":"0.01","price_decimals":2},{"contract_code":"SOL-USDT","face_value":"1","price_decimals":3}],"private":true}`
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(path string) string {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r = r.WithContext(firstdata.WithContracts(r.Context(), func() ([]byte, bool) { return []byte(answer), true }))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
		return rec.Body.String()
	}
	for _, tc := range []struct{ path, want string }{
		{"/embed/chart?contract_code=ETH-USDT&period=5min", `{"data":[{"contract_code":"ETH-USDT","face_value":"0.01","price_decimals":2}]}`},
		{"/embed/chart", `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1}]}`}, // the default view
		{"/embed/tiers?contract_code=sol-usdt", `{"data":[{"contract_code":"SOL-USDT","face_value":"1","price_decimals":3}]}`},
		{"/embed/limits?contract_code=BTC-USDT&controls=0", `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1}]}`},
		{"/embed/chart?contract_code=XRP-USDT", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			page := serve(tc.path)
			script := scriptRE.FindAllStringSubmatch(page, -1)
			if tc.want == "" {
				if len(script) != 0 {
					t.Errorf("the page carries %q, want nothing: the list lacks its contract", script[0][1])
				}
				return
			}
			if len(script) != 1 || script[0][1] != tc.want {
				t.Fatalf("the page carries %q, want %s once", script, tc.want)
			}
			root, list := strings.Index(page, `id="embed-root"`), strings.Index(page, `id="contracts-first"`)
			if root < 0 || list < root || strings.Contains(page[root:list], "<div") || strings.Contains(page[root:list], "</") {
				t.Error("the entry is not the first thing inside the embed's root")
			}
			if boot := strings.Index(page, `id="chart-boot"`); boot >= 0 && list > boot {
				t.Error("the entry comes after the chart's first-paint script, which cannot read it")
			}
			if pickerRE.MatchString(page) || preloadRE.MatchString(page) {
				t.Error("the embed shows a contract picker, or preloads the contract path")
			}
		})
	}
}

// The contract path's answer goes into the page as the server holds it,
// with <, > and & escaped inside its strings: text that would end the
// script element, or open a comment in it, reads as the same JSON value
// and ends nothing.
func TestTheContractListCannotEndItsScriptElement(t *testing.T) {
	const answer = `{"data":[{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1}],"private":false,` +
		`"note":"</script><script>alert(1)</script> & <!-- \u2028"}`
	h, err := New(Config{Root: builtRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r = r.WithContext(firstdata.WithContracts(r.Context(), func() ([]byte, bool) { return []byte(answer), true }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	page := rec.Body.String()
	if strings.Contains(page, "alert(1)</script>") || strings.Contains(page, "<!--") {
		t.Fatal("the answer's text ends its script element, or opens a comment, in the page")
	}
	script := scriptRE.FindAllStringSubmatch(page, -1)
	if len(script) != 1 {
		t.Fatalf("%d contract answers in the page, want 1", len(script))
	}
	var got, want any
	if err := json.Unmarshal([]byte(script[0][1]), &got); err != nil {
		t.Fatalf("the answer carried is not JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(answer), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the page carries %v, want the contract path's answer %v", got, want)
	}
}
