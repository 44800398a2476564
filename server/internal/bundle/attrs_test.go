package bundle

import (
	"regexp"
	"strings"
	"testing"
)

func TestWithAttrValuesWritesBoolsAsHTMLMeansThem(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a boolean attribute set false is left out",
			`<body><button id="r" disabled="false">Refresh</button></body>`, `<body><button id="r">Refresh</button></body>`},
		{"and so is an open menu that is not",
			`<body><details id="m" class="c" open="false"><summary>S</summary></details></body>`, `<body><details id="m" class="c"><summary>S</summary></details></body>`},
		{"a boolean attribute set true stays bare",
			`<body><option value="a" selected>a</option><script defer src="/x.js"></script></body>`, `<body><option value="a" selected>a</option><script defer src="/x.js"></script></body>`},
		{"an enumerated attribute written bare is true",
			`<body><button class="chip" aria-pressed type="submit">1min</button></body>`, `<body><button class="chip" aria-pressed="true" type="submit">1min</button></body>`},
		{"an enumerated attribute set false stays false",
			`<body><button aria-pressed="false" aria-expanded="false"><input spellcheck="false"></button></body>`, `<body><button aria-pressed="false" aria-expanded="false"><input spellcheck="false"></button></body>`},
		{"the last attribute, and a self-closing tag",
			`<body><input aria-invalid hidden="false"/><i aria-hidden></i></body>`, `<body><input aria-invalid="true"/><i aria-hidden="true"></i></body>`},
		{"a value quoted as go-app quotes it",
			`<body><a title="say \"hi\" > there" aria-current>x</a></body>`, `<body><a title="say \"hi\" > there" aria-current="true">x</a></body>`},
		{"text and raw text are not tags",
			`<body><p>1 &lt; 2 < 3</p><script type="application/json">{"x":"<b open=\"false\" aria-x>"}</script><b open="false"></b></body>`,
			`<body><p>1 &lt; 2 < 3</p><script type="application/json">{"x":"<b open=\"false\" aria-x>"}</script><b></b></body>`},
		{"the head is not the renderer's",
			`<html><head><link rel="x" disabled="false"></head><body data-x></body></html>`, `<html><head><link rel="x" disabled="false"></head><body data-x="true"></body></html>`},
		{"a tag that does not read as one is left as it is",
			`<body><a b="unterminated`, `<body><a b="unterminated`},
		{"no body", `<p open="false">`, `<p open="false">`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(withAttrValues([]byte(tc.in))); got != tc.want {
				t.Errorf("withAttrValues(%s)\n = %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestEveryPageWritesItsBoolsAsHTMLMeansThem: no served page holds an
// HTML boolean attribute set false (which turns it on) or an enumerated
// one written bare (which gives it no value): before app.wasm runs, the
// studies menu was open, the risk panel's Refresh disabled and the period
// on show not pressed.
func TestEveryPageWritesItsBoolsAsHTMLMeansThem(t *testing.T) {
	root := builtRoot(t)
	onFalse := regexp.MustCompile(`\s(async|autofocus|autoplay|checked|default|defer|disabled|hidden|loop|multiple|muted|open|readonly|required|reversed|selected)="false"`)
	bare := regexp.MustCompile(`\s(aria-[a-z]+|spellcheck|draggable|contenteditable)[\s>/]`)
	pressed := regexp.MustCompile(`<button[^>]*(aria-pressed="true"[^>]*data-period="1min"|data-period="1min"[^>]*aria-pressed="true")`)
	rawText := regexp.MustCompile(`(?s)<(script|style)\b[^>]*>.*?</(script|style)>`)
	for _, path := range []string{"/", "/?period=5min&tz=utc&theme=dark", "/tiers", "/limits", "/embed/chart", "/embed/tiers", "/embed/limits"} {
		t.Run(path, func(t *testing.T) {
			_, page := served(t, Config{Root: root}, path)
			_, body, _ := strings.Cut(page, "<body")
			body = rawText.ReplaceAllString(body, "")
			if m := onFalse.FindAllString(body, -1); len(m) != 0 {
				t.Errorf("boolean attributes set false, which turns them on: %q", m)
			}
			if m := bare.FindAllString(body, -1); len(m) != 0 {
				t.Errorf("enumerated attributes without a value: %q", m)
			}
			if path == "/" && !pressed.MatchString(body) {
				t.Error("the period on show is not pressed")
			}
		})
	}
}
