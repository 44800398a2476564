package gateway

import "html/template"

// serverPage parses a page the server writes itself (sign-in, no such
// page) into their shell: the app's stylesheet, so both themes, and its
// heading. The page defines "title", what follows "Riskchart · " in the
// tab, and "main", what follows the heading.
func serverPage(name, page string) *template.Template {
	return template.Must(template.Must(template.New(name).Parse(serverPageShell)).Parse(page))
}

const serverPageShell = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Riskchart · {{template "title" .}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/web/style.css"></head>
<body><main class="server-page"><h1>Riskchart</h1>
{{template "main" .}}</main></body></html>`
