package bundle

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPageOpensInTheThemeItsURLNames: the <html> element of each page
// carries the theme its URL names, as the app sets it, so that the first
// paint is in it; a theme the app does not read (any case but its own, an
// empty one) leaves the page to the system's colour scheme.
func TestEveryPageOpensInTheThemeItsURLNames(t *testing.T) {
	root := builtRoot(t)
	html := regexp.MustCompile(`<html[^>]*>`)
	for _, tc := range []struct {
		path, want string // want: the data-theme attribute, "" for none
	}{
		{"/?theme=dark", `data-theme="dark"`},
		{"/?contract_code=ETH-USDT&period=5min&theme=light", `data-theme="light"`},
		{"/tiers?contract_code=ETH-USDT&theme=dark", `data-theme="dark"`},
		{"/limits?theme=dark", `data-theme="dark"`},
		{"/embed/chart?theme=dark", `data-theme="dark"`},
		{"/embed/tiers?contract_code=BTC-USDT&theme=dark", `data-theme="dark"`},
		{"/embed/limits?theme=light", `data-theme="light"`},
		{"/", ""},
		{"/tiers?theme=auto", ""},
		{"/embed/tiers?theme=Dark", ""},
		{"/embed/tiers?theme=", ""},
		{"/embed/tiers?theme=%22%3E%3Cscript%3E", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, tc.path)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			tags := html.FindAllString(body, -1)
			if len(tags) != 1 {
				t.Fatalf("the page has %d <html> start tags, want 1", len(tags))
			}
			themes := regexp.MustCompile(`data-theme="[^"]*"`).FindAllString(tags[0], -1)
			switch {
			case tc.want == "" && len(themes) != 0:
				t.Errorf("<html> is %s, want no data-theme", tags[0])
			case tc.want != "" && (len(themes) != 1 || themes[0] != tc.want):
				t.Errorf("<html> is %s, want %s once", tags[0], tc.want)
			}
		})
	}
}

// TestWithThemeTakesTheHTMLElementOnly: the attribute goes on the <html>
// start tag, whatever follows its name, and nowhere else.
func TestWithThemeTakesTheHTMLElementOnly(t *testing.T) {
	dark := &url.URL{RawQuery: "theme=dark"}
	for _, tc := range []struct{ page, want string }{
		{`<!doctype html><html lang="en"><head></head></html>`, `<!doctype html><html data-theme="dark" lang="en"><head></head></html>`},
		{`<html><body></body></html>`, `<html data-theme="dark"><body></body></html>`},
		{`<htmlx><html></html>`, `<htmlx><html data-theme="dark"></html>`},
		{`<body>no element</body>`, `<body>no element</body>`},
		{`<html`, `<html data-theme="dark"`},
	} {
		if got := string(withTheme(dark, []byte(tc.page))); got != tc.want {
			t.Errorf("withTheme(%q) = %q, want %q", tc.page, got, tc.want)
		}
	}
}

// TestRiskPagesCarryTheirZoneAndTheme: /tiers and /limits read ?tz= and
// ?theme= as the chart page does, and their links and forms carry them on,
// so that a click before or after the app runs keeps them; a page that
// names neither names neither in its links and forms.
func TestRiskPagesCarryTheirZoneAndTheme(t *testing.T) {
	root := builtRoot(t)
	hidden := regexp.MustCompile(`<input[^>]*type="hidden"[^>]*>`)
	form := func(body, id string) string {
		m := regexp.MustCompile(`(?s)<form[^>]*id="` + id + `".*?</form>`).FindString(body)
		if m == "" {
			t.Fatalf("no form #%s in the page", id)
		}
		return m
	}
	for _, tc := range []struct {
		path   string
		query  string   // what every link carries after the path
		fields []string // the hidden fields of the picker's and the entry's forms
	}{
		{"/tiers?contract_code=eth-usdt&tz=utc&theme=dark", "?contract_code=ETH-USDT&theme=dark&tz=utc",
			[]string{`name="theme" value="dark"`, `name="tz" value="utc"`}},
		{"/limits?theme=light", "?contract_code=BTC-USDT&theme=light", []string{`name="theme" value="light"`}},
		{"/limits?contract_code=ETH-USDT&tz=local&theme=auto", "?contract_code=ETH-USDT", nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := served(t, Config{Root: root}, tc.path)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			for _, link := range []string{`"/` + tc.query + `"`, `"/tiers` + tc.query + `"`, `"/limits` + tc.query + `"`} {
				if !regexp.MustCompile(`<a [^>]*href=` + regexp.QuoteMeta(link)).MatchString(body) {
					t.Errorf("no link to %s", link)
				}
			}
			for _, id := range []string{"contract-pick", "contract-form"} {
				got := hidden.FindAllString(form(body, id), -1)
				if len(got) != len(tc.fields) {
					t.Errorf("#%s has hidden fields %q, want %q", id, got, tc.fields)
					continue
				}
				for i, f := range tc.fields { // go-app writes an element's attributes in any order
					name, value, _ := strings.Cut(f, " ")
					if !strings.Contains(got[i], " "+name) || !strings.Contains(got[i], " "+value) {
						t.Errorf("#%s's hidden field %d is %s, want %s", id, i, got[i], f)
					}
				}
			}
		})
	}
}
