package authpkce

import (
	"html/template"
	"net/http"
	"sync"
)

// page is what the browser shows after the redirect. Every field may carry
// text from the authorization server, so it only ever goes through
// html/template, which escapes it.
type page struct {
	Title  string
	Detail string
	Footer string
}

// pageTemplate is parsed when a sign-in first shows a page, not at every
// start-up (issue 32).
var pageTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("page").Parse(pageSource)) })

const pageSource = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ahptui: {{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em;line-height:1.5}</style>
</head><body>
<h1>{{.Title}}</h1>
{{if .Detail}}<p>{{.Detail}}</p>{{end}}
{{if .Footer}}<p>{{.Footer}}</p>{{end}}
</body></html>
`

func writePage(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// The page must not be cached, framed or leak the callback URL (which
	// holds the code) to anything it links to.
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	_ = pageTemplate().Execute(w, p)
}
