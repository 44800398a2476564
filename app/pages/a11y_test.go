//go:build !js

package pages

import (
	"encoding/xml"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/venueapi"
)

// unnamedControls lists the form controls of page (HTML as go-app writes
// it) that have no accessible name: no <label for> naming their id, no
// enclosing <label>, no aria-label or aria-labelledby.
func unnamedControls(t *testing.T, page string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	labelled := map[string]bool{}
	type control struct{ desc, id string }
	var controls []control
	inLabel := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading the page: %v\n%s", err, page)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch el.Name.Local {
			case "label":
				inLabel++
				if f := attr["for"]; f != "" {
					labelled[f] = true
				}
			case "input", "select", "textarea":
				if attr["type"] == "hidden" || attr["aria-label"] != "" || attr["aria-labelledby"] != "" || inLabel > 0 {
					continue
				}
				controls = append(controls, control{"<" + el.Name.Local + ` id="` + attr["id"] + `" name="` + attr["name"] + `">`, attr["id"]})
			}
		case xml.EndElement:
			if el.Name.Local == "label" {
				inLabel--
			}
		}
	}
	var unnamed []string
	for _, c := range controls {
		if c.id == "" || !labelled[c.id] {
			unnamed = append(unnamed, c.desc)
		}
	}
	return unnamed
}

// renderPage mounts c in a test engine and returns the HTML it draws.
func renderPage(t *testing.T, c app.Composer) string {
	t.Helper()
	e := app.NewTestEngine()
	if err := e.Load(c); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	return app.HTMLString(c)
}

// Every form control of the pages with a contract picker has a name a
// screen reader says (WCAG 4.1.2): the app's page, and the page the server
// serves with its own picker of every contract in place of the prerendered
// one (FirstContractPicker). The contract list of /tiers and /limits was
// read out as "combo box, BTC-USDT", with nothing to say what it picks.
func TestEveryControlOfAPageWithAPickerHasAName(t *testing.T) {
	offers := []venueapi.Offer{{Code: "BTC-USDT"}, {Code: "ETH-USDT"}}
	for _, tc := range []struct {
		name string
		path string
		page func() app.Composer
	}{
		{"the chart page", "/", func() app.Composer {
			return &ChartPage{v: components.DefaultView(), contracts: offers}
		}},
		{"the tiers page", "/tiers", func() app.Composer {
			return &RiskPage{show: "tiers", v: components.View{Contract: "BTC-USDT"}, contracts: offers}
		}},
		{"the limits page", "/limits", func() app.Composer {
			return &RiskPage{show: "limits", v: components.View{Contract: "BTC-USDT"}, contracts: offers}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := renderPage(t, tc.page())
			if bad := unnamedControls(t, page); len(bad) > 0 {
				t.Errorf("the app's page: controls without a name: %v", bad)
			}
			picker, ok := FirstContractPicker(&url.URL{Path: tc.path, RawQuery: "contract_code=BTC-USDT"}, offers)
			if !ok {
				t.Fatalf("no first picker at %s", tc.path)
			}
			first := app.HTMLString(picker)
			start := strings.LastIndex(page[:strings.Index(page, `id="contract-pick"`)], "<form")
			end := start + strings.Index(page[start:], "</form>") + len("</form>")
			served := page[:start] + first + page[end:]
			if bad := unnamedControls(t, served); len(bad) > 0 {
				t.Errorf("the server's page, its picker of every contract in: controls without a name: %v", bad)
			}
		})
	}
}
