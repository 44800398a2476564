//go:build !js

package pages

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/embedscope"
	"github.com/riskchart/riskchart/venueapi"
)

// formTag, fieldTag and attrOf read the forms go-app's server renderer
// writes: enough of HTML for its own output, not for HTML at large.
var (
	formTag  = regexp.MustCompile(`(?s)<form\b[^>]*>.*?</form>`)
	fieldTag = regexp.MustCompile(`<(input|button|select)\b[^>]*>`)
)

func attrOf(tag, name string) (string, bool) {
	m := regexp.MustCompile(`\s` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return strings.NewReplacer("&amp;", "&", "&quot;", `"`, "&#34;", `"`, "&lt;", "<", "&gt;", ">").Replace(m[1]), true
}

// submitted is the URL a browser opens when the form of page holding
// submitter (an id) is submitted by it before the app runs, as HTML says a
// GET form is: its action (absent: the page's own URL) with its query
// replaced by the form's named fields in tree order; the submitter the one
// button among them; nil when the form has no submit button, which neither
// a click nor Enter in a field then submits.
func submitted(t *testing.T, page *url.URL, html, submitter string) *url.URL {
	t.Helper()
	for _, form := range formTag.FindAllString(html, -1) {
		if !strings.Contains(form, `id="`+submitter+`"`) {
			continue
		}
		if !strings.Contains(form, `type="submit"`) {
			return nil // no submit button: neither a click nor Enter submits it
		}
		open := form[:strings.Index(form, ">")+1]
		target := *page
		if action, ok := attrOf(open, "action"); ok && action != "" {
			to, err := page.Parse(action)
			if err != nil {
				t.Fatalf("form action %q: %v", action, err)
			}
			target = *to
		}
		var data []string
		for _, field := range fieldTag.FindAllString(form, -1) {
			name, named := attrOf(field, "name")
			if !named || name == "" {
				continue
			}
			if strings.HasPrefix(field, "<button") {
				if id, _ := attrOf(field, "id"); id != submitter {
					continue
				}
			}
			value, _ := attrOf(field, "value")
			data = append(data, url.QueryEscape(name)+"="+url.QueryEscape(value))
		}
		target.RawQuery = strings.Join(data, "&")
		return &target
	}
	t.Fatalf("no form holds #%s in\n%s", submitter, html)
	return nil
}

// A form on a page before app.wasm runs keeps every parameter of the page's
// view but the ones it sets; in an embed, the embed's own parameters too (the
// signed link is a panel's only access: README, "Embedding"). The limits
// filter is checked by the app; before it runs, Apply filter (or Enter in
// its fields) submits it as a browser does.
func TestAFormBeforeTheAppKeepsTheView(t *testing.T) {
	offers := []venueapi.Offer{{Code: "BTC-USDT"}, {Code: "ETH-USDT"}}
	// A link whose scope grants ETH-USDT's limits: the panel asks for them
	// (embedscope.Withholds), and the server judges the signature.
	token := embedscope.Join(embedscope.Encode(embedscope.Payload{Contracts: []string{"ETH-USDT"}, Panels: []string{"limits"}, Expires: 4102444800}), []byte("signature"))
	tests := []struct {
		name, page string
		compo      func(u *url.URL) app.Composer
		submitter  string
		keep       []string // parameters of the page's URL the target keeps
	}{
		{"the limits embed's filter", "/embed/limits?contract_code=ETH-USDT&embed=" + token + "&locale=de&parent=https%3A%2F%2Fshop.example&theme=dark&tz=utc",
			func(u *url.URL) app.Composer {
				e := &EmbedPage{kind: "limits", contracts: offers}
				e.readURL(u)
				return e
			}, "filter-apply", []string{"contract_code", "embed", "locale", "parent", "theme", "tz"}},
		{"the limits page's filter", "/limits?contract_code=ETH-USDT&theme=dark&tz=utc",
			func(u *url.URL) app.Composer {
				p := &RiskPage{contracts: offers}
				p.readURL(u)
				return p
			}, "filter-apply", []string{"contract_code", "theme", "tz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := url.Parse(tt.page)
			if err != nil {
				t.Fatal(err)
			}
			html := renderPage(t, tt.compo(page))
			to := submitted(t, page, html, tt.submitter)
			if to == nil {
				return // it stays on the page
			}
			if to.Path != page.Path {
				t.Errorf("the form goes to %s, not %s", to, page.Path)
			}
			for _, k := range tt.keep {
				if got, want := to.Query().Get(k), page.Query().Get(k); got != want {
					t.Errorf("%s=%q, want %q: the form goes to %s", k, got, want, to)
				}
			}
		})
	}
}
